/** The report renders what analysis computes: the HTML page, plots and the gallery. */
/** Renders the self-contained HTML report; report writers registered by format name. */
export { renderHtmlReport, renderHtmlReportFiles, reportWriters, DEFAULT_PREVIEW_CHARS, type ReportOptions, type ReportWriter, type RenderedReport } from './write.js';
/** Gallery of scored answers with images, boxes, prompts and verdicts. */
export { collectGallery, type Gallery, type GalleryEntry, type GalleryImage, type GalleryOptions } from './gallery.js';
/** Vega-Lite plots rendered headless to SVG. */
export { vegaLiteToSvg, regressionPlotSpec, barChartSpec } from './plots.js';
/** The regression plot file (.svg or .png). */
export { writeRegressionPlot } from './regression-plot.js';
/** HTML escaping for untrusted model text. */
export { escapeHtml } from './escape.js';
/** The label-noise budget from results folders (`gsr analyze label-noise`), its text, figure and report section. */
export { labelNoiseResults, formatLabelNoise, formatSweep, sweepPlotSpec, labelNoiseHtml, DEFAULT_SWEEP, type LabelNoiseRun } from './label-noise.js';
