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

/**
 * What a file name says, split on `_` as the reference does: the object pair and the relation label
 * (numbered per reader), and the relation slot (its index in SLOTS, or -1 with its name for any other
 * second part).
 */
interface FileInfo {
  pair: number;
  slot: number;
  slotName: string;
  relation: number;
}

/** The index in CONFUSION_WORDS of the one word a caption names (its whitespace-separated words); -1 for none or several. */
function captionWord(caption: string): number {
  const words = new Set(caption.trim().split(/\s+/));
  const found = CONFUSION_WORDS.flatMap((w, i) => (words.has(w) ? [i] : []));
  return found.length === 1 ? found[0] : -1;
}

// Confusion counts while counting: row = gold word, column = chosen word, column 6 = not read.
const NONE = CONFUSION_WORDS.length;
const COLUMNS = NONE + 1;

function confusionOf(counts: ArrayLike<number>): Record<ConfusionWord, ConfusionRow> {
  const row = (g: number) => Object.fromEntries([...CONFUSION_WORDS, 'none'].map((w, c) => [w, counts[g * COLUMNS + c]])) as ConfusionRow;
  return Object.fromEntries(CONFUSION_WORDS.map((g, i) => [g, row(i)])) as Record<ConfusionWord, ConfusionRow>;
}

/** Reads the file names and captions of one subset, each once however many passes use them. */
class SubsetReader {
  private readonly files = new Map<string, FileInfo>();
  private readonly pairs = new Map<string, number>();
  private readonly words = new Map<string, number>();
  /** Relation labels by number. */
  readonly relations: string[] = [];
  private readonly slots: readonly string[];

  constructor(readonly subset: 'A' | 'B') {
    this.slots = SLOTS[subset];
  }

  file(name: string): FileInfo {
    let info = this.files.get(name);
    if (info === undefined) {
      const parts = name.split('_');
      const last = parts[parts.length - 1];
      const key = `${parts[0]}\u0000${last.slice(0, Math.max(0, last.length - 5))}`;
      let pair = this.pairs.get(key);
      if (pair === undefined) this.pairs.set(key, (pair = this.pairs.size));
      const label = loaderRelation(this.subset === 'A' ? 'whatsup-a' : 'whatsup-b', name, '');
      let relation = this.relations.indexOf(label);
      if (relation < 0) relation = this.relations.push(label) - 1;
      const slotName = parts[1] ?? '';
      info = { pair, slot: this.slots.indexOf(slotName), slotName, relation };
      this.files.set(name, info);
    }
    return info;
  }

  /** The confusion word of a caption (-1: none or several). */
  word(caption: string): number {
    let w = this.words.get(caption);
    if (w === undefined) this.words.set(caption, (w = captionWord(caption)));
    return w;
  }
}

/**
 * One pass counted as its answers come (in dataset order). Each object pair starts with its four
 * slots wrong; an image sets its slot, the last image of a slot wins (as in the reference).
 */
class PassTally {
  n = 0;
  right = 0;
  unparsed = 0;
  skipped = 0;
  groups = 0;
  // By pair * 4 + slot: right, and seen; by pair: seen in this pass; by relation: images and right.
  readonly right4: number[] = [];
  readonly seen4: number[] = [];
  readonly inPass: number[] = [];
  readonly relN: number[] = [];
  readonly relRight: number[] = [];
  readonly counts = new Float64Array(CONFUSION_WORDS.length * COLUMNS);
  /** A second part that is no slot name (a file name with more `_`) is a slot of its own, as in the reference. */
  odd: Map<number, Map<string, boolean>> | undefined;

  /** One image: `gold` and `chosen` are confusion words (-1: unreadable; NONE: the answer was not read). */
  add(info: FileInfo, correct: boolean, gold: number, chosen: number): void {
    this.n++;
    const { pair, slot, relation } = info;
    if (this.inPass[pair] !== 1) {
      this.inPass[pair] = 1;
      this.groups++;
    }
    if (slot >= 0) {
      this.right4[pair * 4 + slot] = correct ? 1 : 0;
      this.seen4[pair * 4 + slot] = 1;
    } else {
      this.odd ??= new Map();
      if (!this.odd.has(pair)) this.odd.set(pair, new Map());
      this.odd.get(pair)!.set(info.slotName, correct);
    }
    this.relN[relation] = (this.relN[relation] ?? 0) + 1;
    if (correct) {
      this.right++;
      this.relRight[relation] = (this.relRight[relation] ?? 0) + 1;
    }
    if (chosen === NONE) this.unparsed++;
    if (gold < 0 || chosen < 0) this.skipped++;
    else this.counts[gold * COLUMNS + chosen]++;
  }

