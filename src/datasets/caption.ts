/**
 * Parses What'sUp-style captions into subject, object and relation (pure, no I/O).
 *
 * Two-object captions: "<article> <subject> <relation phrase> <article> <object>", e.g.
 * "A beer bottle to the left of an armchair" or "A mug in front of a plate".
 * One-object captions: "<article> <subject> on|at|in the left|right|top|bottom [side] [of the image]",
 * e.g. "A person on the left". Nouns keep their words (multi-word, hyphenated) and are lower-cased.
 */
import type { Relation } from './manifest.js';

export interface ParsedCaption {
  subject: string;
  /** Null for one-object captions. */
  object: string | null;
  relation: Relation;
}

const ARTICLE = String.raw`(?:(?:a|an|the|some)\s+)?`;

// Longest phrases first, so "on top of" wins over "on" and "in front of" over "in".
const TWO_OBJECT_RELATIONS: ReadonlyArray<[string, Relation]> = [
  [String.raw`to\s+the\s+left\s+of`, 'left'],
  [String.raw`on\s+the\s+left\s+of`, 'left'],
  [String.raw`left\s+of`, 'left'],
  [String.raw`to\s+the\s+right\s+of`, 'right'],
  [String.raw`on\s+the\s+right\s+of`, 'right'],
  [String.raw`right\s+of`, 'right'],
  [String.raw`in[\s_-]+front[\s_-]+of`, 'front'],
  [String.raw`behind`, 'behind'],
  [String.raw`on\s+top\s+of`, 'on'],
  [String.raw`on`, 'on'],
  [String.raw`underneath`, 'under'],
  [String.raw`under`, 'under'],
  [String.raw`beneath`, 'under'],
  [String.raw`above`, 'above'],
  [String.raw`below`, 'below'],
];

const ONE_OBJECT = new RegExp(
  String.raw`^${ARTICLE}(.+?)\s+(?:on|at|in)\s+the\s+(left|right|top|bottom)(?:\s+side)?(?:\s+of\s+the\s+(?:image|picture|photo|photograph))?$`,
);

const TWO_OBJECT = TWO_OBJECT_RELATIONS.map(
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
