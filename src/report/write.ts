import { createHash } from 'node:crypto';
import { basename, dirname, extname, join } from 'node:path';
import { tableFromResults } from '../analysis/metrics.js';
import { comparePublished } from '../analysis/published.js';
import { readPaperNameMap, readPaperTables } from '../formats/paper.js';
import type { ModelResults } from '../analysis/results-types.js';
import { regress, type RegressionReport } from '../analysis/regression.js';
import { writeFileAtomic } from '../util/fs.js';
import { escapeHtml as h } from './escape.js';
import { Registry } from '../util/registry.js';
import { collectGallery, thumbnail, type GalleryEntry, type GalleryOptions } from './gallery.js';
import { renderPage } from './page.js';
import { escapeHtml } from './escape.js';
import { barChartSpec, regressionPlotSpec, vegaLiteToSvg } from './plots.js';
import {
  dapTableHtml,
  galleryHtml,
  groundingTableHtml,
  photosHtml,
  positionBiasTableHtml,
  publishedHtml,
  type PhotosReport,
  reasoningTableHtml,
  regressionHtml,
  relabelHtml,
  relationTableHtml,
  splitTableHtml,
  whatsupPublishedHtml,
  whatsupTableHtml,
} from './render.js';
import { buildWhatsupTable, whatsupBesidePublished } from '../analysis/whatsup.js';
import { relabelResults } from './relabel.js';
import { labelNoiseHtml } from './label-noise.js';
import { perceptionHtml, type PerceptionReport } from './perception.js';
import type { LabelNoiseReport } from '../analysis/label-noise.js';
import {
  buildDapTable,
  buildGroundingTable,
  buildReasoningTable,
  buildRelationBreakdown,
  buildSplitBreakdown,
  positionBiasRows,
  reasoningTasks,
  TASK_NAMES,
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
  /** Longest model output shown whole in the page (default 2,000 characters); longer ones get a preview and a side file. */
  previewChars?: number;
  /** Name map tying results folders to the paper's models (default: data/paper/paper-models.json). */
  paperNames?: string;
  /** Show the published-beside-measured section when a model matches (default true). */
  paper?: boolean;
  /** Real photos annotated by a detector against reference boxes (a pipeline's `photos` stage). */
  photos?: PhotosReport;
  /** Synthetic scenes annotated by models: their training records, quality and overlays beside the truth. */
  perception?: PerceptionReport;
  /** The same models scored against pseudo-labels and against exact truth (a pipeline's `label-noise` stage). */
  labelNoise?: LabelNoiseReport;
  /** A pipeline's items that failed or were left out, one line per stage (shown first). */
  itemNotes?: string[];
}

async function photosSection(p: PhotosReport, size: number): Promise<string> {
  const thumbs = new Map<string, { dataUrl: string; width: number; height: number; id: string }>();
  for (const path of new Set(p.objects.map((o) => o.image))) thumbs.set(path, { ...(await thumbnail({ path }, size)), id: `ph${thumbs.size}` });
  return photosHtml(p, thumbs);
}

/** A rendered report: the page, and side files (path relative to the page -> text) it links to. */
export interface RenderedReport {
  html: string;
  files: Map<string, string>;
}

export const DEFAULT_PREVIEW_CHARS = 2000;

/**
 * Cuts outputs longer than `limit` to a preview; each whole text goes to a side file named by its
 * hash under `filesDir`, so a few huge outputs never make every reader of the page download them.
 */
function previewOutputs(entries: GalleryEntry[], limit: number, filesDir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of entries.flatMap((x) => x.answers)) {
    if (e.output.length <= limit) continue;
    const name = `${filesDir}/output-${createHash('sha256').update(e.output).digest('hex').slice(0, 16)}.txt`;
    files.set(name, e.output);
    // Never end the preview on half of a surrogate pair.
    const cut = /[\uD800-\uDBFF]/.test(e.output[limit - 1]!) ? limit - 1 : limit;
    e.outputLength = e.output.length;
    e.outputFile = name;
    e.output = e.output.slice(0, cut);
  }
  return files;
}

