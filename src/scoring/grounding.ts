/**
 * G-Score (docs/reference.md, "Evaluation semantics"): for every annotated object (split x role), the MLLM's box is parsed and
 * compared with the detector's box; a hit is IoU >= threshold (0.5 by default). Pure.
 *
 * - The objects are those the annotation file declares: one per image item and role that has an
 *   annotation (the highest-scoring one when there are several), is listed in the image's `missing`,
 *   or was asked for about one of the file's images. An object without an annotation has no pseudo-label:
 *   it is not scored, and is counted per column as `no_label` (docs/scoring.md, "Semantics").
 * - No response / a failed one = `missing`; an answer with no readable box = `unparsed`. Both are
 *   misses and count 0 in `mean_iou` (`mean_iou_parsed` averages parsed boxes only).
 * - Avg G-Score = mean accuracy of the declared columns (ten for the six What'sUp splits); null, with
 *   the columns named in `unscored_columns`, when a declared column has no labelled object.
 */
import type { CocoFile, CocoAnnotation, CocoImage } from '../formats/coco.js';
import type { ResponseRecord } from '../formats/responses.js';
import { boxIou, xywhToXyxy, type Box } from '../geometry/boxes.js';
import { GsrError } from '../util/errors.js';
import { BOX_FORMATS } from './box-formats.js';
import { parseBox, type BoxFormatOption } from './box-parse.js';
import { qwenSmartResize, type SmartResizeOptions } from './qwen-resize.js';
import { orderSplits } from '../formats/manifest.js';
import { mean } from '../util/stats.js';

/** Size of the image a model saw, for Qwen2.5-VL pixel boxes: fixed, or Qwen's smart_resize of each image. */
export type InputSizeSpec = { kind: 'fixed'; width: number; height: number } | ({ kind: 'smart-resize' } & SmartResizeOptions);

export interface ScoreGroundingOptions {
  boxFormat: BoxFormatOption;
  /** IoU threshold for a hit (default 0.5). */
  iou?: number;
  /** Qwen2.5-VL input size; default smart-resize with the processor's defaults. */
  inputSize?: InputSizeSpec;
  /** LLaVA-1.5 padded-square correction. */
  llavaPadded?: boolean;
  model?: string;
}

/** `no_label`: the annotation file has no box for the object, so it is not scored (its answer is kept). */
export type GroundingStatus = 'ok' | 'unparsed' | 'missing' | 'failed' | 'no_label';

/** One scored object (a line of grounding-items.jsonl). */
export interface GroundingItemResult {
  key: string | null;
  item: string;
  split: string;
  role: 'subject' | 'object';
  phrase: string;
  image: string;
  output: string | null;
  /** Parsed box, xyxy original-image pixels; null when none. */
  box: Box | null;
  format: string | null;
  guessed: boolean;
  fixes: string[];
  reason: string | null;
  /** Annotation box, xyxy pixels; null for an object without a label. */
  gt: Box | null;
  gt_score: number | null;
  iou: number | null;
  hit: boolean;
  status: GroundingStatus;
}

export interface GroundingColumn {
  /** Objects scored: those with a label. */
  n: number;
  /** Objects of the column without a label (not scored). */
  no_label: number;
  hits: number;
  accuracy: number | null;
  mean_iou: number | null;
  mean_iou_parsed: number | null;
  unparsed: number;
  missing: number;
}

export interface DetectorColumn {
  n: number;
  mean_confidence: number | null;
  /** Share of objects with detector confidence >= 0.5. */
  share_confident: number | null;
}

export interface GroundingResult {
  model: string;
  iou_threshold: number;
  box_format: string;
  /** The reading options the boxes were scored with, so that they can be scored again the same way (gsr analyze relabel). */
  input_size: InputSizeSpec | null;
  llava_padded: boolean;
  columns: Record<string, GroundingColumn>;
  /** Mean of the declared columns' accuracies; null when a column has no labelled object. */
  avg_g_score: number | null;
  /** Declared columns with no labelled object (no accuracy), which leave Avg G-Score undefined. */
  unscored_columns: string[];
  detector: { columns: Record<string, DetectorColumn>; all: DetectorColumn };
  /** Formats `auto` chose, with counts. */
  guessed_formats: Record<string, number>;
  /** Answers about items the annotation file does not hold (not scored). */
  no_annotation: number;
  unparsed_reasons: Record<string, number>;
}

const ROLES = ['subject', 'object'] as const;

