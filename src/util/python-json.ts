/**
 * JSON as Python's `json.dumps` writes it. Python writes a float NaN or infinity as the bare tokens
 * `NaN`, `Infinity` and `-Infinity`, which JSON.parse refuses; pandas records and harness logs hold
 * them wherever a value is missing. Here they read as null (a missing value); everything else is
 * strict JSON.
 */

const BARE = /^(?:-?Infinity|NaN)/;

/** Parses Python-written JSON text; NaN and the infinities outside strings become null. */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
  }
  let out = '';
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      continue;
    }
    if (c === 'N' || c === 'I' || c === '-') {
      const m = BARE.exec(text.slice(i, i + 9));
      if (m === null) continue;
      out += `${text.slice(start, i)}null`;
      i += m[0].length - 1;
      start = i + 1;
    }
  }
  return JSON.parse(out + text.slice(start));
}
