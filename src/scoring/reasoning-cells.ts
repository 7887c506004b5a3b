/** Tallies behind the reasoning tables: items folded over rotations, cells, answer positions. */
import type { PositionBias, ReasoningCell, ReasoningItemResult, ReasoningMode } from './reasoning.js';

/** Letter of a shown position: 0 -> A. */
export function letter(i: number): string {
  return String.fromCharCode(65 + i);
}

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

/** Counts of chosen and correct positions. */
export class BiasTally {
  n = 0;
  prompts = 0;
  private readonly chosen: number[] = [];
  private readonly correct: number[] = [];
  add(r: ReasoningItemResult): void {
    this.prompts++;
    if (r.answer_index >= 0) this.correct[r.answer_index] = (this.correct[r.answer_index] ?? 0) + 1;
    if (r.chosen === null) return;
    this.n++;
    this.chosen[r.chosen] = (this.chosen[r.chosen] ?? 0) + 1;
  }
  result(): PositionBias {
    const k = Math.max(this.chosen.length, this.correct.length);
    const share = (counts: number[], d: number) => Object.fromEntries(Array.from({ length: k }, (_, p) => [letter(p), d > 0 ? (counts[p] ?? 0) / d : 0]));
    return { n: this.n, chosen: share(this.chosen, this.n), correct: share(this.correct, this.prompts) };
  }
}

export function sumInto(map: Map<string, CellSum>, key: string, t: ItemTally): void {
  let c = map.get(key);
  if (!c) map.set(key, (c = new CellSum()));
  c.add(t);
}
