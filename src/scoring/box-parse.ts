/**
 * parseBox: one MLLM answer -> one xyxy box in original-image pixels, under one declared format
 * (or one `auto` guess made by the written rules in AUTO_RULES). Pure; never throws on text.
 */
import { isFiniteBox, type Box } from '../geometry/boxes.js';
import { BOX_FORMATS, BOX_READERS, type BoxFormat, type ReadContext } from './box-formats.js';

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

/**
 * `auto` rules, tried in order; the first whose pattern occurs decides the format. Markers unique to
 * one family come first; `bbox_2d` is shared by Qwen2.5-VL (pixels) and Qwen3-VL (0-1000) and is
 * refused as ambiguous. Plain `[[a, b, c, d]]` with integers reads as CogVLM; a plain list of four
 * numbers all in 0..1 reads as LLaVA.
 */
export const AUTO_RULES: ReadonlyArray<{ format: BoxFormat | 'ambiguous'; pattern: RegExp; rule: string }> = [
  { format: 'florence2', pattern: /<loc_\d{1,4}>/, rule: '<loc_N> tokens' },
  { format: 'paligemma', pattern: /<loc\d{4}>/, rule: '<locNNNN> tokens' },
  { format: 'kosmos2', pattern: /<patch_index_\d{1,4}>/, rule: '<patch_index_N> tokens' },
  { format: 'qwen2-vl', pattern: /<\|box_start\|>/, rule: '<|box_start|> marker' },
  { format: 'deepseek-vl2', pattern: /<\|det\|>/, rule: '<|det|> marker' },
  { format: 'qwen-vl', pattern: /<box>\s{0,8}\(/, rule: '<box>( marker' },
  { format: 'internvl', pattern: /<box>\s{0,8}\[/, rule: '<box>[ marker' },
  { format: 'ambiguous', pattern: /bbox_2d/, rule: 'bbox_2d key (Qwen2.5-VL pixels or Qwen3-VL 0-1000)' },
  { format: 'gemini', pattern: /box_2d/, rule: 'box_2d key' },
  { format: 'cogvlm', pattern: /\[\[\s{0,8}\d{1,4}\s{0,8},\s{0,8}\d{1,4}\s{0,8},\s{0,8}\d{1,4}\s{0,8},\s{0,8}\d{1,4}\s{0,8}\]\]/, rule: '[[int, int, int, int]]' },
  {
    format: 'llava',
    pattern: /[\[(]\s{0,8}[01]?\.\d{1,12}\s{0,8},\s{0,8}[01]?(?:\.\d{1,12})?\s{0,8},\s{0,8}[01]?(?:\.\d{1,12})?\s{0,8},\s{0,8}[01]?(?:\.\d{1,12})?\s{0,8}[\])]/,
    rule: '[a, b, c, d] with values in 0..1',
  },
];

/** The format `auto` picks for `text`, or null when no rule applies. */
export function guessBoxFormat(text: string): { format: BoxFormat | 'ambiguous'; rule: string } | null {
  for (const r of AUTO_RULES) if (r.pattern.test(text)) return { format: r.format, rule: r.rule };
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
