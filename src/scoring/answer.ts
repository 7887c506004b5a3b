/**
 * Answer extraction: which shown option an MLLM answer picks. Deterministic rules only, tried in a
 * fixed order; an answer that no rule reads, that names several options, or that refuses is
 * `unparsed` (scored wrong, counted separately). Nothing fuzzy: no edit distance, no embeddings.
 */
import { optionLetter, optionPosition } from '../formats/prompts.js';

export type Extraction =
  | { status: 'ok'; index: number; rule: string }
  | { status: 'unparsed'; reason: 'empty' | 'refusal' | 'multiple' | 'conflict' | 'no-match'; rule?: string };

/** Only the start of a huge answer is read; answers are a word or a sentence. */
const MAX_CHARS = 20_000;

const REFUSAL = /\b(?:i\s+(?:can ?not|can't|cannot|am unable|'m unable|am not able|'m not able)|unable to (?:determine|tell|answer|see)|(?:impossible|not possible) to (?:determine|tell)|none of the (?:above|options))\b/i;

/** Lower-cased, markdown and punctuation stripped, whitespace collapsed. */
function plain(text: string): string {
  return text
    .toLowerCase()
    .replace(/[*_`#]/g, ' ')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Caption normal form: plain(), relation phrasings unified ("to the left of" -> "left of",
 * "on top of" -> "on"), then articles and the copulas "is"/"are" dropped.
 */
export function normalizeCaption(text: string): string {
  return paddedCaption(text).slice(1, -1);
}

/** normalizeCaption padded with a space on each side, so whole-word containment is a substring test. */
function paddedCaption(text: string): string {
  const cached = paddedCache.get(text);
  if (cached !== undefined) return cached;
  const padded = ` ${normalizeUncached(text)} `;
  // Options repeat across rotations and models; a bounded memo keeps them cheap.
  if (paddedCache.size >= 100_000) paddedCache.clear();
  if (text.length <= 500) paddedCache.set(text, padded);
  return padded;
}

const paddedCache = new Map<string, string>();

function normalizeUncached(text: string): string {
  return ` ${plain(text)} `
    .replace(/ (?:to|on|at) the (left|right)(?: hand)?(?: side)? of /g, ' $1 of ')
    .replace(/ on top of /g, ' on ')
    .replace(/ (?:a|an|the|is|are) /g, ' ')
    .replace(/ (?:a|an|the|is|are) /g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Index of the single option whose normal form satisfies `rule`, 'multiple', or null. */
function uniqueOption(norms: string[], answer: string, rule: TextRule): number | 'multiple' | null {
  let found: number | null = null;
  for (let i = 0; i < norms.length; i++) {
    if (!ruleHolds(rule, norms[i], answer)) continue;
    // Also when two options share one normal form: they cannot be told apart.
    if (found !== null) return 'multiple';
    found = i;
  }
  return found;
}


/** Maps free text to one option by caption text: exact, normalised, contained, containing. */
export function matchOptionText(answer: string, options: readonly string[]): Extraction {
  const trimmed = answer.trim();
  const exact = options.indexOf(trimmed);
  if (exact >= 0 && options.lastIndexOf(trimmed) === exact) return { status: 'ok', index: exact, rule: 'exact' };
  const norms = options.map(paddedCaption);
  const a = paddedCaption(trimmed);
  if (a === '  ') return { status: 'unparsed', reason: 'no-match' };
  for (const rule of TEXT_RULES) {
    const hit = uniqueOption(norms, a, rule);
    if (hit === 'multiple') return { status: 'unparsed', reason: 'multiple', rule };
    if (hit !== null) return { status: 'ok', index: hit, rule };
  }
  return { status: 'unparsed', reason: 'no-match' };
}

/**
 * Text rules after exact match: `normalized` (equal normal forms); `answer-contains-option` (the
 * answer quotes one caption inside a sentence); `option-contains-answer` (the answer is a fragment
 * found in one caption only: "left", "under the table").
 */
const TEXT_RULES = ['normalized', 'answer-contains-option', 'option-contains-answer'] as const;
type TextRule = (typeof TEXT_RULES)[number];

/** `option` and `answer` are space-padded normal forms. */
function ruleHolds(rule: TextRule, option: string, answer: string): boolean {
  if (option === '  ') return false;
  if (rule === 'normalized') return option === answer;
  if (rule === 'answer-contains-option') return answer.includes(option);
  return option.includes(answer);
}

/** TG: the generated caption, matched back to a shown option. */
export function extractTemplateAnswer(output: string, options: readonly string[]): Extraction {
  if (typeof output !== 'string' || output.trim() === '') return { status: 'unparsed', reason: 'empty' };
  const text = output.slice(0, MAX_CHARS).replace(/```\w*/g, ' ');
  const m = matchOptionText(text, options);
  if (m.status === 'unparsed' && m.reason === 'no-match' && REFUSAL.test(text)) return { status: 'unparsed', reason: 'refusal' };
  return m;
}

/**
 * MC: the letter of the chosen option. Rules, in order: the whole answer is a letter ("B", "(b)",
 * "**B.**"); it starts with a letter and a delimiter ("B. the mug..."); a stated answer ("The answer
 * is B", "Answer: (B)", "option B"); the set of delimited capital letters ("(B)", "B)", "B.", "B:")
 * when it has exactly one member; a bare list of letters ("A or B") is `multiple`; bare capital letters
 * ("I'd pick B", not the article in "A mug") when exactly one; else the option text itself (as TG).
 */
export function extractChoiceAnswer(output: string, options: readonly string[]): Extraction {
  if (typeof output !== 'string' || output.trim() === '') return { status: 'unparsed', reason: 'empty' };
  const text = output.slice(0, MAX_CHARS).replace(/```\w*/g, ' ').replace(/[*_`]/g, '').trim();
  const k = options.length;
  const re = choicePatterns(k);
  const whole = re.whole.exec(text);
  if (whole) return { status: 'ok', index: optionPosition(whole[1]), rule: 'letter' };

  const lead = re.lead.exec(text);
  if (lead) {
    const index = optionPosition(lead[1]);
    const rest = lead[2].trim();
    // "B. <caption of another option>" contradicts itself.
    if (rest) {
      const byText = matchOptionText(rest, options);
      if (byText.status === 'ok' && byText.rule !== 'option-contains-answer' && byText.index !== index) {
        return { status: 'unparsed', reason: 'conflict', rule: 'leading-letter' };
      }
    }
    return { status: 'ok', index, rule: 'leading-letter' };
  }

  const stated = re.stated.exec(text);
  if (stated && stated[1] === stated[1].toUpperCase()) return { status: 'ok', index: optionPosition(stated[1]), rule: 'stated-letter' };

  const found = new Set<string>();
  for (const m of text.matchAll(re.delimited)) found.add(m[1] ?? m[2]);
  if (found.size === 1) return { status: 'ok', index: optionPosition([...found][0]), rule: 'delimited-letter' };
  if (found.size > 1) return { status: 'unparsed', reason: 'multiple', rule: 'delimited-letter' };

  if (re.several.test(text)) return { status: 'unparsed', reason: 'multiple', rule: 'letter-list' };

  // Bare capitals ("I'd pick B"), except the article "A word" and the pronoun "I word".
  const bare = new Set<string>();
  for (const m of text.matchAll(re.bare)) {
    const after = text.slice(m.index + 1, m.index + 3);
    if ((m[1] === 'A' || m[1] === 'I') && /^\s[A-Za-z]/.test(after)) continue;
    bare.add(m[1]);
  }
  if (bare.size === 1) return { status: 'ok', index: optionPosition([...bare][0]), rule: 'bare-letter' };
  if (bare.size > 1) return { status: 'unparsed', reason: 'multiple', rule: 'bare-letter' };

  const byText = matchOptionText(text, options);
  if (byText.status === 'ok' || byText.reason === 'multiple') return byText;
  if (REFUSAL.test(text)) return { status: 'unparsed', reason: 'refusal' };
  return { status: 'unparsed', reason: 'no-match' };
}

type ChoicePatterns = Record<'whole' | 'lead' | 'stated' | 'delimited' | 'several' | 'bare', RegExp>;
const patternCache = new Map<number, ChoicePatterns>();

/** The MC patterns for k options (letters A..), compiled once per k. */
function choicePatterns(k: number): ChoicePatterns {
  let p = patternCache.get(k);
  if (p) return p;
  const L = `[${Array.from({ length: Math.min(k, 26) }, (_, i) => optionLetter(i)).join('')}]`;
  p = {
    whole: new RegExp(`^(?:option|answer)?\\s*[(\\[]?(${L})[)\\].:]?$`, 'i'),
    lead: new RegExp(`^[(\\[]?(${L})(?:[)\\]]|[.:](?=\\s|$))\\s*(.*)$`, 's'),
    stated: new RegExp(`\\b(?:answer|option|choice)(?:\\s+(?:is|would be|should be))?\\s*(?:[:=]|is)?\\s*[(\\[]?(${L})(?![A-Za-z])`, 'i'),
    delimited: new RegExp(`(?<![A-Za-z])(?:[(\\[](${L})[)\\]]|(${L})[).:](?=\\s|$))`, 'g'),
    several: new RegExp(`^[(\\[]?${L}[)\\]]?(?:\\s*(?:,|/|&|\\bor\\b|\\band\\b)\\s*[(\\[]?${L}[)\\]]?)+\\.?$`, 'i'),
    bare: new RegExp(`(?<![A-Za-z'’])(${L})(?![A-Za-z'’])`, 'g'),
  };
  patternCache.set(k, p);
  return p;
}

