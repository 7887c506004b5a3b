/**
 * Parses What'sUp-style captions into subject, object and relation (pure, no I/O).
 *
 * Two-object captions: "<article> <subject> <relation phrase> <article> <object>", e.g.
 * "A beer bottle to the left of an armchair" or "A mug in front of a plate".
 * One-object captions: "<article> <subject> on|at|in the left|right|top|bottom [side] [of the image]",
 * e.g. "A person on the left". Nouns keep their words (multi-word, hyphenated) and are lower-cased.
 */
import type { Relation } from '../formats/manifest.js';

export interface ParsedCaption {
  subject: string;
  /** Null for one-object captions. */
  object: string | null;
  relation: Relation;
}

const ARTICLE = String.raw`(?:(?:a|an|the|some)\s+)?`;

/**
 * The relation phrases of two-object captions, as regular-expression sources over lower-case text
 * with single spaces; longest first, so "on top of" wins over "on" and "in front of" over "in".
 * Both the caption parser and the geometric baseline's caption reader use this one table.
 */
export const RELATION_PHRASES: ReadonlyArray<readonly [string, Relation]> = [
  [String.raw`(?:to|on) the left (?:side )?of`, 'left'],
  [String.raw`left of`, 'left'],
  [String.raw`(?:to|on) the right (?:side )?of`, 'right'],
  [String.raw`right of`, 'right'],
  [String.raw`in[ _-]+front[ _-]+of`, 'front'],
  [String.raw`(?:behind|in back of|at the back of)`, 'behind'],
  [String.raw`on top of`, 'on'],
  [String.raw`(?:underneath|under|beneath)`, 'under'],
  [String.raw`below`, 'below'],
  [String.raw`(?:above|over)`, 'above'],
  [String.raw`on`, 'on'],
];

/** One-object captions: "<noun> on|to|at|in the left|right|top|bottom" (the image side). */
const SIDE_PHRASE = String.raw`(?:on|to|at|in) the (left|right|top|bottom)`;

const ONE_OBJECT = new RegExp(String.raw`^${ARTICLE}(.+?)\s+${SIDE_PHRASE}(?:\s+side)?(?:\s+of\s+the\s+(?:image|picture|photo|photograph))?$`);

const TWO_OBJECT = RELATION_PHRASES.map(
  ([phrase, relation]) => [new RegExp(String.raw`^${ARTICLE}(.+?)\s+${phrase}\s+${ARTICLE}(.+)$`), relation] as const,
);

function normalise(caption: string): string {
  return caption.trim().toLowerCase().replace(/[.!?]+$/, '').replace(/\s+/g, ' ');
}

/**
 * Parses one caption; null when it matches none of the documented shapes. Among two-object
 * readings the one whose relation phrase starts earliest wins (so the subject is the shortest
 * noun phrase), ties going to the longer phrase.
 */
export function parseCaption(caption: string): ParsedCaption | null {
  const text = normalise(caption);
  if (text === '') return null;
  const one = ONE_OBJECT.exec(text);
  if (one) return { subject: one[1], object: null, relation: one[2] as Relation };
  let best: { parsed: ParsedCaption; subjectLength: number } | null = null;
  for (const [re, relation] of TWO_OBJECT) {
    const m = re.exec(text);
    if (!m) continue;
    const subject = m[1];
    if (best === null || subject.length < best.subjectLength) {
      best = { parsed: { subject, object: m[2], relation }, subjectLength: subject.length };
    }
  }
  return best?.parsed ?? null;
}

/** The caption for a relation, in What'sUp's wording ("A mug to the left of a table", "A ball on the top"). */
export function captionFor(subject: string, object: string | null, relation: Relation): string {
  const withArticle = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
  const s = withArticle(subject);
  const head = s.charAt(0).toUpperCase() + s.slice(1);
  if (object === null) return `${head} on the ${relation}`;
  const phrase: Record<Relation, string> = {
    on: 'on',
    under: 'under',
    left: 'to the left of',
    right: 'to the right of',
    front: 'in front of',
    behind: 'behind',
    top: 'on top of',
    bottom: 'below',
    above: 'above',
    below: 'below',
  };
  return `${head} ${phrase[relation]} ${withArticle(object)}`;
}

export interface CaptionRelation {
  relation: Relation;
  /** True when the caption names the item's object before its subject ("a table under a mug"). */
  swapped: boolean;
}

const RELATION_SEARCH = RELATION_PHRASES.map(([phrase, relation]) => [new RegExp(String.raw`\b${phrase}\b`), relation] as const);
const SIDE_SEARCH = new RegExp(String.raw`\b${SIDE_PHRASE}\b`);

/** Lower case, punctuation to spaces, single spaces. */
function words(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9 ]+/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * The relation `caption` states about `subject` (and `object`, null for one-object items), found
 * anywhere in the caption. `swapped` is set when the object's noun comes before the relation
 * phrase and the subject's after it.
 */
export function parseCaptionRelation(caption: string, subject: string, object: string | null): CaptionRelation | null {
  const text = words(caption);
  if (object === null) {
    const side = SIDE_SEARCH.exec(text);
    return side ? { relation: side[1] as Relation, swapped: false } : null;
  }
  for (const [re, relation] of RELATION_SEARCH) {
    const m = re.exec(text);
    if (!m) continue;
    const before = text.slice(0, m.index);
    const after = text.slice(m.index + m[0].length);
    const s = words(subject);
    const o = words(object);
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
