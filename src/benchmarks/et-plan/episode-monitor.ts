/**
 * A minimal criteria monitor for the episode loop: internal stand-in for the task generator's monitor
 * (same contract), to be swapped for it. Criteria are ordered steps; step k counts as met at a state
 * once steps 1..k-1 were met at that state or an earlier one, and every relation of step k is an edge
 * of that state (`from REL to`, `character` standing for the agent).
 */
import { REL, type EngineState } from './engine/index.js';
import type { Criterion } from './task.js';

export function criterionHolds(state: EngineState, c: Criterion): boolean {
  const from = c.from === 'character' ? state.characterId : c.from.id;
  return state.has(from, REL[c.relation], c.to.id);
}

/** Steps met after this state, given `progress` steps met before it (several can be met at once). */
export function internalCriteriaProgress(state: EngineState, criteria: readonly (readonly Criterion[])[], progress: number): number {
  let k = progress;
  while (k < criteria.length && criteria[k].every((c) => criterionHolds(state, c))) k++;
  return k;
}
