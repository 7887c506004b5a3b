/**
 * The pseudo-label error budget (docs/analysis.md, "Label noise"): the same answerers scored once
 * against pseudo-labels (as GSR-Bench scores them) and once against exact truth. How far each
 * G-Score moves, with an interval; the cross-model regression both ways; DAP with the annotator's
 * depth hint and with exact depth; and a sweep of the annotator's quality, made by perturbing the
 * exact truth to a target hit rate with the simulated answerers' box machinery. Pure.
 */
import type { CocoFile } from '../formats/coco.js';
import { boxIou, type Box } from '../geometry/boxes.js';
import { simulatedBox } from '../mllm/baselines/simulated.js';
import type { Xyxy } from '../mllm/baselines/geometry-reasoner.js';
import { keyedUniform, seededRandom } from '../util/random.js';
import { quantileSorted } from '../util/stats.js';
import type { BootstrapInterval } from './bootstrap.js';
import { metricValue, parseMetric, type MetricSpec } from './metrics.js';
import { ols } from './ols.js';
import { truthBoxes } from './relabel.js';
import type { GroundingItemRecord, GroundingOutcome, ModelResults } from './results-types.js';
import { mcnemarPaired, type McNemarResult } from './tests.js';

/** A fitted slope of y on one x across models. */
export interface SlopeFit {
  slope: number;
  ci: [number, number];
  p: number;
  r2: number;
  n: number;
}

/** One G-Score (a column or the average) against both label sets. */
export interface GScorePair {
  pseudo: number | null;
  truth: number | null;
  /** pseudo - truth, with a percentile bootstrap interval over items (both sides recomputed per resample). */
  difference: BootstrapInterval | null;
  /** Objects scored against each label set, and those scored in both whose hit differs. */
  objects: { pseudo: number; truth: number; flipped: number };
}

export interface LabelNoiseModel {
  model: string;
  /** By column (`<split>/<role>`) and `avg` (the mean of the columns, as the Avg G-Score). */
  g_score: Record<string, GScorePair>;
  /** The regression's y for this model (the same reasoning results on both sides). */
  y: number | null;
}

export interface DapNoiseRow {
  model: string;
  /** CircularEval of the DAP prompts whose hint came from the pseudo-labels, over their items. */
  pseudo: { n: number; circular: number };
  truth: { n: number; circular: number };
  /** On the items asked both ways: each side's CircularEval and the exact McNemar test. */
  paired: { n: number; pseudo: number; truth: number; mcnemar: McNemarResult } | null;
}

export interface SweepRow {
  /** Target share of objects the perturbed annotator gets right (IoU >= the threshold with the truth); null = the exact truth. */
  quality: number | null;
  draws: number;
  /** The annotator's measured hit rate against the truth over the draws. */
  hit_rate: { mean: number; min: number; max: number };
  slope: { median: number; low: number; high: number };
  p_median: number;
  /** Share of draws where the slope is positive with p < alpha (the paper's conclusion). */
  conclusion: number;
}

export interface SweepReport {
  y: string;
  x: string;
  alpha: number;
  /** A quality survives when at least this share of its draws keeps the conclusion. */
  survival_share: number;
  rows: SweepRow[];
  /** The lowest quality of the grid at and above which the conclusion survives; null if it never does. */
  survives_down_to: number | null;
}

export interface LabelNoiseReport {
  y: string;
  x: string;
  models: LabelNoiseModel[];
  regression: { models: string[]; pseudo: SlopeFit | null; truth: SlopeFit | null; same_conclusion: boolean | null };
  dap: DapNoiseRow[];
  /** The annotator's own hit rate against the truth (objects with IoU >= 0.5; a missing one is a miss). */
  annotator: { objects: number; hits: number; hit_rate: number | null } | null;
  sweep: SweepReport | null;
  skipped: Array<{ model: string; reason: string }>;
}

export interface LabelNoiseOptions {
  y: string;
  x: string;
  resamples?: number;
  seed?: number;
  alpha?: number;
}

