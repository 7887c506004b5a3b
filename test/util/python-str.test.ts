/**
 * src/util/python-str.ts against Python itself: test/fixtures/vsp/python-text.json was written by
 * test/fixtures/vsp/make_python_text_reference.py (CPython 3.11.7, Unicode 14.0) from crafted strings
 * and from every code point.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PY_INT_MAX_STR_DIGITS, PY_SPACE_CLASS, PY_WHITESPACE, PyError, pyAt, pyFind, pyInt, pyIsSpace, pyLen, pyLstrip, pyRstrip, pySlice, pyStrip, pyTextModeRoundTrip,
} from '../../src/util/python-str.js';

interface Ref {
  python: string;
  unicode: string;
  int_max_str_digits: number;
  strip_space: number[];
  re_space: number[];
  int_space: number[];
  decimal_zeros: number[];
  decimal_count: number;
  strip: Array<{ s: string; strip: string; lstrip: string; rstrip: string }>;
  int: Array<{ s: string; int: string | null }>;
  read: Array<{ s: string; read: string }>;
  find: Array<{ s: string; sub: string; find: number; len: number }>;
  slice: Array<{ s: string; start: number; end: number | null; slice: string }>;
  case: Array<{ s: string; lower: string; upper: string }>;
}
const ref = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/vsp/python-text.json'), 'utf8')) as Ref;
const codePoints = (pred: (ch: string) => boolean, end = 0x110000) => {
  const out: number[] = [];
  for (let c = 0; c < end; c++) if (pred(String.fromCodePoint(c))) out.push(c);
  return out;
};
const intOrNull = (s: string) => {
  try {
    return pyInt(s).toString();
  } catch (e) {
    if (e instanceof PyError) return null;
    throw e;
  }
};

describe('Python str semantics (src/util/python-str.ts) against CPython', () => {
  it('whitespace: str.strip() and re \\s have the same 29 code points, and ours are those', () => {
    expect(ref.re_space).toEqual(ref.strip_space);
    expect([...PY_WHITESPACE].map((c) => c.codePointAt(0))).toEqual(ref.strip_space);
    expect(codePoints(pyIsSpace)).toEqual(ref.strip_space);
    const re = new RegExp(`^${PY_SPACE_CLASS}$`, 'u');
    expect(codePoints((c) => re.test(c))).toEqual(ref.re_space);
    // JavaScript's own set differs: U+FEFF in, U+001C-U+001F and U+0085 out.
    const js = codePoints((c) => /^\s$/u.test(c));
    expect(js.filter((c) => !ref.strip_space.includes(c))).toEqual([0xfeff]);
    expect(ref.strip_space.filter((c) => !js.includes(c))).toEqual([0x1c, 0x1d, 0x1e, 0x1f, 0x85]);
  });

  it('strip, lstrip and rstrip on crafted strings', () => {
    for (const r of ref.strip) {
      expect([pyStrip(r.s), pyLstrip(r.s), pyRstrip(r.s)], JSON.stringify(r.s)).toEqual([r.strip, r.lstrip, r.rstrip]);
    }
  });

  it('int(): crafted strings, including signs, underscores, Unicode digits, whitespace and the 4300-digit limit', () => {
    expect(ref.int_max_str_digits).toBe(PY_INT_MAX_STR_DIGITS);
    for (const r of ref.int) expect(intOrNull(r.s), JSON.stringify(r.s.slice(0, 30))).toBe(r.int);
  });

  it('int(): the whitespace it skips is Python\'s less U+001C-U+001F', () => {
    expect(ref.int_space).toEqual(ref.strip_space.filter((c) => c < 0x1c || c > 0x1f));
    // Python's whitespace is all in the BMP (the fixture scanned every code point); scanning the BMP keeps this fast.
    expect(Math.max(...ref.int_space)).toBeLessThan(0x10000);
    expect(codePoints((c) => !/^\p{Nd}$/u.test(c) && intOrNull(`${c}7${c}`) === '7', 0x10000)).toEqual(ref.int_space);
  });

  it('int(): every decimal digit of Python\'s Unicode database, with its value', () => {
    for (const z of ref.decimal_zeros) {
      for (let k = 0; k < 10; k++) expect(intOrNull(String.fromCodePoint(z + k)), `U+${(z + k).toString(16)}`).toBe(String(k));
    }
    expect(ref.decimal_zeros.length * 10).toBe(ref.decimal_count);
    // Node's Unicode is newer than Python 3.11's: the digits it adds are the only ones we accept beyond Python's.
    const ours = codePoints((c) => /^\p{Nd}$/u.test(c));
    const pythons = new Set(ref.decimal_zeros.flatMap((z) => Array.from({ length: 10 }, (_, k) => z + k)));
    expect(ours.filter((c) => !pythons.has(c)).every((c) => c > 0x10000)).toBe(true);
    expect([...pythons].every((c) => ours.includes(c))).toBe(true);
  });

  it('text-mode round trip: "\\r\\n" and a lone "\\r" become "\\n"; U+0085, U+2028, \\v, \\f stay', () => {
    for (const r of ref.read) expect(pyTextModeRoundTrip(r.s), JSON.stringify(r.s)).toBe(r.read);
  });

  it('find and len count code points', () => {
    for (const r of ref.find) {
      expect(pyFind(r.s, r.sub), JSON.stringify(r)).toBe(r.find);
      expect(pyLen(r.s)).toBe(r.len);
    }
    // A match must not split a surrogate pair.
    expect(pyFind('\ud83d\ude00', '\ude00')).toBe(-1);
  });

  it('slices count code points, with Python\'s rules for negative and out-of-range bounds', () => {
    for (const r of ref.slice) expect(pySlice(r.s, r.start, r.end ?? undefined), JSON.stringify(r)).toBe(r.slice);
    expect(pyAt('\u{1F600}x', 0)).toBe('\u{1F600}');
    expect(() => pyAt('', 0)).toThrow(PyError);
  });

  it('lower() and upper() agree with JavaScript\'s toLowerCase() and toUpperCase() on the crafted strings', () => {
    for (const r of ref.case) expect([r.s.toLowerCase(), r.s.toUpperCase()], JSON.stringify(r.s)).toEqual([r.lower, r.upper]);
  });
});
