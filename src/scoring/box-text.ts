/**
 * Low-level readers that find numbers in MLLM box text. Every pattern starts with a literal
 * character and bounds its digit runs, so a 10 MB answer is scanned in linear time.
 */

/** A decimal number: sign, at most 12 integer digits, fraction, exponent (1e400 reads as Infinity). */
export const NUM = String.raw`[-+]?(?:\d{1,12}(?:\.\d{0,12})?|\.\d{1,12})(?:[eE][-+]?\d{1,4})?`;
const SEP = String.raw`\s{0,8},\s{0,8}`;

/** `[a, b, c, d]`, `(a, b, c, d)` or `{a, b, c, d}`: the first list of exactly four numbers. */
const FOUR = new RegExp(String.raw`[\[({]\s{0,8}(${NUM})${SEP}(${NUM})${SEP}(${NUM})${SEP}(${NUM})\s{0,8}[\])}]`);
/** `(x1,y1),(x2,y2)`: two points. */
const TWO_POINTS = new RegExp(String.raw`\(\s{0,8}(${NUM})${SEP}(${NUM})\s{0,8}\)\s{0,8},?\s{0,8}\(\s{0,8}(${NUM})${SEP}(${NUM})\s{0,8}\)`);

function numbers(m: RegExpExecArray | null): number[] | null {
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] : null;
}

/** First bracketed list of four numbers in `text`. */
export function firstFour(text: string): number[] | null {
  return numbers(FOUR.exec(text));
}

/** Four numbers from a point pair or a list, whichever comes first in the text. */
export function firstBoxNumbers(text: string): number[] | null {
  const a = TWO_POINTS.exec(text);
  // A point pair at the very start comes first whatever FOUR finds; skip that scan.
  if (a && a.index === 0) return numbers(a);
  const b = FOUR.exec(text);
  if (a && (!b || a.index <= b.index)) return numbers(a);
  return numbers(b);
}

/** Text between the first `open` and the following `close` marker (or to the end); null if no `open`. */
export function between(text: string, open: string, close: string): string | null {
  const i = text.indexOf(open);
  if (i < 0) return null;
  const j = text.indexOf(close, i + open.length);
  return text.slice(i + open.length, j < 0 ? undefined : j);
}

/** The value list after a JSON-ish key such as `"bbox_2d":` or `box_2d =` (first occurrence). */
export function afterKey(text: string, key: string): number[] | null {
  const re = new RegExp(String.raw`["']?${key}["']?\s{0,8}[:=]\s{0,8}`);
  const m = re.exec(text);
  if (!m) return null;
  // Look only at the value that follows the key, so an earlier unrelated list is not taken.
  return firstFour(text.slice(m.index + m[0].length, m.index + m[0].length + 400).replace(/^[^\[({]*/, ''));
}

/** All `<tag>`-style integer tokens in order, e.g. `<loc_12>` with prefix `<loc_`. */
export function integerTokens(text: string, re: RegExp): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(re)) {
    out.push(Number(m[1]));
    if (out.length >= 4) break;
  }
  return out;
}
