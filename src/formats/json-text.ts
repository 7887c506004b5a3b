/**
 * Reads a JSON value out of model text: the whole text, else a fenced ```json block, else the
 * first balanced {...} or [...] that parses. The fallback for endpoints without structured outputs.
 * The span search looks from every bracket, so text with many brackets that never close (`[[[[...`)
 * would cost time quadratic in its length: it gives up after SPAN_BUDGET characters scanned in all.
 */
export type JsonExtraction = { value: unknown; from: 'whole' | 'fence' | 'span' } | { error: string };

/** Characters the span search may scan in all (scanning and parsing spans), about 10-20 ms. */
export const SPAN_BUDGET = 2_000_000;

/** Index of the bracket closing the one at `start` (strings skipped), or -1; `budget.left` counts the characters scanned. */
function balancedEnd(text: string, start: number, budget: { left: number }): number {
  const open = text[start];
  const close = open === '{' ? '}' : ']';
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    if (--budget.left < 0) return -1;
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return -1;
}

function tryParse(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

export function extractJson(text: string): JsonExtraction {
  const whole = tryParse(text.trim());
  if (whole.ok) return { value: whole.value, from: 'whole' };
  for (const m of text.matchAll(/```(?:json|JSON)?\s*\n?([\s\S]*?)```/g)) {
    const fenced = tryParse(m[1].trim());
    if (fenced.ok) return { value: fenced.value, from: 'fence' };
  }
  const budget = { left: SPAN_BUDGET };
  for (let i = 0; i < text.length && budget.left > 0; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    const end = balancedEnd(text, i, budget);
    if (end < 0) continue;
    budget.left -= end + 1 - i;
    const span = tryParse(text.slice(i, end + 1));
    if (span.ok) return { value: span.value, from: 'span' };
  }
  return { error: budget.left > 0 ? 'no JSON value in the text' : 'no JSON value found before the search gave up (too many brackets)' };
}