function inputSizeFor(spec: InputSizeSpec | undefined, image: CocoImage): { inputWidth?: number; inputHeight?: number } {
  const s = spec ?? { kind: 'smart-resize' };
  if (s.kind === 'fixed') return { inputWidth: s.width, inputHeight: s.height };
  const size = qwenSmartResize(image.width, image.height, s);
  return size ? { inputWidth: size[0], inputHeight: size[1] } : {};
}

/** One slot per role. Objects are looked up by item, then role: no "item\0role" string per lookup. */
interface RoleSlots<T> {
  subject: T | undefined;
  object: T | undefined;
}

/** A declared object: its annotation, or null when the file has no label for it. */
type Truth = { image: CocoImage; role: (typeof ROLES)[number]; phrase: string; ann: CocoAnnotation | null };

/**
 * The ground truth of an annotation file, indexed for scoring: the highest-scoring annotation per
 * item and role. Scoring many models against one file builds it once with {@link indexGroundTruth}
 * and passes it to {@link scoreGrounding}. It holds the records it was given: index again after
 * editing the file's lists.
 */
export class GroundTruthIndex {
  /** Objects in the order each (item, role) first appears: the labelled ones, then those listed as missing. */
  readonly list: Truth[] = [];
  /** Index into `list` per item and role. */
  readonly slots = new Map<string, RoleSlots<number>>();
  /** The file's images by item, for objects asked about that the file neither labels nor lists. */
  readonly images = new Map<string, CocoImage>();

  constructor(coco: CocoFile) {
    if (!coco || !Array.isArray(coco.images) || !Array.isArray(coco.annotations)) {
      throw new GsrError('annotations must be COCO JSON with images[] and annotations[]');
    }
    const images = new Map<number, CocoImage>();
    for (const im of coco.images) images.set(im.id, im);
    const { list, slots } = this;
    for (const ann of coco.annotations) {
      const image = images.get(ann.image_id);
      if (!image) throw new GsrError(`annotation ${ann.id}: image_id ${ann.image_id} is not in images[]`);
      if (!ROLES.includes(ann.role)) throw new GsrError(`annotation ${ann.id}: role must be subject or object, got ${JSON.stringify(ann.role)}`);
      const key = itemKey(image.item_id);
      let slot = slots.get(key);
      if (!slot) slots.set(key, (slot = { subject: undefined, object: undefined }));
      const at = slot[ann.role];
      if (at === undefined) {
        slot[ann.role] = list.length;
        list.push({ image, role: ann.role, phrase: ann.phrase, ann });
      } else if ((ann.score ?? 0) > (list[at].ann!.score ?? 0)) list[at] = { image, role: ann.role, phrase: ann.phrase, ann };
    }
    for (const image of coco.images) {
      const key = itemKey(image.item_id);
      this.images.set(key, image);
      for (const m of image.missing ?? []) {
        if (!ROLES.includes(m.role)) continue;
        let slot = slots.get(key);
        if (!slot) slots.set(key, (slot = { subject: undefined, object: undefined }));
        if (slot[m.role] !== undefined) continue;
        slot[m.role] = list.length;
        list.push({ image, role: m.role, phrase: m.phrase, ann: null });
      }
    }
  }
}

/** Indexes an annotation file once, for scoring several models' grounding responses against it. */
export function indexGroundTruth(coco: CocoFile): GroundTruthIndex {
  return new GroundTruthIndex(coco);
}

/** Item id as a map key, as the template string `${item}` made it. */
function itemKey(item: unknown): string {
  return typeof item === 'string' ? item : String(item);
}


/**
 * Scores every annotated object against the model's parsed box. `coco` is the annotation file, or
 * its {@link GroundTruthIndex} when several models are scored against it.
 */
