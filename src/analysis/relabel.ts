/**
 * G-Scores re-scored against corrected labels: each model's answers, as its grounding-items.jsonl keeps
 * them, are scored by `scoreGrounding` (the function behind `gsr score grounding`) against the file
 * before review and the file after it, with the options the model was scored with (grounding.json).
 * So the "after" figures are what `gsr score grounding` gives against the reviewed file, for every
 * edit: a moved, added, deleted or relabelled box, or a new mask. Pure.
 */
import type { CocoFile } from '../formats/coco.js';
import type { ResponseRecord } from '../formats/responses.js';
import { xywhToXyxy, type Box } from '../geometry/boxes.js';
import { scoreGrounding, type GroundingItemResult, type GroundingResult, type GroundTruthIndex, type ScoreGroundingOptions } from '../scoring/grounding.js';
import { bootstrapMean, bootstrapMeanOfMeans, type BootstrapInterval } from './bootstrap.js';
import { ols } from './ols.js';
import { groupBy } from './outcomes.js';
import type { GroundingItemRecord } from './results-types.js';

export interface RelabelColumn {
  /** Labelled objects scored against each file. */
  n_before: number;
  n_after: number;
  /** Objects of the column without a label in each file (not scored there). */
  no_label_before: number;
  no_label_after: number;
  before: number | null;
  after: number | null;
  /** after - before over the objects labelled in both, with a paired bootstrap interval. */
  delta: BootstrapInterval | null;
  /** Objects labelled in both files whose hit/miss changed. */
  flipped: number;
  /** Objects labelled only after review (a box drawn where there was none), and only before (a label removed). */
  added: number;
  removed: number;
}

export interface RelabelModel {
  model: string;
  iou_threshold: number;
  box_format: string;
  columns: Record<string, RelabelColumn>;
  /** Avg G-Score against each file, as `gsr score grounding` gives it (null when a declared column has no labelled object). */
  avg_before: number | null;
  avg_after: number | null;
  /** Interval of the after Avg G-Score (resampling objects within columns). */
  avg_after_ci: BootstrapInterval | null;
  /** Objects labelled only after review of which the results folder keeps no record (scored as missing): folders scored before the answers about unlabelled objects were kept. */
  unanswered_after: number;
}

export interface RelabelOptions {
  resamples?: number;
  seed?: number;
}

type Truth = Map<string, Box>;

/** Best-scoring annotation box per `item/role`, as scoring picks it. */
export function truthBoxes(coco: CocoFile): Truth {
  const itemOf = new Map(coco.images.map((i) => [i.id, i.item_id]));
  const best = new Map<string, { score: number; box: Box }>();
  for (const a of coco.annotations) {
    const item = itemOf.get(a.image_id);
    if (item === undefined) continue;
    const key = `${item}/${a.role}`;
    const cur = best.get(key);
    const score = typeof a.score === 'number' ? a.score : 0;
    if (!cur || score > cur.score) best.set(key, { score, box: xywhToXyxy(a.bbox) });
  }
  return new Map([...best].map(([k, v]) => [k, v.box]));
}

/** A finite xyxy box or null. */
function validBox(b: unknown): Box | null {
  return Array.isArray(b) && b.length === 4 && b.every((v) => typeof v === 'number' && Number.isFinite(v)) ? (b as Box) : null;
}

/**
 * The answers a results folder's grounding items keep, as the response records scoring reads: an
 * answer's text when the folder knows how it was read (`fromOutput`), else its parsed box written as
 * original-image pixels (read back by the `pixels` format). Objects never answered give no record.
 */
export function responsesFromItems(model: string, items: readonly GroundingItemRecord[], fromOutput: boolean): ResponseRecord[] {
  const out: ResponseRecord[] = [];
  for (const r of items) {
    const base = { key: r.key ?? `${r.item}/${r.role}`, model, item: r.item, split: r.split, task: 'grounding', role: r.role as ResponseRecord['role'], error: null };
    if (r.status === 'missing') continue;
    if (r.status === 'failed') {
      const reason = (r as { reason?: unknown }).reason;
      out.push({ ...base, output: '', status: 'failed', error: typeof reason === 'string' ? reason : 'failed' });
      continue;
    }
    if (fromOutput) {
      if (typeof r.output === 'string') out.push({ ...base, output: r.output, status: 'ok' });
      continue;
    }
    const box = validBox(r.box);
    // No box: an answer no rule read (a miss either way).
    out.push({ ...base, output: box ? JSON.stringify(box) : '', status: 'ok' });
  }
  return out;
}

const key = (i: { item: string; role?: string }) => `${i.item}/${i.role}`;

/**
 * Scores one model's answers against the labels before and after review with `options` (its grounding.json's),
 * and compares the two per column: labelled objects, accuracies, and the objects that flipped, were added or removed.
 */