/** Fit and plot of the cross-model regression, or why there is none. */
async function regressionSection(results: ModelResults[], y: string, x: string): Promise<string> {
  const table = tableFromResults(results, y, [x]);
  if (table.labels.length < 3) return regressionHtml(null, null, `Regression of ${y} on ${x} needs at least 3 models with both metrics (have ${table.labels.length}).`, table.skipped);
  let fit: RegressionReport;
  try {
    fit = regress(table);
  } catch (err) {
    return regressionHtml(null, null, `Regression of ${y} on ${x} failed: ${(err as Error).message}`, table.skipped);
  }
  const svg = await vegaLiteToSvg(regressionPlotSpec(fit, table.x[0].values, table.y.values));
  return regressionHtml(fit, svg, '');
}

/** One chart (and its numbers) per reasoning task: the share of answers at each shown position. */
async function positionBiasHtml(results: ModelResults[], tasks: Array<string | undefined>, title: (t: string | undefined) => string): Promise<string> {
  const parts: string[] = [];
  for (const task of tasks) {
    const rows = positionBiasRows(results, task);
    if (rows.length === 0) continue;
    const name = title(task);
    parts.push(
      (name ? `<h3 data-testid="position-bias:${h(task ?? '')}">${h(name)}</h3>` : '') +
        `<div class="plot">${await vegaLiteToSvg(barChartSpec(rows, `Share of answers by shown option position${task ? `, ${task.toUpperCase()}` : ''}`, 'share of answers'))}</div>` +
        positionBiasTableHtml(rows, task),
    );
  }
  return parts.length ? parts.join('\n') : '<p class="note">No position_bias in reasoning.json.</p>';
}

/** Renders the full HTML report for loaded results (long outputs cut to previews linking into `filesDir`). */
export async function renderHtmlReport(results: ModelResults[], o: ReportOptions = {}): Promise<string> {
  return (await renderHtmlReportFiles(results, o)).html;
}