export function scoreGrounding(
  responses: Iterable<ResponseRecord>,
  coco: CocoFile | GroundTruthIndex,
  options: ScoreGroundingOptions,
): { result: GroundingResult; items: GroundingItemResult[] } {
  const threshold = options.iou ?? 0.5;
  if (!(threshold > 0 && threshold <= 1)) throw new GsrError(`IoU threshold must be in (0, 1], got ${threshold}`);
  if (options.boxFormat !== 'auto' && !(BOX_FORMATS as readonly string[]).includes(options.boxFormat)) {
    throw new GsrError(`unknown box format "${String(options.boxFormat)}" (known: auto, ${BOX_FORMATS.join(', ')})`);
  }
  const truth = coco instanceof GroundTruthIndex ? coco : indexGroundTruth(coco);
  const needsInputSize = options.boxFormat === 'qwen2.5-vl' || options.boxFormat === 'auto';
  // Objects asked about one of the file's images that the file neither labels nor lists: declared by
  // the prompt, without a label. Kept apart, as the index is shared by every model scored against it.
  const asked: Truth[] = [];
  const askedAt = new Map<string, number>();
  // The response per object (the last ok one, else the last one), by index into truth.list, then asked.
  const byObject: Array<ResponseRecord | undefined> = new Array<ResponseRecord | undefined>(truth.list.length).fill(undefined);
  // Distinct item/role pairs answered about items the file does not hold (or a role other than subject/object).
  const noAnnotation = new Set<string>();
  const models = new Set<string>();
  let lastModel: string | undefined;
  for (const r of responses) {
    if (!r.role || (options.model !== undefined && r.model !== options.model)) continue;
    // Responses come in runs of one model; skip the Set while the model repeats.
    if (r.model !== lastModel || models.size === 0) models.add((lastModel = r.model));
    const role = r.role;
    const known = role === 'subject' || role === 'object';
    let at = known ? truth.slots.get(itemKey(r.item))?.[role] : undefined;
    if (at === undefined) {
      const image = known ? truth.images.get(itemKey(r.item)) : undefined;
      if (image === undefined) {
        noAnnotation.add(`${r.item}\u0000${role}`);
        continue;
      }
      const key = `${r.item}\u0000${role}`;
      at = askedAt.get(key);
      if (at === undefined) {
        askedAt.set(key, (at = truth.list.length + asked.length));
        asked.push({ image, role: role as Truth['role'], phrase: '', ann: null });
        byObject.push(undefined);
      }
    }
    const prev = byObject[at];
    if (prev === undefined || r.status === 'ok' || prev.status !== 'ok') byObject[at] = r;
  }
  if (models.size > 1) throw new GsrError(`responses hold several models (${[...models].sort().join(', ')}); choose one with the model option`);
  const items: GroundingItemResult[] = [];
  const guessed: Record<string, number> = {};
  const reasons: Record<string, number> = {};
  for (let i = 0; i < byObject.length; i++) {
    const t = i < truth.list.length ? truth.list[i] : asked[i - truth.list.length];
    const { image } = t;
    const r = byObject[i];
    if (t.ann === null) {
      // Not scored; an ok answer is kept so that scoring against a file that labels it gives the same.
      items.push(noLabelItem(t, r));
      continue;
    }
    const ann = t.ann;
    if (!r || r.status !== 'ok') {
      const status = r ? 'failed' : 'missing';
      reasons[status] = (reasons[status] ?? 0) + 1;
      items.push(itemResult(image, ann, r, null, r?.error ?? status, null, threshold, status));
      continue;
    }
    // Built as one literal (a spread of the input size allocated twice per object).
    const size = needsInputSize ? inputSizeFor(options.inputSize, image) : undefined;
    const parsed = parseBox(r.output, {
      format: options.boxFormat,
      width: image.width,
      height: image.height,
      llavaPadded: options.llavaPadded,
      inputWidth: size?.inputWidth,
      inputHeight: size?.inputHeight,
    });
    if (!parsed.ok) {
      reasons[parsed.reason] = (reasons[parsed.reason] ?? 0) + 1;
      items.push(itemResult(image, ann, r, null, `${parsed.reason}: ${parsed.detail}`, parsed.format, threshold, 'unparsed'));
      continue;
    }
    if (parsed.guessed) guessed[parsed.format] = (guessed[parsed.format] ?? 0) + 1;
    items.push(itemResult(image, ann, r, parsed, null, parsed.format, threshold, 'ok'));
  }
  return { result: summarize(items, options, threshold, [...models][0], guessed, reasons, noAnnotation.size), items };
}

/** The record of an object without a label: its answer when one came, no box, no hit. */
function noLabelItem(t: Truth, r: ResponseRecord | undefined): GroundingItemResult {
  const ok = r?.status === 'ok';
  return {
    key: r?.key ?? null,
    item: t.image.item_id,
    split: t.image.split ?? r?.split ?? 'unknown',
    role: t.role,
    phrase: t.phrase,
    image: t.image.file_name,
    output: ok ? r.output : null,
    box: null,
    format: null,
    guessed: false,
    fixes: [],
    reason: 'no label in the annotation file',
    gt: null,
    gt_score: null,
    iou: null,
    hit: false,
    status: 'no_label',
  };
}

