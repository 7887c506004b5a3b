import { tableFromResults } from '../analysis/metrics.js';
import type { ModelResults } from '../analysis/results-types.js';
import { regress, type RegressionReport } from '../analysis/regression.js';
import { writeFileAtomic } from '../util/fs.js';
import { Registry } from '../util/registry.js';
import { collectGallery, type GalleryOptions } from './gallery.js';
import { renderPage } from './page.js';
import { barChartSpec, regressionPlotSpec, vegaLiteToSvg } from './plots.js';
import { dapTableHtml, galleryHtml, groundingTableHtml, reasoningTableHtml, regressionHtml, relabelHtml, relationTableHtml, splitTableHtml } from './render.js';
import { relabelResults } from './relabel.js';
import {
  buildDapTable,
  buildGroundingTable,
  buildReasoningTable,
  buildRelationBreakdown,
  buildSplitBreakdown,
  positionBiasRows,
} from '../analysis/tables.js';

export interface ReportOptions extends GalleryOptions {
  title?: string;
  /** Bootstrap seed (default 0) and resamples (default 2000). */
  seed?: number;
  resamples?: number;
  /** Regression metrics (defaults: the paper's Subset A TG CircularEval on Subset A subject G-Score). */
  regressionY?: string;
  regressionX?: string;
  /** Fixed timestamp for reproducible output. */
  generated?: string;
  /** Reviewed annotation file: adds "pseudo-labels vs reviewed labels" against `annotations`. */
  reviewed?: string;
}

/** Fit and plot of the cross-model regression, or why there is none. */
async function regressionSection(results: ModelResults[], y: string, x: string): Promise<string> {
  const table = tableFromResults(results, y, [x]);
  if (table.labels.length < 3) return regressionHtml(null, null, `Regression of ${y} on ${x} needs at least 3 models with both metrics (have ${table.labels.length}).`);
  let fit: RegressionReport;
  try {
    fit = regress(table);
  } catch (err) {
    return regressionHtml(null, null, `Regression of ${y} on ${x} failed: ${(err as Error).message}`);
  }
  const svg = await vegaLiteToSvg(regressionPlotSpec(fit, table.x[0].values, table.y.values));
  return regressionHtml(fit, svg, '');
}

/** Renders the full HTML report for loaded results. */
export async function renderHtmlReport(results: ModelResults[], o: ReportOptions = {}): Promise<string> {
  const stat = { seed: o.seed ?? 0, resamples: o.resamples ?? 2000 };
  const bias = positionBiasRows(results);
  const relations = buildRelationBreakdown(results, stat);
  const relationRows = relations.rows.flatMap((r) => relations.relations.flatMap((rel) => (r.cells[rel].value === null ? [] : [{ category: rel, series: r.model, value: r.cells[rel].value! }])));
  const gallery = await collectGallery(results, o);
  const sections = [
    { id: 'table1', title: 'Reasoning: CircularEval and VanillaEval (Table 1 style)', html: reasoningTableHtml(buildReasoningTable(results, stat)) },
    { id: 'table2', title: 'Grounding: G-Score (Table 2 style)', html: groundingTableHtml(buildGroundingTable(results, stat)) },
    { id: 'dap', title: 'Depth-augmented prompting (DAP)', html: dapTableHtml(buildDapTable(results)) },
    { id: 'regression', title: 'Grounding vs reasoning across models', html: await regressionSection(results, o.regressionY ?? 'reasoning:whatsup-a:circular', o.regressionX ?? 'grounding:whatsup-a/subject') },
    {
      id: 'relations',
      title: 'Per relation (CircularEval)',
      html: relationTableHtml(relations) + (relationRows.length ? `<div class="plot">${await vegaLiteToSvg(barChartSpec(relationRows, 'CircularEval accuracy by relation', 'accuracy'))}</div>` : ''),
    },
    { id: 'splits', title: 'Per split', html: splitTableHtml(buildSplitBreakdown(results)) },
    {
      id: 'position-bias',
      title: 'Position bias',
      html: bias.length ? `<div class="plot">${await vegaLiteToSvg(barChartSpec(bias, 'Share of answers by shown option position', 'share of answers'))}</div>` : '<p class="note">No position_bias in reasoning.json.</p>',
    },
    { id: 'gallery', title: 'Gallery', html: galleryHtml(gallery) },
  ];
  if (o.reviewed && o.annotations) {
    const y = o.regressionY ?? 'reasoning:whatsup-a:circular';
    const x = o.regressionX ?? 'grounding:whatsup-a/subject';
    const relabel = await relabelResults(results, o.annotations, o.reviewed, { y, x, ...stat });
    sections.splice(4, 0, { id: 'relabel', title: 'Pseudo-labels vs reviewed labels', html: relabelHtml(relabel) });
  }
  const warnings = [...results.flatMap((r) => r.warnings), ...gallery.warnings];
  return renderPage(o.title ?? 'gsr-bench report', sections, warnings, o.generated ?? new Date().toISOString());
}

/** A report writer renders loaded results to a file. */
export type ReportWriter = (results: ModelResults[], out: string, options: ReportOptions) => Promise<void>;

/** Report writers by format name; `html` is built in. */
export const reportWriters = new Registry<ReportWriter>('report format');
reportWriters.register('html', async (results, out, options) => {
  await writeFileAtomic(out, await renderHtmlReport(results, options));
});