/** Fits y on x (OLS) across models; null with fewer than 3 or a degenerate x. */
export function fitSlope(ys: number[], xs: number[]): SlopeFit | null {
  if (ys.length < 3) return null;
  try {
    const r = ols(ys, { x: xs });
    const c = r.coefficients.find((k) => k.name === 'x')!;
    if (!Number.isFinite(c.p)) return null;
    return { slope: c.estimate, ci: c.ci, p: c.p, r2: r.r2, n: ys.length };
  } catch {
    return null;
  }
}

/** The paper's conclusion: a positive slope with p < alpha. */
export const conclusionHolds = (f: SlopeFit | null, alpha: number): boolean => f !== null && f.slope > 0 && f.p < alpha;

type Outcome = Pick<GroundingOutcome, 'item' | 'split' | 'role' | 'hit'>;

/** The metric's G-Score from per-object outcomes: one column's hit rate, or the mean of the columns. */
function gScoreOf(outcomes: readonly Outcome[], column: string): number | null {
  const cols = new Map<string, [number, number]>();
  for (const o of outcomes) {
    const c = `${o.split}/${o.role}`;
    const t = cols.get(c) ?? cols.set(c, [0, 0]).get(c)!;
    t[0] += o.hit ? 1 : 0;
    t[1]++;
  }
  if (column !== 'avg') {
    const t = cols.get(column);
    return t ? t[0] / t[1] : null;
  }
  return cols.size ? [...cols.values()].reduce((s, [h, n]) => s + h / n, 0) / cols.size : null;
}

/** Both G-Scores of one column (or `avg`) and their difference, resampling items with replacement. */
export function gScorePair(pseudo: readonly Outcome[], truth: readonly Outcome[], column: string, resamples: number, seed: number): GScorePair {
  const inColumn = (o: Outcome) => column === 'avg' || `${o.split}/${o.role}` === column;
  const [p, t] = [pseudo.filter(inColumn), truth.filter(inColumn)];
  const key = (o: Outcome) => `${o.item}\u0000${o.role}`;
  const truthHit = new Map(t.map((o) => [key(o), o.hit]));
  const flipped = p.filter((o) => truthHit.has(key(o)) && truthHit.get(key(o)) !== o.hit).length;
  const objects = { pseudo: p.length, truth: t.length, flipped };
  const [gp, gt] = [gScoreOf(p, column), gScoreOf(t, column)];
  if (gp === null || gt === null) return { pseudo: gp, truth: gt, difference: null, objects };
  // Per item, hits and objects per column on each side, so a resample only adds small arrays.
  const columns = [...new Set([...p, ...t].map((o) => `${o.split}/${o.role}`))];
  const nc = columns.length;
  const items = new Map<string, Float64Array>(); // [pseudo hits, pseudo n, truth hits, truth n] per column
  for (const [list, side] of [[p, 0], [t, 2]] as const) {
    for (const o of list) {
      const row = items.get(o.item) ?? items.set(o.item, new Float64Array(4 * nc)).get(o.item)!;
      const c = columns.indexOf(`${o.split}/${o.role}`);
      row[4 * c + side] += o.hit ? 1 : 0;
      row[4 * c + side + 1]++;
    }
  }
  const rows = [...items.values()];
  const rand = seededRandom(seed);
  const sums = new Float64Array(4 * nc);
  const stats: number[] = [];
  for (let b = 0; b < resamples; b++) {
    sums.fill(0);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[Math.floor(rand() * rows.length)];
      for (let k = 0; k < sums.length; k++) sums[k] += r[k];
    }
    let [ps, pn, ts, tn] = [0, 0, 0, 0];
    for (let c = 0; c < nc; c++) {
      if (sums[4 * c + 1] > 0) [ps, pn] = [ps + sums[4 * c] / sums[4 * c + 1], pn + 1];
      if (sums[4 * c + 3] > 0) [ts, tn] = [ts + sums[4 * c + 2] / sums[4 * c + 3], tn + 1];
    }
    if (pn > 0 && tn > 0) stats.push(ps / pn - ts / tn);
  }
  stats.sort((a, b) => a - b);
  const difference = stats.length
    ? { estimate: gp - gt, low: quantileSorted(stats, 0.025), high: quantileSorted(stats, 0.975), level: 0.95, resamples, seed, n: rows.length }
    : null;
  return { pseudo: gp, truth: gt, difference, objects };
}

