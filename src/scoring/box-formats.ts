/**
 * How each MLLM family writes a box (docs/scoring.md, "Box formats"), as readers from text to an xyxy box in
 * original-image pixels (before corner ordering and clipping, which parseBox applies to all).
 */
import { afterKey, between, firstBoxNumbers, firstFour, integerTokens } from './box-text.js';

/** Declared box formats; `auto` is handled by parseBox. */
export const BOX_FORMATS = [
  'llava',
  'qwen-vl',
  'qwen2-vl',
  'qwen2.5-vl',
  'qwen3-vl',
  'internvl',
  'cogvlm',
  'gemini',
  'florence2',
  'kosmos2',
  'deepseek-vl2',
  'paligemma',
  'pixels',
] as const;
export type BoxFormat = (typeof BOX_FORMATS)[number];

/** What a reader needs to know about the image. */
export interface ReadContext {
  width: number;
  height: number;
  /** Qwen2.5-VL: the size of the resized image the model saw. */
  inputWidth?: number;
  inputHeight?: number;
  /** LLaVA-1.5: coordinates are relative to the image padded to a centred square. */
  llavaPadded?: boolean;
}

/** A reader's outcome: four pixel values (x1, y1, x2, y2) or a failure reason. */
export type ReadResult = { box: number[] } | { reason: 'no-box' | 'needs-input-size'; detail: string };

const noBox = (detail: string): ReadResult => ({ reason: 'no-box', detail });

/** Values on a 0..`scale` grid (x, y, x, y) to pixels. */
function fromGrid(v: number[] | null, scale: number, ctx: ReadContext, what: string): ReadResult {
  if (!v) return noBox(`no ${what} found`);
  return { box: [(v[0] / scale) * ctx.width, (v[1] / scale) * ctx.height, (v[2] / scale) * ctx.width, (v[3] / scale) * ctx.height] };
}

/** Tagged text first (when the tag is there), else the first box-like numbers anywhere. */
function taggedOrPlain(text: string, open: string, close: string): number[] | null {
  const inner = between(text, open, close);
  return (inner !== null ? firstBoxNumbers(inner) : null) ?? firstBoxNumbers(text);
}

function readLlava(text: string, ctx: ReadContext): ReadResult {
  const v = firstFour(text);
  if (!v) return noBox('no [x1, y1, x2, y2] list found');
  if (!ctx.llavaPadded) return fromGrid(v, 1, ctx, 'box');
  // expand2square pads the short side equally on both ends; undo it.
  const side = Math.max(ctx.width, ctx.height);
  const dx = (side - ctx.width) / 2;
  const dy = (side - ctx.height) / 2;
  return { box: [v[0] * side - dx, v[1] * side - dy, v[2] * side - dx, v[3] * side - dy] };
}

function readQwen25(text: string, ctx: ReadContext): ReadResult {
  const v = afterKey(text, 'bbox_2d') ?? afterKey(text, 'bbox') ?? firstFour(text);
  if (!v) return noBox('no bbox_2d list found');
  const { inputWidth: iw, inputHeight: ih } = ctx;
  if (!iw || !ih) return { reason: 'needs-input-size', detail: 'qwen2.5-vl boxes are in resized-input pixels; give the input size' };
  return { box: [(v[0] / iw) * ctx.width, (v[1] / ih) * ctx.height, (v[2] / iw) * ctx.width, (v[3] / ih) * ctx.height] };
}

function readGemini(text: string, ctx: ReadContext): ReadResult {
  const v = afterKey(text, 'box_2d') ?? firstFour(text);
  if (!v) return noBox('no box_2d [ymin, xmin, ymax, xmax] found');
  return fromGrid([v[1], v[0], v[3], v[2]], 1000, ctx, 'box_2d');
}

function readFlorence(text: string, ctx: ReadContext): ReadResult {
  const t = integerTokens(text, /<loc_(\d{1,4})>/g);
  if (t.length < 4) return noBox('fewer than four <loc_N> tokens');
  // Florence-2 quantises to 1000 bins and decodes to bin centres.
  return fromGrid([t[0] + 0.5, t[1] + 0.5, t[2] + 0.5, t[3] + 0.5], 1000, ctx, 'loc tokens');
}

/** Kosmos-2: patch indices on a 32x32 grid, decoded as Hugging Face's processor does. */
function readKosmos(text: string, ctx: ReadContext): ReadResult {
  const t = integerTokens(text, /<patch_index_(\d{1,4})>/g);
  if (t.length < 2) return noBox('fewer than two <patch_index_N> tokens');
  const n = 32;
  const cell = 1 / n;
  const [ul, lr] = t;
  const ux = ul % n;
  const uy = Math.floor(ul / n);
  const lx = lr % n;
  const ly = Math.floor(lr / n);
  // Same cell, row or column: whole cells (a centre-to-centre box would have no area); else cell centres.
  const whole = ul === lr || ux === lx || uy === ly;
  const box = whole
    ? [ux * cell, uy * cell, lx * cell + cell, ly * cell + cell]
    : [ux * cell + cell / 2, uy * cell + cell / 2, lx * cell + cell / 2, ly * cell + cell / 2];
  return fromGrid(box, 1, ctx, 'patch box');
}

function readPaligemma(text: string, ctx: ReadContext): ReadResult {
  const t = integerTokens(text, /<loc(\d{4})>/g);
  if (t.length < 4) return noBox('fewer than four <locNNNN> tokens');
  // y first, 1024 bins.
  return fromGrid([t[1], t[0], t[3], t[2]], 1024, ctx, 'loc tokens');
}

/** Readers by declared format. */
export const BOX_READERS: Record<BoxFormat, (text: string, ctx: ReadContext) => ReadResult> = {
  llava: readLlava,
  'qwen-vl': (t, c) => fromGrid(taggedOrPlain(t, '<box>', '</box>'), 1000, c, '<box>(x1,y1),(x2,y2)</box>'),
  'qwen2-vl': (t, c) => fromGrid(taggedOrPlain(t, '<|box_start|>', '<|box_end|>'), 1000, c, '<|box_start|> box'),
  'qwen2.5-vl': readQwen25,
  'qwen3-vl': (t, c) => fromGrid(afterKey(t, 'bbox_2d') ?? afterKey(t, 'bbox') ?? firstFour(t), 1000, c, 'bbox_2d list'),
  internvl: (t, c) => fromGrid(taggedOrPlain(t, '<box>', '</box>'), 1000, c, '<box>[[x1,y1,x2,y2]]</box>'),
  cogvlm: (t, c) => fromGrid(firstFour(t), 1000, c, '[[x0,y0,x1,y1]]'),
  gemini: readGemini,
  florence2: readFlorence,
  kosmos2: readKosmos,
  // 0-999 grid; DeepSeek-VL2's grounding demo maps it back with / 999.
  'deepseek-vl2': (t, c) => fromGrid(taggedOrPlain(t, '<|det|>', '<|/det|>'), 999, c, '<|det|>[[x1,y1,x2,y2]]'),
  paligemma: readPaligemma,
  // Plain [x1, y1, x2, y2] in original-image pixels: other harnesses' exports and our baselines.
  pixels: (t, c) => fromGrid(firstFour(t), 1, { ...c, width: 1, height: 1 }, '[x1, y1, x2, y2] list'),
};
