/**
 * The completion monitor and the one-arm rule (docs/et-plan.md, "Tasks"), pure functions the episode
 * loop calls after each step.
 *
 * Criteria are ordered steps. Grabbing a container removes the `X INSIDE B` edges of its contents
 * (the reference engine's behaviour), so a temporal task's first step is usually no longer true at the
 * end: the monitor checks steps over the sequence of states, not on the final state.
 */
import { GsrError } from '../../util/errors.js';
import { REL, lineText, nodeText, type GraphView, type ScriptLine } from './engine/index.js';
import type { Criterion, EtPlanItem } from './task.js';

/** What the monitor needs of an item. */
export type MonitoredTask = Pick<EtPlanItem, 'criteria' | 'candidates'>;

/** One way of reading the criteria: an id for each criterion node (in `variables` order). */
interface Track {
  ids: number[];
  /** Steps met. */
  met: number;
  /** State index at which each met step was met. */
  at: number[];
  /** Whether the next step held at the previous state. */
  held: boolean;
}

/** Progress over the states observed so far (JSON-serialisable; never changed in place). */
export interface CriteriaProgress {
  /** States observed (the first is the state before the agent's first action: index 0). */
  states: number;
  /** The most steps any one assignment has met. */
  met: number;
  /** Every step met, in order, by one assignment of instances. */
  done: boolean;
  /** State index at which each step was met, for the first assignment that met the most. */
  metAt: number[];
  /** @internal */
  tracks: Track[];
}

/** Refuses criteria whose instance assignments would be too many to follow (the generator stays far below). */
export const MAX_ASSIGNMENTS = 20_000;

/** Criterion node ids in order of first appearance. */
export function criteriaVariables(criteria: readonly (readonly Criterion[])[]): number[] {
  const ids: number[] = [];
  for (const step of criteria) {
    for (const c of step) {
      for (const n of [c.from, c.to]) if (n !== 'character' && !ids.includes(n.id)) ids.push(n.id);
    }
  }
  return ids;
}

/** Every assignment of distinct candidate ids to the criterion nodes. */
function assignments(task: MonitoredTask): number[][] {
  const domains = criteriaVariables(task.criteria).map((id) => task.candidates?.[String(id)] ?? [id]);
  const total = domains.reduce((n, d) => n * d.length, 1);
  if (total > MAX_ASSIGNMENTS) throw new GsrError(`et-plan criteria: ${total} instance assignments (at most ${MAX_ASSIGNMENTS})`);
  let out: number[][] = [[]];
  for (const d of domains) out = out.flatMap((a) => d.filter((id) => !a.includes(id)).map((id) => [...a, id]));
  return out;
}

/** The progress before any state is observed. */
export function startProgress(task: MonitoredTask): CriteriaProgress {
  return { states: 0, met: 0, done: false, metAt: [], tracks: assignments(task).map((ids) => ({ ids, met: 0, at: [], held: false })) };
}

function stepHolds(state: GraphView, step: readonly Criterion[], vars: readonly number[], ids: readonly number[]): boolean {
  const pick = (n: Criterion['from']) => (n === 'character' ? state.characterId : ids[vars.indexOf(n.id)]);
  return step.every((c) => state.has(pick(c.from), REL[c.relation], pick(c.to)));
}

/**
 * Observes the next state. The rule: step 1 is met at the first state where all its relations hold
 * (edges, with `character` the agent). Step k > 1 is met at the first later state where all its
 * relations hold and did not all hold at the state before, so a step already true when the previous
 * one is met must become true again: doing the steps in the wrong order does not count. Relations
 * of a met step need not stay true. The task is done when one assignment of instances (any of an
 * id's candidates, distinct ids) meets every step. Pass the result of startProgress (or undefined)
 * first, then the previous result.
 */
export function advanceCriteria(task: MonitoredTask, state: GraphView, progress?: CriteriaProgress): CriteriaProgress {
  const p = progress ?? startProgress(task);
  const index = p.states;
  if (p.done) return { ...p, states: index + 1 };
  const vars = criteriaVariables(task.criteria);
  const steps = task.criteria;
  let best: Track | undefined;
  const tracks = p.tracks.map((t) => {
    if (t.met === steps.length) return t;
    const holds = stepHolds(state, steps[t.met], vars, t.ids);
    let next: Track;
    if (holds && (t.met === 0 || !t.held)) {
      const met = t.met + 1;
      next = { ids: t.ids, met, at: [...t.at, index], held: met < steps.length && stepHolds(state, steps[met], vars, t.ids) };
    } else next = t.held === holds ? t : { ...t, held: holds };
    if (best === undefined || next.met > best.met) best = next;
    return next;
  });
  const top = best && best.met > p.met ? best : undefined;
  const met = top?.met ?? p.met;
  return { states: index + 1, met, done: met === steps.length, metAt: top ? top.at : p.metAt, tracks };
}

/** Runs the monitor over a whole state sequence (the first state is before the first action). */
export function monitorStates(task: MonitoredTask, states: Iterable<GraphView>): CriteriaProgress {
  let p = startProgress(task);
  for (const s of states) p = advanceCriteria(task, s, p);
  return p;
}

/**
 * The one-arm rule. The engine gives the character two hands; a task with `arms: 1` lets it carry
 * one thing at a time: a `[grab]` while something is held is refused. Opening, closing and switching
 * while holding one thing stay allowed (the ground-truth plans open a container with the object in
 * hand, as the reference's plans do). Returns null when the line is allowed, else a message in the
 * engine's style for the episode loop to report as a failed step (the state does not change).
 */
export function armsAllow(task: Pick<EtPlanItem, 'arms'>, state: GraphView, line: ScriptLine): string | null {
  if (task.arms === 2 || line.action !== 'GRAB') return null;
  const c = state.characterId;
  const held = [...state.out(c, REL.HOLDS_RH), ...state.out(c, REL.HOLDS_LH)];
  if (held.length === 0) return null;
  const name = (id: number) => nodeText(state.node(id)!);
  return `${name(c)} already holds ${name(held[0])} and this task allows one arm when executing "${lineText(line)}"`;
}
