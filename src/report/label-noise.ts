/**
 * Reading and showing the pseudo-label error budget (`gsr analyze label-noise`, the pipeline's
 * `label-noise` stage and the report section): results folders scored against pseudo-labels and
 * against exact truth, the two annotation files, and the annotator-quality sweep.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { annotatorHitRate, annotatorSweep, labelNoise, type LabelNoiseReport, type SlopeFit, type SweepModel, type SweepReport } from '../analysis/label-noise.js';
import { loadAllResults } from '../analysis/load-results.js';
import { metricValue, parseMetric } from '../analysis/metrics.js';
import { truthBoxes } from '../analysis/relabel.js';
import type { GroundingItemRecord } from '../analysis/results-types.js';
import { readCocoFile } from '../formats/coco.js';
import { GsrError } from '../util/errors.js';
import { readJsonlAll } from '../util/jsonl.js';
import { escapeHtml as h } from './escape.js';
import { vegaLiteToSvg } from './plots.js';

/** Annotator qualities swept by default (share of objects an annotator boxes right). */
export const DEFAULT_SWEEP = [1, 0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05];

export interface LabelNoiseRun {
  /** Results folders scored against the pseudo-labels, and the same models scored against the truth. */
  results: string[];
  truthResults: string[];
  /** The pseudo-label and exact annotation files: with both, the annotator's hit rate; with `truth`, the sweep. */
  pseudo?: string;
  truth?: string;
  y: string;
  x: string;
  /** Annotator qualities to sweep (empty: no sweep). */
  sweep?: number[];
  draws?: number;
  seed?: number;
  resamples?: number;
  alpha?: number;
}

/** Loads both sides, computes the budget, the annotator's hit rate and the sweep. */
export async function labelNoiseResults(o: LabelNoiseRun): Promise<LabelNoiseReport & { warnings: string[] }> {
  for (const m of [o.y, o.x]) {
    try {
      parseMetric(m);
    } catch (err) {
      throw new GsrError((err as Error).message);
    }
  }
  const [pseudo, truth] = [await loadAllResults(o.results), await loadAllResults(o.truthResults)];
  const warnings = [...pseudo, ...truth].flatMap((r) => r.warnings);
  let base;
  try {
    base = labelNoise(pseudo, truth, { y: o.y, x: o.x, resamples: o.resamples, seed: o.seed, alpha: o.alpha });
  } catch (err) {
    throw new GsrError((err as Error).message);
  }
  if (base.models.length === 0 && base.dap.length === 0) throw new GsrError('no model has results on both sides (match --results and --truth-results by model name)');
  const truthCoco = o.truth ? await readCocoFile(o.truth) : null;
  const annotator = truthCoco && o.pseudo ? annotatorHitRate(truthBoxes(await readCocoFile(o.pseudo)), truthBoxes(truthCoco)) : null;
  let sweep: SweepReport | null = null;
  if (truthCoco && (o.sweep ?? DEFAULT_SWEEP).length > 0) {
    const ySpec = parseMetric(o.y);
    const models: SweepModel[] = [];
    for (const r of truth) {
      const path = join(r.dir, 'grounding-items.jsonl');
      const y = metricValue(pseudo.find((p) => p.model === r.model) ?? r, ySpec);
      if (y === null || !existsSync(path)) continue;
      models.push({ model: r.model, y, items: await readJsonlAll<GroundingItemRecord>(path) });
    }
    sweep = annotatorSweep(truthCoco, models, { x: o.x, y: o.y, qualities: o.sweep ?? DEFAULT_SWEEP, draws: o.draws ?? 50, seed: o.seed, alpha: o.alpha });
  }
  return { ...base, annotator, sweep, warnings };
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '-' : (100 * v).toFixed(1));
const signed = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;
const pFmt = (p: number) => (p < 1e-4 ? p.toExponential(2) : p.toFixed(4));
const fitText = (f: SlopeFit | null) => (f ? `slope ${f.slope.toFixed(3)} [${f.ci[0].toFixed(3)}, ${f.ci[1].toFixed(3)}], p = ${pFmt(f.p)}, R² = ${f.r2.toFixed(3)}, n = ${f.n}` : 'not fitted (fewer than 3 models)');
const quality = (q: number | null) => (q === null ? 'exact truth' : pct(q) + '%');

