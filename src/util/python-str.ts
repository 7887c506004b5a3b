/**
 * Python 3 `str` semantics, for reproducing scorers written in Python (the VSP official scripts,
 * docs/vsp.md). JavaScript strings differ from Python's in three ways that change results:
 * positions count UTF-16 units rather than code points; the whitespace of trim() and `\s` is not
 * Python's; and Number() is not int(). Everything here works on code points and follows CPython,
 * checked against Python itself by test/util/python-str.test.ts (fixture made by
 * test/fixtures/vsp/make_python_text_reference.py). Pure: no I/O.
 */

/**
 * Python's whitespace: str.isspace(), what str.strip() with no argument removes, and what `\s`
 * matches in a str pattern. Unlike JavaScript's it has U+001C-U+001F and U+0085 and lacks U+FEFF.
 */
export const PY_WHITESPACE = '\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

/** A regular-expression class (source text) matching one Python whitespace character, like `\s` in Python. */
export const PY_SPACE_CLASS = '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';

const SPACE = new Set(PY_WHITESPACE);
/** int() skips Python whitespace around the number except U+001C-U+001F (CPython passes ASCII through as is). */
const INT_SPACE = new Set([...PY_WHITESPACE].filter((c) => c < '\x1c' || c > '\x1f'));

/** CPython's default limit on the digits int() converts (sys.get_int_max_str_digits(), Python 3.11+). */
export const PY_INT_MAX_STR_DIGITS = 4300;

/** What Python would raise here (ValueError, IndexError, KeyError): a script reproduced with these helpers treats it as its own exception. */
export class PyError extends Error {}

const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;
const hasPairs = (s: string) => /[\ud800-\udbff][\udc00-\udfff]/.test(s);

export function pyIsSpace(ch: string): boolean {
  return SPACE.has(ch);
}

function stripEnds(s: string, space: ReadonlySet<string>, left: boolean, right: boolean): string {
  // Whitespace is all in the BMP, so units and code points agree at the ends.
  let a = 0;
  let b = s.length;
  if (left) while (a < b && space.has(s[a])) a++;
  if (right) while (b > a && space.has(s[b - 1])) b--;
  return s.slice(a, b);
}

/** str.strip() with no argument. */
export const pyStrip = (s: string) => stripEnds(s, SPACE, true, true);
/** str.lstrip() with no argument. */
export const pyLstrip = (s: string) => stripEnds(s, SPACE, true, false);
/** str.rstrip() with no argument. */
export const pyRstrip = (s: string) => stripEnds(s, SPACE, false, true);

/** len(s): code points (a surrogate pair is one; a lone surrogate is one, as Python holds it). */
export function pyLen(s: string): number {
  if (!hasPairs(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1))) i++;
    n++;
  }
  return n;
}

/** True when unit offset k falls between the two halves of a surrogate pair. */
const splitsPair = (s: string, k: number) => k > 0 && k < s.length && isHigh(s.charCodeAt(k - 1)) && isLow(s.charCodeAt(k));

/** s.find(sub): the code-point index of the first occurrence, or -1. */
export function pyFind(s: string, sub: string): number {
  for (let from = 0; ;) {
    const i = s.indexOf(sub, from);
    if (i === -1) return -1;
    if (!splitsPair(s, i) && !splitsPair(s, i + sub.length)) return pyLen(s.slice(0, i));
    from = i + 1;
  }
}

/** The unit offset of code point `cp` (0 <= cp <= pyLen(s)). */
function unitOffset(s: string, cp: number): number {
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) i += isHigh(s.charCodeAt(i)) && i + 1 < s.length && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
  return i;
}

/** s[start:end] with Python's rules for missing, negative and out-of-range bounds, by code points. */
export function pySlice(s: string, start?: number, end?: number): string {
  const len = pyLen(s);
  const norm = (k: number | undefined, dflt: number) => (k === undefined ? dflt : k < 0 ? Math.max(0, len + k) : Math.min(k, len));
  const a = norm(start, 0);
  const b = norm(end, len);
  if (b <= a) return '';
  if (len === s.length) return s.slice(a, b);
  return s.slice(unitOffset(s, a), unitOffset(s, b));
}

/** The code point at index k (Python s[k] for 0 <= k < len(s)); throws PyError (IndexError) out of range. */
export function pyAt(s: string, k: number): string {
  const c = pySlice(s, k, k + 1);
  if (c === '') throw new PyError(`string index ${k} out of range`);
  return c;
}

/** Python's open(path, 'r') reading a file written with open(path, 'w'): "\r\n" and a lone "\r" become "\n". */
export function pyTextModeRoundTrip(s: string): string {
  return s.replace(/\r\n?/g, '\n');
}

/** The value 0-9 of a Unicode decimal digit (category Nd), or -1. */
function decimalValue(ch: string): number {
  if (ch >= '0' && ch <= '9') return ch.charCodeAt(0) - 48;
  if (!/^\p{Nd}$/u.test(ch)) return -1;
  // Unicode assigns decimal digits only in runs of ten, 0 to 9, so the value is the position in the run.
  let cp = ch.codePointAt(0)!;
  let k = 0;
  while (/^\p{Nd}$/u.test(String.fromCodePoint(cp - 1))) {
    cp--;
    k++;
  }
  return k % 10;
}

/**
 * int(s) for a str, base 10: optional whitespace (Python's, less U+001C-U+001F), an optional ASCII
 * sign, Unicode decimal digits with single underscores between them, optional whitespace; at most
 * 4300 digits. Anything else throws PyError, as int() raises ValueError.
 */
export function pyInt(s: string): bigint {
  const t = stripEnds(s, INT_SPACE, true, true);
  let i = 0;
  let sign = 1n;
  if (t[0] === '+' || t[0] === '-') {
    if (t[0] === '-') sign = -1n;
    i = 1;
  }
  let digits = '';
  let lastUnderscore = true; // no underscore before the first digit
  for (const ch of t.slice(i)) {
    if (ch === '_' && !lastUnderscore) {
      lastUnderscore = true;
      continue;
    }
    const d = decimalValue(ch);
    if (d < 0) throw new PyError(`invalid literal for int() with base 10: ${JSON.stringify(s.slice(0, 40))}`);
    digits += String(d);
    lastUnderscore = false;
  }
  if (digits === '' || lastUnderscore) throw new PyError(`invalid literal for int() with base 10: ${JSON.stringify(s.slice(0, 40))}`);
  if (digits.length > PY_INT_MAX_STR_DIGITS) throw new PyError(`int(): ${digits.length} digits exceed the limit of ${PY_INT_MAX_STR_DIGITS}`);
  return sign * BigInt(digits);
}