function xColumn(x: MetricSpec): string {
  if (x.kind !== 'grounding') throw new RangeError(`the label-noise regressor must be a G-Score (grounding:avg or grounding:<split>/<role>), got "${x.kind}"`);
  return x.split;
}

/** DAP both ways: each results set's `dap` variant (or its own DAP result at the root). */
function dapRow(model: string, pseudo: ModelResults, truth: ModelResults): DapNoiseRow | null {
  const dapOf = (r: ModelResults) => r.reasoning.find((v) => v.items && (v.variant === 'dap' || (v.variant === '' && v.summary?.task === 'dap')))?.items ?? null;
  const [dp, dt] = [dapOf(pseudo), dapOf(truth)];
  if (!dp || !dt || dp.length === 0 || dt.length === 0) return null;
  const share = (l: { circular: boolean }[]) => l.filter((i) => i.circular).length / l.length;
  const truthBy = new Map(dt.map((i) => [`${i.split}\u0000${i.item}`, i]));
  const pairs = dp.flatMap((i) => {
    const t = truthBy.get(`${i.split}\u0000${i.item}`);
    return t ? [[i.circular, t.circular] as const] : [];
  });
  const paired = pairs.length
    ? { n: pairs.length, pseudo: pairs.filter(([a]) => a).length / pairs.length, truth: pairs.filter(([, b]) => b).length / pairs.length, mcnemar: mcnemarPaired(pairs.map(([a]) => a), pairs.map(([, b]) => b)) }
    : null;
  return { model, pseudo: { n: dp.length, circular: share(dp) }, truth: { n: dt.length, circular: share(dt) }, paired };
}

/**
 * The error budget of `pseudo` (each model's results scored against the pseudo-labels) against
 * `truth` (the same models scored against the exact truth), paired by model name.
 */
export function labelNoise(pseudo: ModelResults[], truth: ModelResults[], o: LabelNoiseOptions): Omit<LabelNoiseReport, 'annotator' | 'sweep'> {
  const ySpec = parseMetric(o.y);
  const column = xColumn(parseMetric(o.x));
  const resamples = o.resamples ?? 2000;
  const seed = o.seed ?? 0;
  const alpha = o.alpha ?? 0.05;
  const truthBy = new Map(truth.map((r) => [r.model, r]));
  const models: LabelNoiseModel[] = [];
  const dap: DapNoiseRow[] = [];
  const skipped: LabelNoiseReport['skipped'] = [];
  const rows: Array<{ model: string; y: number; xp: number; xt: number }> = [];
  for (const p of pseudo) {
    const t = truthBy.get(p.model);
    if (!t) {
      skipped.push({ model: p.model, reason: 'no results against the truth' });
      continue;
    }
    const d = dapRow(p.model, p, t);
    if (d) dap.push(d);
    if (!p.groundingOutcomes || !t.groundingOutcomes) {
      if (!d) skipped.push({ model: p.model, reason: 'no grounding items on both sides' });
      continue;
    }
    const columns = [...new Set([...p.groundingOutcomes, ...t.groundingOutcomes].map((g) => `${g.split}/${g.role}`))].sort();
    const g_score: Record<string, GScorePair> = {};
    for (const c of [...columns, 'avg']) g_score[c] = gScorePair(p.groundingOutcomes, t.groundingOutcomes, c, resamples, seed);
    const y = metricValue(p, ySpec);
    models.push({ model: p.model, g_score, y });
    const pair = g_score[column];
    if (y !== null && pair?.pseudo != null && pair.truth != null) rows.push({ model: p.model, y, xp: pair.pseudo, xt: pair.truth });
  }
  const fp = fitSlope(rows.map((r) => r.y), rows.map((r) => r.xp));
  const ft = fitSlope(rows.map((r) => r.y), rows.map((r) => r.xt));
  return {
    y: o.y,
    x: o.x,
    models,
    regression: { models: rows.map((r) => r.model), pseudo: fp, truth: ft, same_conclusion: fp && ft ? conclusionHolds(fp, alpha) === conclusionHolds(ft, alpha) : null },
    dap,
    skipped,
  };
}

/** `item/role` -> box; item ids may themselves hold slashes. */
function splitKey(key: string): [string, string] {
  const at = key.lastIndexOf('/');
  return [key.slice(0, at), key.slice(at + 1)];
}