/** The sweep as a table of text lines (tab-separated), for the CLI and the docs. */
export function formatSweep(s: SweepReport): string {
  const lines = [`annotator quality\tdraws\tannotator hit rate %\tslope median [2.5%, 97.5%]\tmedian p\tpositive and p < ${s.alpha}`];
  for (const r of s.rows) {
    lines.push(`${quality(r.quality)}\t${r.draws}\t${pct(r.hit_rate.mean)} (${pct(r.hit_rate.min)}-${pct(r.hit_rate.max)})\t${r.slope.median.toFixed(3)} [${r.slope.low.toFixed(3)}, ${r.slope.high.toFixed(3)}]\t${pFmt(r.p_median)}\t${pct(r.conclusion)}%`);
  }
  lines.push(survivalText(s));
  return lines.join('\n');
}

function survivalText(s: SweepReport): string {
  const rule = `in at least ${pct(s.survival_share)}% of the annotator draws`;
  return s.survives_down_to === null
    ? `The conclusion (positive slope, p < ${s.alpha}) does not survive ${rule} at any swept annotator quality.`
    : `The conclusion (positive slope, p < ${s.alpha}) survives ${rule} down to an annotator quality of ${pct(s.survives_down_to)}%.`;
}

/** The whole budget as text, for the CLI. */
export function formatLabelNoise(r: LabelNoiseReport): string {
  const out = ['model\tcolumn\tpseudo-labels\ttruth\tpseudo - truth [95% CI]\tflipped'];
  for (const m of r.models) {
    for (const [col, g] of Object.entries(m.g_score)) {
      const d = g.difference ? `${signed(g.difference.estimate)} [${signed(g.difference.low)}, ${signed(g.difference.high)}]` : '-';
      out.push(`${m.model}\t${col}\t${pct(g.pseudo)}\t${pct(g.truth)}\t${d}\t${g.objects.flipped}`);
    }
  }
  out.push(`regression ${r.y} ~ ${r.x} across ${r.regression.models.length} models`, `  against pseudo-labels: ${fitText(r.regression.pseudo)}`, `  against the truth:     ${fitText(r.regression.truth)}`);
  if (r.dap.length) {
    out.push('model\tDAP items (pseudo hint / exact hint)\tCircularEval pseudo hint\texact hint\tpaired n\tMcNemar p');
    for (const d of r.dap) out.push(`${d.model}\t${d.pseudo.n} / ${d.truth.n}\t${pct(d.pseudo.circular)}\t${pct(d.truth.circular)}\t${d.paired?.n ?? 0}\t${d.paired ? pFmt(d.paired.mcnemar.p) : '-'}`);
  }
  if (r.annotator) out.push(`annotator: ${r.annotator.hits} of ${r.annotator.objects} objects boxed at IoU >= 0.5 (${pct(r.annotator.hit_rate)}%)`);
  if (r.sweep) out.push('', formatSweep(r.sweep));
  for (const s of r.skipped) out.push(`skipped ${s.model}: ${s.reason}`);
  return out.join('\n');
}