export function relabelModel(
  model: string,
  responses: readonly ResponseRecord[],
  before: GroundTruthIndex,
  after: GroundTruthIndex,
  options: ScoreGroundingOptions,
  stat: RelabelOptions = {},
  /** `item/role` of the objects the results folder keeps a record of (default: those answered). */
  kept?: ReadonlySet<string>,
): RelabelModel {
  const b = scoreGrounding(responses, before, { ...options, model });
  const a = scoreGrounding(responses, after, { ...options, model });
  const answered = new Set(responses.map(key));
  const boot = { resamples: stat.resamples ?? 2000, seed: stat.seed ?? 0 };
  const beforeBy = new Map(b.items.map((i) => [key(i), i]));
  const afterBy = new Map(a.items.map((i) => [key(i), i]));
  const labelled = (i: GroundingItemResult | undefined) => i !== undefined && i.status !== 'no_label';
  const afterByColumn = groupBy(a.items, (i) => `${i.split}/${i.role}`);
  const beforeByColumn = groupBy(b.items, (i) => `${i.split}/${i.role}`);
  let unanswered = 0;
  const names = [...Object.keys(a.result.columns), ...Object.keys(b.result.columns).filter((c) => !(c in a.result.columns))];
  const columns: Record<string, RelabelColumn> = {};
  for (const col of names) {
    const [cb, ca] = [b.result.columns[col], a.result.columns[col]];
    const paired: number[] = [];
    let flipped = 0;
    let added = 0;
    for (const i of afterByColumn.get(col) ?? []) {
      if (!labelled(i)) continue;
      const prev = beforeBy.get(key(i));
      if (!labelled(prev)) {
        added++;
        if (!(kept ?? answered).has(key(i))) unanswered++;
        continue;
      }
      paired.push((i.hit ? 1 : 0) - (prev!.hit ? 1 : 0));
      if (i.hit !== prev!.hit) flipped++;
    }
    const removed = (beforeByColumn.get(col) ?? []).filter((i) => labelled(i) && !labelled(afterBy.get(key(i)))).length;
    columns[col] = {
      n_before: cb?.n ?? 0,
      n_after: ca?.n ?? 0,
      no_label_before: cb?.no_label ?? 0,
      no_label_after: ca?.no_label ?? 0,
      before: cb?.accuracy ?? null,
      after: ca?.accuracy ?? null,
      delta: paired.length ? bootstrapMean(paired, boot) : null,
      flipped,
      added,
      removed,
    };
  }
  const afterHits = [...afterByColumn.values()].map((g) => g.filter(labelled).map((i) => (i.hit ? 1 : 0))).filter((g) => g.length > 0);
  return {
    model,
    iou_threshold: a.result.iou_threshold,
    box_format: a.result.box_format,
    columns,
    avg_before: b.result.avg_g_score,
    avg_after: a.result.avg_g_score,
    avg_after_ci: a.result.avg_g_score !== null && afterHits.length ? bootstrapMeanOfMeans(afterHits, boot) : null,
    unanswered_after: unanswered,
  };
}

/** The scoring options a grounding.json records (older files: the defaults, and the format `auto`). */
export function scoringOptionsOf(summary: Partial<Pick<GroundingResult, 'box_format' | 'iou_threshold' | 'input_size' | 'llava_padded'>>): ScoreGroundingOptions {
  return {
    boxFormat: (summary.box_format ?? 'auto') as ScoreGroundingOptions['boxFormat'],
    iou: summary.iou_threshold ?? 0.5,
    inputSize: summary.input_size ?? undefined,
    llavaPadded: summary.llava_padded ?? false,
  };
}

export interface RegressionShift {
  y: string;
  x: string;
  models: string[];
  before: { slope: number; p: number; r2: number } | null;
  after: { slope: number; p: number; r2: number } | null;
  /** Whether the slope's significance at 0.05 is the same before and after. */
  same_conclusion: boolean | null;
}

/** OLS of a reasoning metric on a G-Score before and after review, across models (needs 3 or more). */
export function regressionShift(y: string, x: string, rows: Array<{ model: string; y: number; before: number; after: number }>): RegressionShift {
  const fit = (xs: number[]) => {
    if (rows.length < 3) return null;
    try {
      const r = ols(rows.map((r) => r.y), { [x]: xs });
      const c = r.coefficients.find((k) => k.name === x)!;
      return { slope: c.estimate, p: c.p, r2: r.r2 };
    } catch {
      return null;
    }
  };
  const before = fit(rows.map((r) => r.before));
  const after = fit(rows.map((r) => r.after));
  return {
    y,
    x,
    models: rows.map((r) => r.model),
    before,
    after,
    same_conclusion: before && after ? before.p < 0.05 === after.p < 0.05 && Math.sign(before.slope) === Math.sign(after.slope) : null,
  };
}
