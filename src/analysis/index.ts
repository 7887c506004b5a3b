/** OLS with statsmodels-style summary figures (coefficients, se, t, p, CI, R², F). */
export { ols, tTwoSidedP, simplePredictionBand, type OlsResult, type OlsOptions, type Coefficient } from './ols.js';
/** Pearson and Spearman correlation with p-values. */
export { pearson, spearman, averageRanks, type Correlation } from './correlation.js';
/** Seeded percentile bootstrap confidence intervals. */
export { bootstrapMean, bootstrapMeanOfMeans, bootstrapMeanOfRatios, type BootstrapInterval, type BootstrapOptions, type RatioGroup } from './bootstrap.js';
/** Exact McNemar, exact binomial, Poisson-binomial and z tests against chance. */
export { mcnemarExact, mcnemarPaired, binomialTest, poissonBinomialUpper, circularChanceTest, proportionZTest, type McNemarResult, type BinomialTestResult } from './tests.js';
/** Regression across models: tables from CSV, fits, statsmodels-like summary, leave-one-out. */
export {
  tableFromCsv,
  tableFromCsvs,
  regress,
  simpleSlope,
  formatSummary,
  type CsvSource,
  type RegressionTable,
  type RegressionReport,
} from './regression.js';
/** Leave-one-out influence: slope, p and Cook's distance per row. */
export { leaveOneOut, withoutRow, formatInfluence, type InfluenceReport, type InfluenceRow } from './influence.js';
/** How far a fit can move within the rounding of its printed inputs. */
export { roundingSensitivity, formatRounding, type RoundingSensitivity } from './rounding.js';
/** Metrics read from results folders by name (`reasoning:whatsup-a:circular`, `grounding:whatsup-a/subject`). */
export { parseMetric, metricValue, tableFromResults, groundingWithoutBoxes, reasoningUnreadable, unreadableReasons, NO_BOX_SHARE, UNREADABLE_SHARE, type MetricSpec } from './metrics.js';
/** Per-item outcomes folded from scored records (CircularEval / VanillaEval), grouping helpers. */
export { ItemOutcomeFolder, groundingOutcome, groupBy, shareTrue } from './outcomes.js';
/** Monte-Carlo power and false-positive rate of the cross-model regression; exact power from the noncentral t. */
export { regressionPower, noncentralTPower, wilsonInterval, formatPower, type PowerSetting, type PowerResult, type McShare } from './power.js';
/** Loads results folders (summaries, item outcomes, DAP variant subfolders) with warnings for bad parts. */
export { loadModelResults, loadAllResults } from './load-results.js';
/** What analysis makes of results folders. */
export type { ModelResults, ReasoningVariant, ItemOutcome, GroundingOutcome } from './results-types.js';
/** Table builders (Table 1/2 with bootstrap CIs, DAP with McNemar, breakdowns). */
export {
  buildReasoningTable,
  buildGroundingTable,
  buildDapTable,
  buildRelationBreakdown,
  buildSplitBreakdown,
  positionBiasRows,
  reasoningTasks,
  taskVariant,
  TASK_NAMES,
  type Cell,
  type ReasoningTable,
  type GroundingTable,
  type DapRow,
  type RelationBreakdown,
  type SplitBreakdownRow,
  type StatOptions,
} from './tables.js';
/** Regression inputs from a CSV or results folders, and the fit with one-line errors. */
export { fitTable, loadRegressionTable, type RegressionInput } from './regression-input.js';
/** G-Scores re-scored against reviewed labels, and how the reasoning-on-grounding regression moves. */
export { relabelModel, responsesFromItems, scoringOptionsOf, truthBoxes, regressionShift, type RelabelModel, type RelabelColumn, type RegressionShift } from './relabel.js';
/** Cohen's kappa of two raters. */
export { cohenKappa, type KappaResult } from './agreement.js';
/** Measured beside the GSR-Bench paper's published Tables 1-3. */
export { comparePublished, formatPublished, paperModelFor, TABLE1_SPLITS, TABLE2_COLUMNS, type PublishedCell, type PublishedComparison } from './published.js';
/** The pseudo-label error budget: G-Scores, regression and DAP against pseudo-labels and truth, and the annotator-quality sweep. */
export {
  labelNoise,
  annotatorSweep,
  perturbedLabels,
  annotatorHitRate,
  gScorePair,
  fitSlope,
  type LabelNoiseReport,
  type LabelNoiseModel,
  type GScorePair,
  type DapNoiseRow,
  type SweepReport,
  type SweepRow,
  type SweepModel,
  type SlopeFit,
} from './label-noise.js';
/** What'sUp's own metrics (individual, pair, set, confusion) from results folders, and beside What'sUp's published rows. */
export { buildWhatsupTable, whatsupBesidePublished, formatWhatsupTable, formatWhatsupPublished, type WhatsupRow, type WhatsupTable, type WhatsupPublished } from './whatsup.js';
/** The one p-value format of every table and summary. */
export { formatP } from '../util/stats.js';