/** One object's record, built as a single literal (object spread is slow on hot paths). */
function itemResult(
  image: CocoImage,
  ann: CocoAnnotation,
  r: ResponseRecord | undefined,
  parsed: { box: Box; guessed: boolean; fixes: string[] } | null,
  reason: string | null,
  format: string | null,
  threshold: number,
  status: GroundingStatus,
): GroundingItemResult {
  const gt = xywhToXyxy(ann.bbox);
  const iou = parsed ? boxIou(parsed.box, gt) : null;
  return {
    key: r?.key ?? null,
    item: image.item_id,
    split: image.split ?? r?.split ?? 'unknown',
    role: ann.role,
    phrase: ann.phrase,
    image: image.file_name,
    output: r?.output ?? null,
    box: parsed?.box ?? null,
    format,
    guessed: parsed?.guessed ?? false,
    fixes: parsed?.fixes ?? [],
    reason,
    gt,
    gt_score: ann.score,
    iou,
    hit: iou !== null && iou >= threshold,
    status,
  };
}

/** Split order of Table 2, subject before object. */
function orderColumns(names: Iterable<string>): string[] {
  const bySplit = new Map<string, string[]>();
  for (const n of names) {
    const cut = n.lastIndexOf('/');
    const split = n.slice(0, cut);
    bySplit.set(split, [...(bySplit.get(split) ?? []), n]);
  }
  return orderSplits(bySplit.keys()).flatMap((s) => ROLES.map((r) => `${s}/${r}`).filter((c) => bySplit.get(s)!.includes(c)));
}

function detectorColumn(items: GroundingItemResult[]): DetectorColumn {
  // One pass over finite scores of labelled objects, summed in order as mean() does.
  let all = 0;
  let n = 0;
  let sum = 0;
  let confident = 0;
  for (const i of items) {
    if (i.status === 'no_label') continue;
    all++;
    const s = i.gt_score;
    if (s === null || !Number.isFinite(s)) continue;
    n++;
    sum += s;
    if (s >= 0.5) confident++;
  }
  return {
    n: all,
    mean_confidence: n > 0 ? sum / n : null,
    share_confident: n ? confident / n : null,
  };
}

function summarize(
  items: GroundingItemResult[],
  options: ScoreGroundingOptions,
  threshold: number,
  model: string | undefined,
  guessed: Record<string, number>,
  reasons: Record<string, number>,
  noAnnotation: number,
): GroundingResult {
  // Grouped by split, then role: no column-name string per item.
  const bySplit = new Map<string, RoleSlots<GroundingItemResult[]>>();
  for (const i of items) {
    let slot = bySplit.get(i.split);
    if (!slot) bySplit.set(i.split, (slot = { subject: undefined, object: undefined }));
    const list = slot[i.role];
    if (list) list.push(i);
    else slot[i.role] = [i];
  }
  const groups = new Map<string, GroundingItemResult[]>();
  for (const [split, slot] of bySplit) {
    for (const role of ROLES) {
      const list = slot[role];
      if (list) groups.set(`${split}/${role}`, list);
    }
  }
  const names = orderColumns(groups.keys());
  const columns: Record<string, GroundingColumn> = {};
  const detector: Record<string, DetectorColumn> = {};
  for (const name of names) {
    const g = groups.get(name)!;
    // One pass; IoUs are summed in item order, as mean() does, so the figures are unchanged.
    let hits = 0;
    let parsed = 0;
    let iouSum = 0;
    let unparsed = 0;
    let missing = 0;
    let noLabel = 0;
    for (const i of g) {
      if (i.hit) hits++;
      if (i.iou !== null) {
        parsed++;
        iouSum += i.iou;
      }
      if (i.status === 'unparsed') unparsed++;
      else if (i.status === 'missing' || i.status === 'failed') missing++;
      else if (i.status === 'no_label') noLabel++;
    }
    const n = g.length - noLabel;
    columns[name] = {
      n,
      no_label: noLabel,
      hits,
      accuracy: n ? hits / n : null,
      mean_iou: n ? iouSum / n : null,
      mean_iou_parsed: parsed > 0 ? iouSum / parsed : null,
      unparsed,
      missing,
    };
    detector[name] = detectorColumn(g);
  }
  const unscored = names.filter((n) => columns[n].accuracy === null);
  return {
    model: options.model ?? model ?? 'unknown',
    iou_threshold: threshold,
    box_format: options.boxFormat,
    input_size: options.inputSize ?? null,
    llava_padded: options.llavaPadded ?? false,
    columns,
    avg_g_score: unscored.length > 0 ? null : mean(names.map((n) => columns[n].accuracy!)),
    unscored_columns: unscored,
    detector: { columns: detector, all: detectorColumn(items) },
    guessed_formats: guessed,
    no_annotation: noAnnotation,
    unparsed_reasons: reasons,
  };
}