/** The sweep's figure: slope (median and 95% range of draws) and the share keeping the conclusion, by annotator quality. */
export function sweepPlotSpec(s: SweepReport, annotator?: number | null): TopLevelSpec {
  const rows = s.rows.filter((r) => r.quality !== null).map((r) => ({ quality: r.quality!, slope: r.slope.median, low: r.slope.low, high: r.slope.high, conclusion: r.conclusion }));
  const exact = s.rows.find((r) => r.quality === null);
  const x = { field: 'quality', type: 'quantitative', title: 'annotator quality (share of objects boxed right)', scale: { domain: [Math.min(...rows.map((r) => r.quality)) - 0.02, 1.02] } };
  const marks: unknown[] = [
    { mark: { type: 'area', opacity: 0.2, color: '#4c78a8' }, encoding: { x, y: { field: 'low', type: 'quantitative', title: 'slope (reasoning per unit of G-Score)' }, y2: { field: 'high' } } },
    { mark: { type: 'line', point: true, color: '#4c78a8' }, encoding: { x, y: { field: 'slope', type: 'quantitative' } } },
  ];
  if (exact) marks.push({ data: { values: [{ v: exact.slope.median }] }, mark: { type: 'rule', strokeDash: [4, 3], color: '#54a24b' }, encoding: { y: { field: 'v', type: 'quantitative' } } });
  if (annotator !== undefined && annotator !== null) marks.push({ data: { values: [{ v: annotator }] }, mark: { type: 'rule', color: '#e45756' }, encoding: { x: { field: 'v', type: 'quantitative' } } });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `${s.y} ~ ${s.x} against annotators of each quality`,
    data: { values: rows },
    vconcat: [
      { width: 460, height: 220, layer: marks },
      {
        width: 460,
        height: 120,
        mark: { type: 'line', point: true, color: '#f58518' },
        encoding: { x, y: { field: 'conclusion', type: 'quantitative', title: `share positive, p < ${s.alpha}`, scale: { domain: [0, 1] } } },
      },
    ],
  } as TopLevelSpec;
}

