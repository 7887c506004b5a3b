/** Reads results folders (reasoning/grounding summaries, item files, DAP variant subfolders). */
export { loadModelResults, loadAllResults } from './load-results.js';
/** Renders the self-contained HTML report; report writers registered by format name. */
export { renderHtmlReport, reportWriters, type ReportOptions, type ReportWriter } from './write.js';
/** Table builders behind the report (Table 1/2 with bootstrap CIs, DAP with McNemar, breakdowns). */
export {
  buildReasoningTable,
  buildGroundingTable,
  buildDapTable,
  buildRelationBreakdown,
  buildSplitBreakdown,
  positionBiasRows,
  orderSplits,
  type Cell,
  type ReasoningTable,
  type GroundingTable,
  type DapRow,
  type RelationBreakdown,
  type SplitBreakdownRow,
  type StatOptions,
} from './summary.js';
/** Gallery of scored answers with images, boxes, prompts and verdicts. */
export { collectGallery, type Gallery, type GalleryEntry, type GalleryImage, type GalleryOptions } from './gallery.js';
/** Vega-Lite plots rendered headless to SVG. */
export { vegaLiteToSvg, regressionPlotSpec, barChartSpec } from './plots.js';
/** Regression fitting and plot files for the CLI and notebooks. */
export { fitTable, writeRegressionPlot, loadRegressionTable, type RegressionInput } from './regression-output.js';
/** HTML escaping for untrusted model text. */
export { escapeHtml } from './escape.js';
