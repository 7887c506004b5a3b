/**
 * The script-line grammar of VirtualHome's engine: `[verb] <name> (id) ...`, parsed exactly as the
 * reference parses it (docs/et-plan.md, "Script lines"), including Python's `str.strip`, regular-
 * expression `\w`/`\s`/`.` and `int()` semantics, and the reference's exception messages.
 */

/** Every action name the reference's parser accepts, with its number of parameters. */
export const ACTION_ARITY = {
  CLOSE: 1, DRINK: 1, FIND: 1, WALK: 1, GRAB: 1, LOOKAT: 1, LOOKAT_SHORT: 1, LOOKAT_LONG: 1, OPEN: 1, POINTAT: 1,
  PUTBACK: 2, PUTIN: 2, PUTOBJBACK: 1, RUN: 1, SIT: 1, STANDUP: 0, SWITCHOFF: 1, SWITCHON: 1, TOUCH: 1, TURNTO: 1,
  WATCH: 1, WIPE: 1, PUTON: 1, PUTOFF: 1, GREET: 1, DROP: 1, READ: 1, POUR: 2, LIE: 1, TYPE: 1, PUSH: 1, PULL: 1,
  MOVE: 1, WASH: 1, RINSE: 1, SCRUB: 1, SQUEEZE: 1, PLUGIN: 1, PLUGOUT: 1, CUT: 1, EAT: 1, SLEEP: 0, WAKEUP: 0,
  RELEASE: 1,
} as const;
export type ActionName = keyof typeof ACTION_ARITY;

/** Names that parse as another action (`[lookat_medium]` is `[lookat]`). */
const ALIASES: Readonly<Record<string, ActionName>> = { LOOKAT_MEDIUM: 'LOOKAT' };

/** One `<name> (id)` parameter: the name lower-cased with spaces as `_`, the id as Python's int(). */
export interface ScriptParam {
  readonly name: string;
  /** The id as a number (exact up to 2^53; larger ids never name a node). */
  readonly id: number;
  /** The id in decimal, exactly (also beyond 2^53). */
  readonly idText: string;
}

export interface ScriptLine {
  readonly action: ActionName;
  readonly params: readonly ScriptParam[];
  /** 1-based line number, shown in messages as `[k]`. */
  readonly index: number;
}

export type ParseResult =
  | { ok: true; line: ScriptLine }
  | { ok: false; exception: 'ScriptParseException' | 'ValueError'; message: string };

// Python's whitespace (str.isspace, and `\s` in str patterns).
const SPACE = '\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const STRIP = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'gu');
// `^\[(\w+)\]` with Python's Unicode `\w` (letters, numerics, underscore).
const ACTION_RE = /^\[([\p{L}\p{N}_]+)\]/u;
// `<(.+?)>\s*\((.+?)\)`, where Python's `.` is anything but a newline.
const PARAM_RE = new RegExp(`<([^\\n]+?)>[${SPACE}]*\\(([^\\n]+?)\\)`, 'gu');

/** Python's `str.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(STRIP, '');
}

/** Python's `repr()` of a string. */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp > 0x7f && /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch)) {
      out += cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
    } else out += ch;
  }
  return out + quote;
}

const DECIMAL = /^\p{Nd}$/u;

/** Value of a Unicode decimal digit (Nd digits come in aligned runs of ten). */
function digitValue(ch: string): number {
  let cp = ch.codePointAt(0)!;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  const c0 = cp;
  while (DECIMAL.test(String.fromCodePoint(cp - 1))) cp--;
  return (c0 - cp) % 10;
}

/** Python's limit on the digits int() converts (3.11's default). */
const MAX_STR_DIGITS = 4300;

/**
 * Python's `int(text)` in base 10: surrounding whitespace, one sign, Unicode decimal digits with
 * single underscores between them. Returns the value in decimal, or the ValueError message.
 */
export function pyInt(text: string): { ok: true; value: string } | { ok: false; message: string } {
  const fail = () => {
    const r = pyRepr(text);
    return { ok: false as const, message: `invalid literal for int() with base 10: ${[...r].slice(0, 200).join('')}` };
  };
  const s = [...pyStrip(text)];
  let i = 0;
  let negative = false;
  if (s[0] === '+' || s[0] === '-') {
    negative = s[0] === '-';
    i = 1;
  }
  let digits = '';
  let lastUnderscore = true;
  for (; i < s.length; i++) {
    const ch = s[i];
    if (ch === '_') {
      if (lastUnderscore) return fail();
      lastUnderscore = true;
      continue;
    }
    if (!DECIMAL.test(ch)) return fail();
    digits += String(digitValue(ch));
    lastUnderscore = false;
  }
  if (digits === '' || lastUnderscore) return fail();
  if (digits.length > MAX_STR_DIGITS) {
    return { ok: false, message: `Exceeds the limit (${MAX_STR_DIGITS} digits) for integer string conversion: value has ${digits.length} digits; use sys.set_int_max_str_digits() to increase the limit` };
  }
  const value = BigInt(digits);
  return { ok: true, value: (negative && value !== 0n ? -value : value).toString() };
}

/** Parses one script line as the reference does; `index` is its 1-based line number. */
export function parseScriptLine(text: string, index = 1): ParseResult {
  const line = pyStrip(text);
  const m = ACTION_RE.exec(line);
  if (m === null) return { ok: false, exception: 'ScriptParseException', message: 'Cannot parse action' };
  const word = m[1].toUpperCase();
  const action = ALIASES[word] ?? (Object.hasOwn(ACTION_ARITY, word) ? (word as ActionName) : undefined);
  if (action === undefined) return { ok: false, exception: 'ScriptParseException', message: `Unknown action "${word}"` };
  const params: ScriptParam[] = [];
  const re = new RegExp(PARAM_RE);
  re.lastIndex = 1 + m[1].length;
  for (let p = re.exec(line); p !== null; p = re.exec(line)) {
    const id = pyInt(p[2]);
    if (!id.ok) return { ok: false, exception: 'ValueError', message: id.message };
    params.push({ name: p[1].toLowerCase().replaceAll(' ', '_'), id: Number(id.value), idText: id.value });
    // The next search starts at the `)` that closed this id.
    re.lastIndex = p.index + p[0].length - 1;
  }
  const arity = ACTION_ARITY[action];
  if (params.length !== arity) {
    return { ok: false, exception: 'ScriptParseException', message: `Wrong number of parameters for "${action}". Got ${params.length}, expected ${arity}` };
  }
  return { ok: true, line: { action, params, index } };
}

/** A parameter as messages print it: `<name> (id)`. */
export const paramText = (p: ScriptParam): string => `<${p.name}> (${p.idText})`;

/** The reference's rendering of a parsed line, as messages quote it: `[WALK] <kitchen> (205) [1]`. */
export function lineText(line: ScriptLine): string {
  return [`[${line.action}]`, ...line.params.map(paramText), `[${line.index}]`].join(' ');
}

/** Builds a line from an action and node parameters (for programs made in code). */
export function scriptLine(action: ActionName, params: readonly { name: string; id: number }[], index = 1): ScriptLine {
  return { action, params: params.map((p) => ({ name: p.name, id: p.id, idText: String(p.id) })), index };
}