/** The report section. */
export async function labelNoiseHtml(r: LabelNoiseReport, intro = ''): Promise<string> {
  const val = (v: number | null, id: string) => (v === null ? '<td class="na">—</td>' : `<td data-testid="${h(id)}" data-value="${v}">${pct(v)}</td>`);
  // One row per model; per G-Score column: against the pseudo-labels, against the truth, the difference.
  const columns = [...new Set(r.models.flatMap((m) => Object.keys(m.g_score)))].sort((a, b) => (a === 'avg' ? 1 : b === 'avg' ? -1 : a.localeCompare(b)));
  const rows = r.models.map((m) => {
    const cells = columns.map((col) => {
      const g = m.g_score[col];
      if (!g) return '<td class="na">—</td><td class="na">—</td><td class="na">—</td>';
      const d = g.difference ? `<td data-testid="${h(`noise:${m.model}:${col}:diff`)}" data-value="${g.difference.estimate}">${signed(g.difference.estimate)}<span class="ci">[${signed(g.difference.low)}, ${signed(g.difference.high)}]</span></td>` : '<td class="na">—</td>';
      return `${val(g.pseudo, `noise:${m.model}:${col}:pseudo`)}${val(g.truth, `noise:${m.model}:${col}:truth`)}${d}`;
    });
    const avg = m.g_score.avg;
    return `<tr><th scope="row">${h(m.model)}</th>${cells.join('')}<td>${avg ? `${avg.objects.pseudo} / ${avg.objects.truth}` : '—'}</td><td>${avg?.objects.flipped ?? '—'}</td></tr>`;
  });
  const head1 = columns.map((c) => `<th colspan="3">${h(c === 'avg' ? 'Avg G-Score' : c)}</th>`).join('');
  const head2 = columns.map(() => '<th>pseudo</th><th>truth</th><th>pseudo - truth [95% CI]</th>').join('');
  const g = r.regression;
  const reg =
    `<table id="noise-regression"><thead><tr><th>Scored against</th><th>slope [95% CI]</th><th>p</th><th>R²</th><th>models</th></tr></thead><tbody>` +
    ([['pseudo-labels', g.pseudo], ['exact truth', g.truth]] as const)
      .map(([label, f]) => (f ? `<tr><th scope="row">${label}</th><td data-testid="noise:slope:${label}" data-value="${f.slope}">${f.slope.toFixed(3)} <span class="ci">[${f.ci[0].toFixed(3)}, ${f.ci[1].toFixed(3)}]</span></td><td data-value="${f.p}">${pFmt(f.p)}</td><td>${f.r2.toFixed(3)}</td><td>${f.n}</td></tr>` : `<tr><th scope="row">${label}</th><td colspan="4" class="na">not fitted</td></tr>`))
      .join('') +
    '</tbody></table>' +
    (g.same_conclusion === null ? '' : `<p data-testid="noise-conclusion">The conclusion (positive slope, p &lt; 0.05) is ${g.same_conclusion ? 'the same' : '<strong>different</strong>'} both ways.</p>`);
  const dap = r.dap.length
    ? '<table id="noise-dap"><thead><tr><th>Model</th><th>DAP items (pseudo / exact hint)</th><th>Circ. with the pseudo-label hint</th><th>Circ. with the exact hint</th><th>paired items</th><th>McNemar p (exact)</th></tr></thead><tbody>' +
      r.dap
        .map((d) => `<tr><th scope="row">${h(d.model)}</th><td>${d.pseudo.n} / ${d.truth.n}</td>${val(d.pseudo.circular, `noise:dap:${d.model}:pseudo`)}${val(d.truth.circular, `noise:dap:${d.model}:truth`)}<td>${d.paired?.n ?? 0}</td><td>${d.paired ? pFmt(d.paired.mcnemar.p) : '—'}</td></tr>`)
        .join('') +
      '</tbody></table>'
    : '<p class="note">No DAP results on both sides.</p>';
  const annotator = r.annotator ? `<p data-testid="noise-annotator" data-value="${r.annotator.hit_rate}">The annotator boxed ${r.annotator.hits} of ${r.annotator.objects} objects right (IoU ≥ 0.5 with the truth; ${pct(r.annotator.hit_rate)}%).</p>` : '';
  let sweep = '';
  if (r.sweep) {
    const s = r.sweep;
    const body = s.rows
      .map((x) => `<tr><th scope="row">${quality(x.quality)}</th><td>${x.draws}</td><td>${pct(x.hit_rate.mean)}</td><td>${x.slope.median.toFixed(3)} <span class="ci">[${x.slope.low.toFixed(3)}, ${x.slope.high.toFixed(3)}]</span></td><td>${pFmt(x.p_median)}</td><td data-testid="noise:sweep:${x.quality ?? 'exact'}" data-value="${x.conclusion}">${pct(x.conclusion)}%</td></tr>`)
      .join('');
    sweep =
      `<h3>Annotator quality sweep</h3><p class="note">The exact truth perturbed to a target hit rate (each object drawn apart: a hit is the box moved to an IoU in [0.6, 0.95], a miss a box of its size elsewhere, as the simulated answerers' boxes), ${s.rows[1]?.draws ?? 0} seeded annotators per quality; every model re-scored against each and the regression fitted again.</p>` +
      `<div class="plot">${await vegaLiteToSvg(sweepPlotSpec(s, r.annotator?.hit_rate))}</div>` +
      `<table id="noise-sweep"><thead><tr><th>Annotator quality</th><th>draws</th><th>hit rate %</th><th>slope median [95% of draws]</th><th>median p</th><th>positive, p &lt; ${s.alpha}</th></tr></thead><tbody>${body}</tbody></table>` +
      `<p data-testid="noise-survival"><b>${h(survivalText(s))}</b></p>`;
  }
  return (
    intro +
    annotator +
    `<table id="noise-gscores"><thead><tr><th rowspan="2">Model</th>${head1}<th rowspan="2">objects scored (pseudo / truth)</th><th rowspan="2">flipped</th></tr><tr>${head2}</tr></thead><tbody>${rows.join('\n')}</tbody></table>` +
    `<p class="note">Interval: percentile bootstrap over items (2000 resamples), both G-Scores recomputed on each resample; flipped: objects scored both ways whose hit changed.</p>` +
    `<p>Regression ${h(g.models.length ? `${r.y} on ${r.x}` : '')} across ${g.models.length} models:</p>${reg}<h3>DAP: the annotator's depth hint against exact depth</h3>${dap}${sweep}`
  );
}