/** The page and its side files; `filesDir` is the side-file folder's path relative to the page. */
export async function renderHtmlReportFiles(results: ModelResults[], o: ReportOptions = {}, filesDir = 'report-files'): Promise<RenderedReport> {
  const stat = { seed: o.seed ?? 0, resamples: o.resamples ?? 2000 };
  const tasks = reasoningTasks(results);
  const taskTitle = (t: string | undefined) => (t === undefined ? '' : (TASK_NAMES[t] ?? t.toUpperCase()));
  // Sections below Table 1 that read one result set per model: its own folder's task (a pipeline's: TG when asked, else MC).
  const primaryNote = tasks.length > 1 ? `<p class="note">On each model's primary task: ${h(tasks.map((t) => (t ?? '').toUpperCase()).join(' when asked, else '))}.</p>` : '';
  const relations = buildRelationBreakdown(results, stat);
  const relationRows = relations.rows.flatMap((r) => relations.relations.flatMap((rel) => (r.cells[rel].value === null ? [] : [{ category: rel, series: r.model, value: r.cells[rel].value! }])));
  const gallery = await collectGallery(results, o);
  const files = previewOutputs(gallery.entries, o.previewChars ?? DEFAULT_PREVIEW_CHARS, filesDir);
  const whatsup = buildWhatsupTable(results);
  const paper = o.paper === false ? null : await readPaperTables();
  const published = paper ? comparePublished(results, paper, await readPaperNameMap(o.paperNames), stat) : [];
  const whatsupPublished = paper ? whatsupBesidePublished(whatsup.rows, paper) : [];
  const sections = [
    {
      id: 'table1',
      title: `Reasoning: CircularEval and VanillaEval (Table 1 style)${tasks.some((t) => t !== undefined) ? `, ${tasks.map((t) => (t ?? 'unnamed task').toUpperCase()).join(' and ')}` : ''}`,
      html: tasks.length ? tasks.map((t) => reasoningTableHtml(buildReasoningTable(results, stat, t))).join('\n') : reasoningTableHtml(buildReasoningTable(results, stat)),
    },
    { id: 'table2', title: 'Grounding: G-Score (Table 2 style)', html: groundingTableHtml(buildGroundingTable(results, stat)) },
    { id: 'dap', title: 'Depth-augmented prompting (DAP)', html: dapTableHtml(buildDapTable(results)) },
    ...(o.perception ? [{ id: 'perception', title: 'Perception: the models that made the labels, beside the exact truth', html: perceptionHtml(o.perception) }] : []),
    ...(o.labelNoise
      ? [{ id: 'label-noise', title: 'Pseudo-labels vs exact truth: the label-noise budget', html: await labelNoiseHtml(o.labelNoise, '<p class="note">Every model scored twice: against the pseudo-labels (as GSR-Bench scores) and against the exact truth of the synthetic scenes; DAP asked with hints from each. TG and MC prompts do not depend on the labels, so their answers are the same both ways.</p>') }]
      : []),
    ...(o.photos ? [{ id: 'photos', title: `Real photos: ${o.photos.summary.detector} against reference boxes`, html: await photosSection(o.photos, o.thumbSize ?? 360) }] : []),
    ...(published.length > 0 || whatsupPublished.length > 0
      ? [{ id: 'published', title: 'Published beside measured (GSR-Bench paper, Tables 1-3)', html: (published.length > 0 ? publishedHtml(published) : '') + whatsupPublishedHtml(whatsupPublished) }]
      : []),
    { id: 'regression', title: 'Grounding vs reasoning across models', html: await regressionSection(results, o.regressionY ?? 'reasoning:whatsup-a:circular', o.regressionX ?? 'grounding:whatsup-a/subject') },
    {
      id: 'relations',
      title: 'Per relation (CircularEval)',
      html: primaryNote + relationTableHtml(relations) + (relationRows.length ? `<div class="plot">${await vegaLiteToSvg(barChartSpec(relationRows, 'CircularEval accuracy by relation', 'accuracy'))}</div>` : ''),
    },
    { id: 'splits', title: 'Per split', html: primaryNote + splitTableHtml(buildSplitBreakdown(results)) },
    { id: 'position-bias', title: 'Position bias', html: await positionBiasHtml(results, tasks, taskTitle) },
    { id: 'gallery', title: 'Gallery', html: galleryHtml(gallery) },
  ];
  const relabelWarnings: string[] = [];
  if (o.reviewed && o.annotations) {
    const y = o.regressionY ?? 'reasoning:whatsup-a:circular';
    const x = o.regressionX ?? 'grounding:whatsup-a/subject';
    const relabel = await relabelResults(results, o.annotations, o.reviewed, { y, x, ...stat });
    sections.splice(4, 0, { id: 'relabel', title: 'Pseudo-labels vs reviewed labels', html: relabelHtml(relabel) });
    relabelWarnings.push(...relabel.warnings);
  }
  // After the relabel section (its place counts from the start): What'sUp's own metrics beside Table 1.
  if (whatsup.rows.length > 0 || whatsup.missing.length > 0) {
    sections.splice(1, 0, { id: 'whatsup', title: "What'sUp's own metrics: individual, pair and set accuracy (Controlled A and B)", html: whatsupTableHtml(whatsup) });
  }
  // First, since every table below covers the other items only.
  if (o.itemNotes?.length) {
    sections.unshift({ id: 'failures', title: 'Items that failed or were left out', html: `<p class="note">The tables below cover the other items only.</p><ul>${o.itemNotes.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` });
  }
  const warnings = [...results.flatMap((r) => r.warnings), ...gallery.warnings, ...whatsup.warnings, ...relabelWarnings];
  return { html: renderPage(o.title ?? 'gsr-bench report', sections, warnings, o.generated ?? new Date().toISOString()), files };
}

/** A report writer renders loaded results to a file. */
export type ReportWriter = (results: ModelResults[], out: string, options: ReportOptions) => Promise<void>;

/** Report writers by format name; `html` is built in. */
export const reportWriters = new Registry<ReportWriter>('report format');
/** `report.html` keeps its side files in `report.files/` beside it; they are written before the page. */
reportWriters.register('html', async (results, out, options) => {
  const filesDir = `${basename(out, extname(out))}.files`;
  const { html, files } = await renderHtmlReportFiles(results, options, filesDir);
  for (const [name, text] of files) await writeFileAtomic(join(dirname(out), name), text);
  await writeFileAtomic(out, html);
});
