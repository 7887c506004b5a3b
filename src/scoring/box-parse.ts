/**
 * parseBox: one MLLM answer -> one xyxy box in original-image pixels, under one declared format
 * (or one `auto` guess made by the written rules in AUTO_RULES). Pure; never throws on text.
 */
import { isFiniteBox, type Box } from '../geometry/boxes.js';
import { BOX_FORMATS, BOX_READERS, type BoxFormat, type ReadContext } from './box-formats.js';
import { firstFour } from './box-text.js';

export type BoxFormatOption = BoxFormat | 'auto';

export interface ParseBoxOptions extends ReadContext {
  format: BoxFormatOption;
}

/** Why no box came out. */
export type BoxFailure = 'empty' | 'no-box' | 'non-finite' | 'ambiguous' | 'needs-input-size' | 'bad-image-size' | 'unknown-format';

export type ParseBoxResult =
  | {
      ok: true;
      /** x1, y1, x2, y2 in original-image pixels, corners ordered, clipped to the image. */
      box: Box;
      format: BoxFormat;
      /** True when `auto` chose the format. */
      guessed: boolean;
      /** What was repaired: `swapped` corners, `clipped` values. */
      fixes: Array<'swapped' | 'clipped'>;
    }
  | { ok: false; reason: BoxFailure; detail: string; format: BoxFormatOption };

const has = (re: RegExp) => (text: string) => re.test(text);
/** The answer's first bracketed list of four numbers passes `pick`. */
const plainList = (pick: (v: number[]) => boolean) => (text: string) => {
  const v = firstFour(text);
  return v !== null && v.every(Number.isFinite) && pick(v);
};

/**
 * `auto` rules (docs/scoring.md, "Box formats"), tried in order; the first that matches decides the
 * format. `auto` is used only when neither a declaration nor the model id names the family
 * (model-formats.ts). Markers unique to one family come first; `bbox_2d` is shared by Qwen2.5-VL
 * (resized-input pixels) and Qwen3-VL (0-1000), so without the family it is refused as ambiguous.
 * Plain lists follow the two conventions of models without a grid of their own: every value in 0..1
 * reads as fractions of the image, any value above 1 as original-image pixels. A 0-1000 grid needs
 * its family's marker (`[[..]]`, `<box>`, ...) or a declaration. One reading per answer, never the best of several.
 */
export const AUTO_RULES: ReadonlyArray<{ format: BoxFormat | 'ambiguous'; match: (text: string) => boolean; rule: string }> = [
  { format: 'florence2', match: has(/<loc_\d{1,4}>/), rule: '<loc_N> tokens' },
  { format: 'paligemma', match: has(/<loc\d{4}>/), rule: '<locNNNN> tokens' },
  { format: 'kosmos2', match: has(/<patch_index_\d{1,4}>/), rule: '<patch_index_N> tokens' },
  { format: 'qwen2-vl', match: has(/<\|box_start\|>/), rule: '<|box_start|> marker' },
  { format: 'deepseek-vl2', match: has(/<\|det\|>/), rule: '<|det|> marker' },
  { format: 'qwen-vl', match: has(/<box>\s{0,8}\(/), rule: '<box>( marker' },
  { format: 'internvl', match: has(/<box>\s{0,8}\[/), rule: '<box>[ marker' },
  { format: 'ambiguous', match: has(/bbox_2d/), rule: 'bbox_2d key (Qwen2.5-VL pixels or Qwen3-VL 0-1000): declare box_format or name the model by its id' },
  { format: 'gemini', match: has(/box_2d/), rule: 'box_2d key' },
  { format: 'cogvlm', match: has(/\[\[\s{0,8}\d{1,4}\s{0,8},\s{0,8}\d{1,4}\s{0,8},\s{0,8}\d{1,4}\s{0,8},\s{0,8}\d{1,4}\s{0,8}\]\]/), rule: '[[int, int, int, int]]' },
  { format: 'llava', match: plainList((v) => v.every((x) => x >= 0 && x <= 1)), rule: '[a, b, c, d] with every value in 0..1: fractions of the image' },
  { format: 'pixels', match: plainList((v) => v.some((x) => x > 1)), rule: '[x1, y1, x2, y2] with a value above 1: original-image pixels' },
];

/** The format `auto` picks for `text`, or null when no rule applies. */
export function guessBoxFormat(text: string): { format: BoxFormat | 'ambiguous'; rule: string } | null {
  for (const r of AUTO_RULES) if (r.match(text)) return { format: r.format, rule: r.rule };
  return null;
}

const KNOWN_FORMATS = new Set<string>([...BOX_FORMATS, 'auto']);

const fail = (reason: BoxFailure, detail: string, format: BoxFormatOption): ParseBoxResult => ({ ok: false, reason, detail, format });

/** Parses the first box in an MLLM answer. Bad input gives `{ok: false, reason}`, never an exception. */
export function parseBox(text: unknown, options: ParseBoxOptions): ParseBoxResult {
  const { format: declared, width, height } = options;
  if (!KNOWN_FORMATS.has(declared)) {
    return fail('unknown-format', `unknown box format "${String(declared)}"`, declared);
  }
  if (!(Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0)) {
    return fail('bad-image-size', `image size must be positive, got ${width}x${height}`, declared);
  }
  // A test, not trim(): trimming would copy a huge answer.
  if (typeof text !== 'string' || !/\S/.test(text)) return fail('empty', 'empty answer', declared);
  let format: BoxFormat;
  let guessed = false;
  if (declared === 'auto') {
    const guess = guessBoxFormat(text);
    if (!guess) return fail('no-box', 'auto: no rule matched the answer', declared);
    if (guess.format === 'ambiguous') return fail('ambiguous', `auto: ${guess.rule}; declare the format`, declared);
    format = guess.format;
    guessed = true;
  } else {
    format = declared;
  }
  const read = BOX_READERS[format](text, options);
  if ('reason' in read) return fail(read.reason, read.detail, format);
  if (!isFiniteBox(read.box)) return fail('non-finite', `box has non-finite values [${read.box.join(', ')}]`, format);
  // orderCorners then clipBox, computed in place: one box per answer instead of three.
  const fixes: Array<'swapped' | 'clipped'> = [];
  const v = read.box;
  const a = v[0]!, b = v[1]!, c = v[2]!, d = v[3]!;
  const x1 = Math.min(a, c);
  const y1 = Math.min(b, d);
  const x2 = Math.max(a, c);
  const y2 = Math.max(b, d);
  if (x1 !== a || y1 !== b || x2 !== c || y2 !== d) fixes.push('swapped');
  const box: Box = [clamp(x1, width), clamp(y1, height), clamp(x2, width), clamp(y2, height)];
  if (box[0] !== x1 || box[1] !== y1 || box[2] !== x2 || box[3] !== y2) fixes.push('clipped');
  return { ok: true, box, format, guessed, fixes };
}

/** As clipBox (geometry/boxes.ts). */
function clamp(v: number, max: number): number {
  return Math.min(Math.max(v, 0), max);
}
