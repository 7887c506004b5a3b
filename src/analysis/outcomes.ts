import type { GroundingItemRecord, GroundingOutcome, ItemOutcome, ReasoningItemRecord } from './results-types.js';

function isIdentity(perm: number[] | undefined): boolean {
  return perm !== undefined && perm.every((v, i) => v === i);
}

/**
 * Folds per-rotation reasoning records into per-item outcomes. CircularEval: right only if every
 * rotation is right. VanillaEval: the rotation in the original option order (else the first seen).
 * `unparsed` means at least one rotation's answer matched no option.
 */
export class ItemOutcomeFolder {
  private readonly byItem = new Map<string, ItemOutcome & { vanillaFromIdentity: boolean }>();

  add(r: ReasoningItemRecord): void {
    const id = `${r.split}\u0000${r.item}`;
    const unparsed = r.status === 'unparsed';
    const prev = this.byItem.get(id);
    if (prev === undefined) {
      this.byItem.set(id, {
        item: r.item,
        split: r.split,
        relation: r.relation ?? 'unknown',
        rotations: 1,
        circular: r.correct,
        vanilla: r.correct,
        unparsed,
        vanillaFromIdentity: isIdentity(r.permutation),
      });
      return;
    }
    prev.rotations++;
    prev.circular &&= r.correct;
    prev.unparsed ||= unparsed;
    if (!prev.vanillaFromIdentity && isIdentity(r.permutation)) {
      prev.vanilla = r.correct;
      prev.vanillaFromIdentity = true;
    }
  }

  outcomes(): ItemOutcome[] {
    return [...this.byItem.values()].map(({ vanillaFromIdentity: _unused, ...o }) => o);
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
