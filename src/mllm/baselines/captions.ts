/**
 * Reads the spatial relation a caption states, and which named object it puts first. Pure.
 * Covers the What'sUp caption shapes ("A mug to the left of a table", "A person on the left")
 * and the synthetic ones; a caption with no recognised relation phrase parses to null.
 */
import type { Relation } from '../../datasets/manifest.js';

export interface CaptionRelation {
  relation: Relation;
  /** True when the caption names the item's object before its subject ("a table under a mug"). */
  swapped: boolean;
}

// Longest phrases first so "on top of" wins over "on", "to the left of" over "on the left".
const TWO_OBJECT_PHRASES: Array<[RegExp, Relation]> = [
  [/\b(?:to|on) the left (?:side )?of\b/, 'left'],
  [/\bleft of\b/, 'left'],
  [/\b(?:to|on) the right (?:side )?of\b/, 'right'],
  [/\bright of\b/, 'right'],
  [/\bin front of\b/, 'front'],
  [/\b(?:behind|in back of|at the back of)\b/, 'behind'],
  [/\bon top of\b/, 'on'],
  [/\b(?:under|underneath|beneath)\b/, 'under'],
  [/\bbelow\b/, 'below'],
  [/\b(?:above|over)\b/, 'above'],
  [/\bon\b/, 'on'],
];

const ONE_OBJECT_PHRASES: Array<[RegExp, Relation]> = [
  [/\b(?:on|to|at|in) the left\b/, 'left'],
  [/\b(?:on|to|at|in) the right\b/, 'right'],
  [/\b(?:on|at|in) the top\b/, 'top'],
  [/\b(?:on|at|in) the bottom\b/, 'bottom'],
];

function normalise(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * The relation stated by `caption` about `subject` (and `object`, null for one-object items).
 * `swapped` is set when the object's noun comes before the relation phrase and the subject's after it.
 */
export function parseCaptionRelation(caption: string, subject: string, object: string | null): CaptionRelation | null {
  const text = normalise(caption);
  if (object === null) {
    for (const [re, relation] of ONE_OBJECT_PHRASES) if (re.test(text)) return { relation, swapped: false };
    return null;
  }
  for (const [re, relation] of TWO_OBJECT_PHRASES) {
    const m = re.exec(text);
    if (!m) continue;
    const before = text.slice(0, m.index);
    const after = text.slice(m.index + m[0].length);
    const s = normalise(subject);
    const o = normalise(object);
    const swapped = !before.includes(s) && before.includes(o) && after.includes(s);
    return { relation, swapped };
  }
  return null;
}

/** The relation that holds with subject and object exchanged ("A left of B" = "B right of A"). */
export function converseRelation(relation: Relation): Relation {
  const pairs: Partial<Record<Relation, Relation>> = {
    left: 'right', right: 'left', front: 'behind', behind: 'front',
    on: 'under', under: 'on', above: 'below', below: 'above', top: 'bottom', bottom: 'top',
  };
  return pairs[relation] ?? relation;
}