/**
 * One seeded annotator's two candidate boxes per object: the hit (the exact box moved to an IoU in
 * [0.6, 0.95]) and the miss (a box of its size elsewhere, IoU < 0.5), exactly as a simulated
 * answerer's boxes (`simulatedBox`), and the uniform draw deciding between them.
 */
function annotatorDraw(truth: CocoFile, seed: number): Map<string, { u: number; hit: Box; miss: Box }> {
  const size = new Map(truth.images.map((i) => [i.item_id, [i.width, i.height] as const]));
  const out = new Map<string, { u: number; hit: Box; miss: Box }>();
  for (const [key, box] of truthBoxes(truth)) {
    const [item, role] = splitKey(key);
    const [w, h] = size.get(item)!;
    const box4 = box as Xyxy;
    out.set(key, {
      u: keyedUniform(seed, item, role, 'annotator'),
      hit: simulatedBox(box4, true, seed, item, `annotator-${role}`, w, h),
      miss: simulatedBox(box4, false, seed, item, `annotator-${role}`, w, h),
    });
  }
  return out;
}

/**
 * An annotator of a chosen quality: each object's box is, with probability `quality`, a hit, else a
 * miss ({@link annotatorDraw}), each object drawing on its own. The same seed at a higher quality
 * turns misses into hits and never the other way.
 */
export function perturbedLabels(truth: CocoFile, quality: number, seed: number): Map<string, Box> {
  return new Map([...annotatorDraw(truth, seed)].map(([k, d]) => [k, d.u < quality ? d.hit : d.miss]));
}

/** Share of `truth`'s objects whose box in `labels` has IoU >= threshold with it (absent = miss). */
export function annotatorHitRate(labels: Map<string, Box>, truth: Map<string, Box>, threshold = 0.5): { objects: number; hits: number; hit_rate: number | null } {
  let hits = 0;
  for (const [key, box] of truth) {
    const l = labels.get(key);
    if (l && boxIou(l, box) >= threshold) hits++;
  }
  return { objects: truth.size, hits, hit_rate: truth.size ? hits / truth.size : null };
}

export interface SweepModel {
  model: string;
  y: number;
  /** The model's answers for the truth's objects (grounding items scored against the truth). */
  items: readonly GroundingItemRecord[];
}

export interface SweepOptions {
  x: string;
  y: string;
  qualities: number[];
  draws: number;
  seed?: number;
  alpha?: number;
  /** IoU for a model's hit (default 0.5). */
  threshold?: number;
  survivalShare?: number;
}

/**
 * Re-scores every model's boxes against annotators of each quality (`draws` seeded annotators per
 * quality, and the exact truth once) and fits the regression each time.
 */
