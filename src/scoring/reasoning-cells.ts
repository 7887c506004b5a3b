/** Tallies behind the reasoning tables: items folded over rotations, cells, answer positions. */
import { optionLetter } from '../formats/prompts.js';
import type { PositionBias, ReasoningCell, ReasoningItemResult, ReasoningMode } from './reasoning-types.js';

/** One item's rotations folded together. */
export interface ItemTally {
  split: string;
  relation: string;
  prompts: number;
  correct: number;
  unparsed: number;
  missing: number;
  all: boolean;
  first: boolean | null;
}

/** Sums item tallies into one table cell. */
export class CellSum {
  n = 0;
  prompts = 0;
  correct = 0;
  unparsed = 0;
  missing = 0;
  circular = 0;
  firstN = 0;
  firstCorrect = 0;

  add(t: ItemTally): void {
    this.n++;
    this.prompts += t.prompts;
    this.correct += t.correct;
    this.unparsed += t.unparsed;
    this.missing += t.missing;
    if (t.all) this.circular++;
    if (t.first !== null) {
      this.firstN++;
      if (t.first) this.firstCorrect++;
    }
  }

  /** Adds another cell's sums. */
  merge(o: CellSum): void {
    this.n += o.n;
    this.prompts += o.prompts;
    this.correct += o.correct;
    this.unparsed += o.unparsed;
    this.missing += o.missing;
    this.circular += o.circular;
    this.firstN += o.firstN;
    this.firstCorrect += o.firstCorrect;
  }

  cell(mode: ReasoningMode): ReasoningCell {
    const frac = (k: number, d: number) => (d > 0 ? k / d : null);
    return {
      n: this.n,
      prompts: this.prompts,
      circular: mode === 'vanilla' ? null : frac(this.circular, this.n),
      vanilla: mode === 'circular' ? null : frac(this.correct, this.prompts),
      vanilla_first: mode === 'circular' ? null : frac(this.firstCorrect, this.firstN),
      unparsed: this.unparsed,
      missing: this.missing,
    };
  }
}

/** Counts of chosen and correct positions (A..Z). */
export class BiasTally {
  n = 0;
  prompts = 0;
  /** Positions seen so far: the highest chosen or correct index + 1. */
  private k = 0;
  // Fixed-size counters: growing arrays change shape as they fill, which costs re-optimisation per call.
  private readonly chosen = new Float64Array(26);
  private readonly correct = new Float64Array(26);
  add(r: ReasoningItemResult): void {
    this.prompts++;
    const a = r.answer_index;
    if (a >= 0 && a < 26) {
      this.correct[a]++;
      if (a >= this.k) this.k = a + 1;
    }
    const c = r.chosen;
    if (c === null || c < 0 || c >= 26) return;
    this.n++;
    this.chosen[c]++;
    if (c >= this.k) this.k = c + 1;
  }
  result(): PositionBias {
    const share = (counts: Float64Array, d: number) => Object.fromEntries(Array.from({ length: this.k }, (_, p) => [optionLetter(p), d > 0 ? counts[p] / d : 0]));
    return { n: this.n, chosen: share(this.chosen, this.n), correct: share(this.correct, this.prompts) };
  }
}

/**
 * The split, relation and split/relation cells of item tallies. Items are summed once per
 * split/relation pair (no string built per item); the split and relation cells are merged from those.
 */
export function sumCells(tallies: Map<string, Map<string, ItemTally>>): { splits: Map<string, CellSum>; relations: Map<string, CellSum>; splitRelations: Map<string, CellSum> } {
  const splits = new Map<string, CellSum>();
  const relations = new Map<string, CellSum>();
  const splitRelations = new Map<string, CellSum>();
  for (const [split, items] of tallies) {
    const byRelation = new Map<string, CellSum>();
    let lastRelation: string | undefined;
    let cell: CellSum | undefined;
    for (const t of items.values()) {
      if (t.relation !== lastRelation || cell === undefined) {
        lastRelation = t.relation;
        cell = byRelation.get(t.relation);
        if (!cell) byRelation.set(t.relation, (cell = new CellSum()));
      }
      cell.add(t);
    }
    const splitCell = new CellSum();
    for (const [relation, c] of byRelation) {
      splitCell.merge(c);
      splitRelations.set(`${split}/${relation}`, c);
      let r = relations.get(relation);
      if (!r) relations.set(relation, (r = new CellSum()));
      r.merge(c);
    }
    splits.set(split, splitCell);
  }
  return { splits, relations, splitRelations };
}