  result(reader: SubsetReader): ControlledPass {
    const { n, right4, seen4 } = this;
    let pairRight = 0;
    let setRight = 0;
    let complete = 0;
    // Slots 0 and 1 are left and right; 2 and 3 on and under (A) or in front and behind (B).
    this.inPass.forEach((_, p) => {
      const b = p * 4;
      const r = (i: number) => right4[b + i] === 1;
      if (r(0) && r(1)) pairRight++;
      if (r(2) && r(3)) pairRight++;
      let trues = [0, 1, 2, 3].filter(r).length;
      for (const v of this.odd?.get(p)?.values() ?? []) if (v) trues++;
      if (trues === 4) setRight++;
      if ([0, 1, 2, 3].every((i) => seen4[b + i] === 1)) complete++;
    });
    const prepositions: ControlledPass['prepositions'] = {};
    const order = reader.relations.map((label, i) => ({ label, i })).sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    for (const { label, i } of order) if (this.relN[i]) prepositions[label] = { n: this.relN[i], accuracy: (this.relRight[i] ?? 0) / this.relN[i] };
    return {
      n,
      individual: n > 0 ? this.right / n : null,
      pair: n > 0 ? pairRight / (n / 2) : null,
      set: n > 0 ? setRight / (n / 4) : null,
      groups: this.groups,
      complete_groups: complete,
      unparsed: this.unparsed,
      prepositions,
      confusion: confusionOf(this.counts),
      confusion_skipped: this.skipped,
    };
  }
}

/** Scores one pass of answers (in dataset order) of Controlled subset A or B. */
export function controlledPass(subset: 'A' | 'B', answers: readonly ControlledAnswer[]): ControlledPass {
  const reader = new SubsetReader(subset);
  const pass = new PassTally();
  for (const a of answers) pass.add(reader.file(a.file), a.correct, reader.word(a.gold), a.chosen === null ? NONE : reader.word(a.chosen));
  return pass.result(reader);
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

/** One controlled split being collected: its reader, a pass per rotation, and each item's file and all-right flag. */
interface SplitTally {
  reader: SubsetReader;
  passes: PassTally[];
  items: Map<string, { info: FileInfo; correct: boolean }>;
}

/** Collects scored prompts of the controlled splits (others are ignored) and computes their metrics. */
export class WhatsupTally {
  private readonly splits = new Map<string, SplitTally>();

  add(prompt: PromptRecord, r: { rotation: number; correct: boolean; chosen: number | null; answer_index: number }): void {
    const subset = prompt.split === 'whatsup-a' ? 'A' : prompt.split === 'whatsup-b' ? 'B' : undefined;
    if (subset === undefined) return;
    let s = this.splits.get(prompt.split);
    if (!s) this.splits.set(prompt.split, (s = { reader: new SubsetReader(subset), passes: [], items: new Map() }));
    let item = s.items.get(prompt.item);
    if (item) item.correct &&= r.correct;
    else s.items.set(prompt.item, (item = { info: s.reader.file(fileName(prompt.image)), correct: r.correct }));
    const gold = s.reader.word(prompt.options[r.answer_index] ?? '');
    const chosen = r.chosen === null ? NONE : s.reader.word(prompt.options[r.chosen] ?? '');
    (s.passes[r.rotation] ??= new PassTally()).add(item.info, r.correct, gold, chosen);
  }

  /** Metrics per controlled split seen, or null when there was none. */
  result(): Record<string, WhatsupSplitMetrics> | null {
    if (this.splits.size === 0) return null;
    const out: Record<string, WhatsupSplitMetrics> = {};
    for (const split of Object.keys(WHATSUP_CONTROLLED)) {
      const s = this.splits.get(split);
      if (!s) continue;
      const byPass: WhatsupSplitMetrics['by_pass'] = [];
      const summed = new Float64Array(CONFUSION_WORDS.length * COLUMNS);
      s.passes.forEach((pass, rotation) => {
        byPass.push(Object.assign({ rotation }, pass.result(s.reader)));
        summed.forEach((_, i) => (summed[i] += pass.counts[i]));
      });
      const circular = new PassTally();
      for (const { info, correct } of s.items.values()) circular.add(info, correct, -1, -1);
      const c = circular.result(s.reader);
      const relations = [...new Set(byPass.flatMap((p) => Object.keys(p.prepositions)))].sort();
      out[split] = {
        subset: s.reader.subset,
        n: s.items.size,
        passes: byPass.length,
        individual: meanOf(byPass.map((p) => p.individual)),
        pair: meanOf(byPass.map((p) => p.pair)),
        set: meanOf(byPass.map((p) => p.set)),
        prepositions: Object.fromEntries(relations.map((rel) => [rel, meanOf(byPass.map((p) => p.prepositions[rel]?.accuracy ?? null))!])),
        confusion: confusionOf(summed),
        unparsed: byPass.reduce((sum, p) => sum + p.unparsed, 0),
        circular: { individual: c.individual, pair: c.pair, set: c.set },
        by_pass: byPass,
      };
    }
    return out;
  }
}
