import type { GroundingItemRecord, GroundingOutcome, ItemOutcome, ReasoningItemRecord } from './results-types.js';

function isFirstPass(r: ReasoningItemRecord): boolean {
  if (r.rotation !== undefined) return r.rotation === 0;
  return r.permutation !== undefined && r.permutation.every((v, i) => v === i);
}

interface Fold {
  item: string;
  split: string;
  relation: string;
  rotations: number;
  right: number;
  options: number | null;
  circular: boolean;
  first: boolean;
  firstSeen: boolean;
  unparsed: boolean;
}

/**
 * Folds per-rotation reasoning records into per-item outcomes. CircularEval: right only if every
 * rotation is right. VanillaEval: the share of rotations right (scoring averages over prompts).
 * Any status other than `ok` (unparsed, missing, failed) marks the item as having an unreadable answer.
 */
export class ItemOutcomeFolder {
  private readonly byItem = new Map<string, Fold>();

  add(r: ReasoningItemRecord): void {
    const id = `${r.split}\u0000${r.item}`;
    const unparsed = r.status !== undefined && r.status !== 'ok';
    let f = this.byItem.get(id);
    if (f === undefined) {
      f = { item: r.item, split: r.split, relation: r.relation ?? 'unknown', rotations: 0, right: 0, options: null, circular: true, first: r.correct, firstSeen: false, unparsed: false };
      this.byItem.set(id, f);
    }
    // A rotation's permutation lists every option once, so its length is the item's option count.
    if (r.permutation !== undefined && r.permutation.length > 0) f.options = Math.max(f.options ?? 0, r.permutation.length);
    f.rotations++;
    if (r.correct) f.right++;
    f.circular &&= r.correct;
    f.unparsed ||= unparsed;
    if (!f.firstSeen && isFirstPass(r)) {
      f.first = r.correct;
      f.firstSeen = true;
    }
  }

  outcomes(): ItemOutcome[] {
    return [...this.byItem.values()].map((f) => ({
      item: f.item,
      split: f.split,
      relation: f.relation,
      rotations: f.rotations,
      right: f.right,
      options: f.options ?? f.rotations,
      circular: f.circular,
      vanilla: f.right / f.rotations,
      first: f.first,
      unparsed: f.unparsed,
    }));
  }
}

/** Grounding records reduced to hit / miss per object. */
export function groundingOutcome(r: GroundingItemRecord): GroundingOutcome {
  return { item: r.item, split: r.split, role: r.role, hit: r.hit === true };
}

/** Groups values by a key, keeping first-seen key order. */
export function groupBy<T>(values: Iterable<T>, key: (v: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const v of values) {
    const k = key(v);
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}

/** Mean of booleans as a fraction. */
export function shareTrue(values: boolean[]): number {
  return values.length === 0 ? NaN : values.filter(Boolean).length / values.length;
}