export function annotatorSweep(truth: CocoFile, models: readonly SweepModel[], o: SweepOptions): SweepReport {
  const column = xColumn(parseMetric(o.x));
  const alpha = o.alpha ?? 0.05;
  const threshold = o.threshold ?? 0.5;
  const survival = o.survivalShare ?? 0.95;
  const exact = truthBoxes(truth);
  const keys = [...exact.keys()];
  const keyIndex = new Map(keys.map((k, i) => [k, i]));
  // Per model: each answered object's label index, G-Score column and box (typed arrays: the sweep
  // re-scores every model thousands of times).
  const columns = new Map<string, number>();
  const parsed = models.map((m) => {
    const items = m.items.filter((r) => keyIndex.has(`${r.item}/${r.role}`));
    const col = Int32Array.from(items, (r) => {
      const c = `${r.split}/${r.role}`;
      return columns.get(c) ?? columns.set(c, columns.size).get(c)!;
    });
    return { y: m.y, label: Int32Array.from(items, (r) => keyIndex.get(`${r.item}/${r.role}`)!), col, boxes: items.map((r) => validBox(r.box)) };
  });
  const target = column === 'avg' ? -1 : (columns.get(column) ?? -2);
  const hits = new Float64Array(columns.size);
  const counts = new Float64Array(columns.size);
  /** The model's G-Score for the regression when its object i is a hit exactly when hit(i). */
  const gOf = (m: (typeof parsed)[number], hit: (i: number) => boolean): number | null => {
    hits.fill(0);
    counts.fill(0);
    for (let i = 0; i < m.col.length; i++) {
      counts[m.col[i]]++;
      if (hit(i)) hits[m.col[i]]++;
    }
    if (target >= 0) return counts[target] > 0 ? hits[target] / counts[target] : null;
    if (target === -2) return null;
    let sum = 0;
    let n = 0;
    for (let c = 0; c < counts.length; c++) if (counts[c] > 0) [sum, n] = [sum + hits[c] / counts[c], n + 1];
    return n > 0 ? sum / n : null;
  };
  const hitOf = (box: Box | null, label: Box) => box !== null && boxIou(box, label) >= threshold;
  const fitOf = (xs: Array<number | null>) => {
    const keep = xs.map((x, i) => (x === null ? -1 : i)).filter((i) => i >= 0);
    return fitSlope(keep.map((i) => parsed[i].y), keep.map((i) => xs[i]!));
  };
  const quantiles = (v: number[], at: number) => (v.length ? quantileSorted(v, at) : NaN);
  const row = (quality: number | null, fits: Array<SlopeFit | null>, rates: number[]): SweepRow => {
    const slopes = fits.map((f) => (f ? f.slope : NaN)).filter(Number.isFinite).sort((a, b) => a - b);
    const ps = fits.map((f) => (f ? f.p : 1)).sort((a, b) => a - b);
    return {
      quality,
      draws: fits.length,
      hit_rate: { mean: rates.reduce((s, v) => s + v, 0) / rates.length, min: Math.min(...rates), max: Math.max(...rates) },
      slope: { median: quantiles(slopes, 0.5), low: quantiles(slopes, 0.025), high: quantiles(slopes, 0.975) },
      p_median: quantiles(ps, 0.5),
      conclusion: fits.filter((f) => conclusionHolds(f, alpha)).length / fits.length,
    };
  };
  const exactBoxes = keys.map((k) => exact.get(k)!);
  const rows: SweepRow[] = [row(null, [fitOf(parsed.map((m) => gOf(m, (i) => hitOf(m.boxes[i], exactBoxes[m.label[i]]))))], [1])];
  const qualities = [...o.qualities].sort((a, b) => b - a);
  const fits = qualities.map(() => [] as Array<SlopeFit | null>);
  const rates = qualities.map(() => [] as number[]);
  for (let d = 0; d < o.draws; d++) {
    // Each model's hit against both candidate boxes is worked out once per draw, then chosen per quality.
    const draw = annotatorDraw(truth, (o.seed ?? 0) + d);
    const cand = keys.map((k, i) => {
      const c = draw.get(k)!;
      return { u: c.u, hit: c.hit, miss: c.miss, hitRight: boxIou(c.hit, exactBoxes[i]) >= 0.5, missRight: boxIou(c.miss, exactBoxes[i]) >= 0.5 };
    });
    const onHit = parsed.map((m) => Uint8Array.from(m.boxes, (b, i) => (hitOf(b, cand[m.label[i]].hit) ? 1 : 0)));
    const onMiss = parsed.map((m) => Uint8Array.from(m.boxes, (b, i) => (hitOf(b, cand[m.label[i]].miss) ? 1 : 0)));
    qualities.forEach((q, qi) => {
      fits[qi].push(fitOf(parsed.map((m, k) => gOf(m, (i) => (cand[m.label[i]].u < q ? onHit[k][i] : onMiss[k][i]) === 1))));
      rates[qi].push(cand.length ? cand.filter((c) => (c.u < q ? c.hitRight : c.missRight)).length / cand.length : 0);
    });
  }
  qualities.forEach((q, qi) => rows.push(row(q, fits[qi], rates[qi])));
  let survivesDownTo: number | null = null;
  for (const r of rows.slice(1)) {
    if (r.conclusion < survival) break;
    survivesDownTo = r.quality;
  }
  return { y: o.y, x: o.x, alpha, survival_share: survival, rows, survives_down_to: survivesDownTo };
}

function validBox(b: unknown): Box | null {
  return Array.isArray(b) && b.length === 4 && b.every((v) => typeof v === 'number' && Number.isFinite(v)) ? (b as Box) : null;
}
