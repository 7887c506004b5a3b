/**
 * Reads a JSON value out of model text: the whole text, else a fenced ```json block, else the
 * first balanced {...} or [...] that parses. The fallback for endpoints without structured outputs.
 */
export type JsonExtraction = { value: unknown; from: 'whole' | 'fence' | 'span' } | { error: string };

/** Index of the bracket closing the one at `start` (strings skipped), or -1. */
function balancedEnd(text: string, start: number): number {
  const open = text[start];
  const close = open === '{' ? '}' : ']';
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
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
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    const end = balancedEnd(text, i);
    if (end < 0) continue;
    const span = tryParse(text.slice(i, end + 1));
    if (span.ok) return { value: span.value, from: 'span' };
  }
  return { error: 'no JSON value in the text' };
}
