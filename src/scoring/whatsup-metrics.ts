/**
 * What'sUp's own metrics on Controlled A and B (docs/scoring.md, "What'sUp's own metrics"): individual,
 * pair and set accuracy, per-preposition accuracy and preposition confusion counts, by the rules of
 * `Controlled_Images.evaluate_scores` in the What'sUp repository (checked number for number by
 * test/scoring/whatsup-metrics.test.ts). Pure.
 *
 * A pass is one answer per image (one rotation of the prompts file); each pass is scored as the
 * reference scores its one set of predictions. Over several rotations the figures are averaged, and
 * the circular figures count an image right only when every rotation is.
 */
import type { PromptRecord } from '../formats/prompts.js';
import { loaderRelation } from '../datasets/whatsup-records.js';

/** The controlled splits and What'sUp's name for each (its `subset`). */
export const WHATSUP_CONTROLLED: Readonly<Record<string, 'A' | 'B'>> = { 'whatsup-a': 'A', 'whatsup-b': 'B' };

/** The six words whose confusion the reference counts, in its order. */
export const CONFUSION_WORDS = ['on', 'under', 'front', 'behind', 'left', 'right'] as const;
export type ConfusionWord = (typeof CONFUSION_WORDS)[number];
/** One gold preposition's row: counts per chosen preposition, and `none` for answers not read. */
export type ConfusionRow = Record<ConfusionWord | 'none', number>;

// The four relation slots of an object pair, as the reference names them from the file name.
const SLOTS = { A: ['left', 'right', 'on', 'under'], B: ['left', 'right', 'in-front', 'behind'] } as const;

/** One image's answer in one pass. */
export interface ControlledAnswer {
  /** The image's file name, e.g. `mug_left_of_plate.jpeg`: it names the object pair and relation. */
  file: string;
  correct: boolean;
  /** The caption chosen, or null when the answer was missing, failed or not read. */
  chosen: string | null;
  /** The correct caption. */
  gold: string;
}

/** What'sUp's metrics of one pass; accuracies are fractions (null for no images). */
export interface ControlledPass {
  /** Images. */
  n: number;
  individual: number | null;
  /** Both relations of a pair right (left/right; on/under or front/behind), over n / 2. */
  pair: number | null;
  /** All four relations of an object pair right, over n / 4. */
  set: number | null;
  /** Object pairs (subject and object from the file name), and those with all four relations present. */
  groups: number;
  complete_groups: number;
  /** Answers missing, failed or not read (wrong, and `none` in the confusion counts). */
  unparsed: number;
  /** Accuracy per relation as the reference labels images (from the file name). */
  prepositions: Record<string, { n: number; accuracy: number }>;
  /** `confusion[gold][chosen]`: the prepositions of the correct and of the chosen caption. */
  confusion: Record<ConfusionWord, ConfusionRow>;
  /** Answers left out of the confusion counts: a caption naming none or several of the six words. */
  confusion_skipped: number;
}

/** The pair key and relation slot of a file name, split on `_` as the reference does. */
function pairOf(file: string): { key: string; slot: string } {
  const parts = file.split('_');
  const last = parts[parts.length - 1];
  return { key: `${parts[0]}\u0000${last.slice(0, Math.max(0, last.length - 5))}`, slot: parts[1] ?? '' };
}

/** The one confusion word a caption names (its whitespace-separated words), or null for none or several. */
function captionWord(caption: string): ConfusionWord | null {
  const words = new Set(caption.trim().split(/\s+/));
  const found = CONFUSION_WORDS.filter((w) => words.has(w));
  return found.length === 1 ? found[0] : null;
}

function emptyConfusion(): Record<ConfusionWord, ConfusionRow> {
  const row = (): ConfusionRow => ({ on: 0, under: 0, front: 0, behind: 0, left: 0, right: 0, none: 0 });
  return { on: row(), under: row(), front: row(), behind: row(), left: row(), right: row() };
}

/** Scores one pass of answers (in dataset order) of Controlled subset A or B. */
export function controlledPass(subset: 'A' | 'B', answers: readonly ControlledAnswer[]): ControlledPass {
  const split = subset === 'A' ? 'whatsup-a' : 'whatsup-b';
  const n = answers.length;
  // Each object pair starts with its four slots wrong; an image sets its slot (the last image wins).
  const pairs = new Map<string, Map<string, boolean>>();
  for (const a of answers) {
    const { key } = pairOf(a.file);
    if (!pairs.has(key)) pairs.set(key, new Map(SLOTS[subset].map((s) => [s, false])));
  }
  const present = new Map<string, Set<string>>();
  const byRelation = new Map<string, { n: number; right: number }>();
  const confusion = emptyConfusion();
  let right = 0;
  let unparsed = 0;
  let skipped = 0;
  for (const a of answers) {
    const { key, slot } = pairOf(a.file);
    pairs.get(key)!.set(slot, a.correct);
    if (!present.has(key)) present.set(key, new Set());
    present.get(key)!.add(slot);
    if (a.correct) right++;
    const relation = loaderRelation(split, a.file, '');
    const r = byRelation.get(relation) ?? { n: 0, right: 0 };
    r.n++;
    if (a.correct) r.right++;
    byRelation.set(relation, r);
    if (a.chosen === null) unparsed++;
    const gold = captionWord(a.gold);
    const chosen = a.chosen === null ? 'none' : captionWord(a.chosen);
    if (gold === null || chosen === null) skipped++;
    else confusion[gold][chosen]++;
  }
  let pairRight = 0;
  let setRight = 0;
  const [, , third, fourth] = SLOTS[subset];
  for (const slots of pairs.values()) {
    if (slots.get('left') && slots.get('right')) pairRight++;
    if (slots.get(third) && slots.get(fourth)) pairRight++;
    if ([...slots.values()].filter(Boolean).length === 4) setRight++;
  }
  const complete = [...present.values()].filter((s) => SLOTS[subset].every((slot) => s.has(slot))).length;
  const prepositions: ControlledPass['prepositions'] = {};
  for (const rel of [...byRelation.keys()].sort()) {
    const r = byRelation.get(rel)!;
    prepositions[rel] = { n: r.n, accuracy: r.right / r.n };
  }
  return {
    n,
    individual: n > 0 ? right / n : null,
    pair: n > 0 ? pairRight / (n / 2) : null,
    set: n > 0 ? setRight / (n / 4) : null,
    groups: pairs.size,
    complete_groups: complete,
    unparsed,
    prepositions,
    confusion,
    confusion_skipped: skipped,
  };
}

