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

/**
 * Sums of item tallies in one table cell. Cells and bias tallies are plain objects made by one object
 * literal each: every instance shares that literal's hidden class, which V8 keeps alive with the
 * literal, so optimised scoring code stays valid from one call to the next.
 */
export interface CellSum {
  n: number;
  prompts: number;
  correct: number;
  unparsed: number;
  missing: number;
  circular: number;
  firstN: number;
  firstCorrect: number;
}

export function newCellSum(): CellSum {
  return { n: 0, prompts: 0, correct: 0, unparsed: 0, missing: 0, circular: 0, firstN: 0, firstCorrect: 0 };
}

/** Adds one item's tally to a cell. */
export function addTally(c: CellSum, t: ItemTally): void {
  c.n++;
  c.prompts += t.prompts;
  c.correct += t.correct;
  c.unparsed += t.unparsed;
  c.missing += t.missing;
  if (t.all) c.circular++;
  if (t.first !== null) {
    c.firstN++;
    if (t.first) c.firstCorrect++;
  }
}

/** Adds another cell's sums to `c`. */
export function mergeCells(c: CellSum, o: CellSum): void {
  c.n += o.n;
  c.prompts += o.prompts;
  c.correct += o.correct;
  c.unparsed += o.unparsed;
  c.missing += o.missing;
  c.circular += o.circular;
  c.firstN += o.firstN;
  c.firstCorrect += o.firstCorrect;
}

/** The cell as reasoning.json reports it. */
export function cellResult(c: CellSum, mode: ReasoningMode): ReasoningCell {
  const frac = (k: number, d: number) => (d > 0 ? k / d : null);
  return {
    n: c.n,
    prompts: c.prompts,
    circular: mode === 'vanilla' ? null : frac(c.circular, c.n),
    vanilla: mode === 'circular' ? null : frac(c.correct, c.prompts),
    vanilla_first: mode === 'circular' ? null : frac(c.firstCorrect, c.firstN),
    unparsed: c.unparsed,
    missing: c.missing,
  };
}

/** Counts of chosen and correct positions (A..Z). */
export interface BiasTally {
  n: number;
  prompts: number;
  /** Positions seen so far: the highest chosen or correct index + 1. */
  k: number;
  // Fixed-size counters: growing arrays change shape as they fill, which costs re-optimisation per call.
  chosen: Float64Array;
  correct: Float64Array;
}

export function newBiasTally(): BiasTally {
  return { n: 0, prompts: 0, k: 0, chosen: new Float64Array(26), correct: new Float64Array(26) };
}

/** Counts one scored prompt's chosen and correct positions. */
export function addBias(b: BiasTally, r: ReasoningItemResult): void {
  b.prompts++;
  const a = r.answer_index;
  if (a >= 0 && a < 26) {
    b.correct[a]++;
    if (a >= b.k) b.k = a + 1;
  }
  const c = r.chosen;
  if (c === null || c < 0 || c >= 26) return;
  b.n++;
  b.chosen[c]++;
  if (c >= b.k) b.k = c + 1;
}

/** Shares of answers per shown position, as reasoning.json reports them. */
export function biasResult(b: BiasTally): PositionBias {
  const share = (counts: Float64Array, d: number) => Object.fromEntries(Array.from({ length: b.k }, (_, p) => [optionLetter(p), d > 0 ? counts[p] / d : 0]));
  return { n: b.n, chosen: share(b.chosen, b.n), correct: share(b.correct, b.prompts) };
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
        if (!cell) byRelation.set(t.relation, (cell = newCellSum()));
      }
      addTally(cell, t);
    }
    const splitCell = newCellSum();
    for (const [relation, c] of byRelation) {
      mergeCells(splitCell, c);
      splitRelations.set(`${split}/${relation}`, c);
      let r = relations.get(relation);
      if (!r) relations.set(relation, (r = newCellSum()));
      mergeCells(r, c);
    }
    splits.set(split, splitCell);
  }
  return { splits, relations, splitRelations };
}
