/** OLS with statsmodels-style summary figures (coefficients, se, t, p, CI, R², F). */
export { ols, tTwoSidedP, simplePredictionBand, type OlsResult, type OlsOptions, type Coefficient } from './ols.js';
/** Pearson and Spearman correlation with p-values. */
export { pearson, spearman, averageRanks, type Correlation } from './correlation.js';
/** Seeded percentile bootstrap confidence intervals. */
export { bootstrapMean, bootstrapMeanOfMeans, quantileSorted, type BootstrapInterval, type BootstrapOptions } from './bootstrap.js';
/** Seeded pseudo-random generator (mulberry32). */
export { seededRandom } from './random.js';
/** Exact McNemar, exact binomial and z tests against chance. */
export { mcnemarExact, mcnemarPaired, binomialTest, proportionZTest, type McNemarResult, type BinomialTestResult } from './tests.js';
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
export { parseMetric, metricValue, tableFromResults, type MetricSpec } from './metrics.js';
/** Per-item outcomes folded from scored records (CircularEval / VanillaEval), grouping helpers. */
export { ItemOutcomeFolder, groundingOutcome, groupBy, shareTrue } from './outcomes.js';
/** Record shapes of the scoring stage's results folders as analysis reads them. */
export type * from './results-types.js';
/** Monte-Carlo power and false-positive rate of the cross-model regression; exact power from the noncentral t. */
export { regressionPower, noncentralTPower, wilsonInterval, formatPower, type PowerSetting, type PowerResult, type McShare } from './power.js';