/** One controlled split's metrics in reasoning.json. */
export interface WhatsupSplitMetrics {
  subset: 'A' | 'B';
  /** Images. */
  n: number;
  /** Passes (rotations) scored. */
  passes: number;
  /** Means over the passes. */
  individual: number | null;
  pair: number | null;
  set: number | null;
  /** Mean over the passes of each relation's accuracy. */
  prepositions: Record<string, number>;
  /** Summed over the passes. */
  confusion: Record<ConfusionWord, ConfusionRow>;
  unparsed: number;
  /** An image counts as right only when every rotation is answered right (CircularEval's rule). */
  circular: { individual: number | null; pair: number | null; set: number | null };
  /** Each pass as the reference scores it, by rotation. */
  by_pass: Array<ControlledPass & { rotation: number }>;
}

const meanOf = (vs: Array<number | null>): number | null => {
  const xs = vs.filter((v): v is number => v !== null);
  return xs.length > 0 ? xs.reduce((s, v) => s + v, 0) / xs.length : null;
};

/** The file name of an image path (either separator). */
const fileName = (path: string) => path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

/** Collects scored prompts of the controlled splits (others are ignored) and computes their metrics. */
export class WhatsupTally {
  // split -> rotation -> answers in prompt order; split -> item -> its file and whether every rotation was right.
  private readonly passes = new Map<string, Map<number, ControlledAnswer[]>>();
  private readonly items = new Map<string, Map<string, { file: string; correct: boolean }>>();

  add(prompt: PromptRecord, r: { rotation: number; correct: boolean; chosen: number | null; answer_index: number }): void {
    if (!(prompt.split in WHATSUP_CONTROLLED)) return;
    const file = fileName(prompt.image);
    let bySplit = this.passes.get(prompt.split);
    if (!bySplit) this.passes.set(prompt.split, (bySplit = new Map()));
    let pass = bySplit.get(r.rotation);
    if (!pass) bySplit.set(r.rotation, (pass = []));
    pass.push({ file, correct: r.correct, chosen: r.chosen === null ? null : (prompt.options[r.chosen] ?? null), gold: prompt.options[r.answer_index] ?? '' });
    let items = this.items.get(prompt.split);
    if (!items) this.items.set(prompt.split, (items = new Map()));
    const item = items.get(prompt.item);
    if (item) item.correct &&= r.correct;
    else items.set(prompt.item, { file, correct: r.correct });
  }

  /** Metrics per controlled split seen, or null when there was none. */
  result(): Record<string, WhatsupSplitMetrics> | null {
    if (this.passes.size === 0) return null;
    const out: Record<string, WhatsupSplitMetrics> = {};
    for (const split of Object.keys(WHATSUP_CONTROLLED)) {
      const bySplit = this.passes.get(split);
      if (!bySplit) continue;
      const subset = WHATSUP_CONTROLLED[split];
      const byPass = [...bySplit.keys()].sort((a, b) => a - b).map((rotation) => ({ rotation, ...controlledPass(subset, bySplit.get(rotation)!) }));
      const confusion = emptyConfusion();
      for (const p of byPass) for (const g of CONFUSION_WORDS) for (const [c, v] of Object.entries(p.confusion[g])) confusion[g][c as ConfusionWord | 'none'] += v;
      const relations = [...new Set(byPass.flatMap((p) => Object.keys(p.prepositions)))].sort();
      const circular = controlledPass(subset, [...this.items.get(split)!.values()].map((i) => ({ ...i, chosen: null, gold: '' })));
      out[split] = {
        subset,
        n: this.items.get(split)!.size,
        passes: byPass.length,
        individual: meanOf(byPass.map((p) => p.individual)),
        pair: meanOf(byPass.map((p) => p.pair)),
        set: meanOf(byPass.map((p) => p.set)),
        prepositions: Object.fromEntries(relations.map((rel) => [rel, meanOf(byPass.map((p) => p.prepositions[rel]?.accuracy ?? null))!])),
        confusion,
        unparsed: byPass.reduce((s, p) => s + p.unparsed, 0),
        circular: { individual: circular.individual, pair: circular.pair, set: circular.set },
        by_pass: byPass,
      };
    }
    return out;
  }
}
