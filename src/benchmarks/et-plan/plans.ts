/**
 * Plans for generated tasks (docs/et-plan.md, "Tasks"): running a plan in the engine, the ground truth
 * built the way ET-Plan-Bench's generators build it (longest INSIDE path, opening closed containers on
 * the way), and the distance-optimal oracle. Pure: no I/O.
 */
import { EngineGraph, EngineState, REL, executeLine, nodePosition, parseScriptLine, segmentLength, type GraphView, type Vec3 } from './engine/index.js';
import { GsrError } from '../../util/errors.js';
import { advanceCriteria, armsAllow, startProgress, type CriteriaProgress, type MonitoredTask } from './monitor.js';

/** The engine mode the benchmark runs in (docs/et-plan.md, "Defects and decisions"). */
export const PLAN_MODE = 'repaired' as const;

export type PutRelation = 'ON' | 'INSIDE';

/** A script line naming nodes by class and id: `[walk] <kitchen> (1)`. */
export function planLine(graph: EngineGraph, verb: string, ...ids: number[]): string {
  return [`[${verb}]`, ...ids.map((id) => `<${graph.node(id)!.className}> (${id})`)].join(' ');
}

/** Ids of a plan's `[walk]` (and `[run]`) targets, in order. */
export function walkTargets(lines: readonly string[]): number[] {
  const out: number[] = [];
  for (const l of lines) {
    const p = parseScriptLine(l);
    if (p.ok && (p.line.action === 'WALK' || p.line.action === 'RUN')) out.push(p.line.params[0].id);
  }
  return out;
}

/** The state an episode starts from: the graph's initial state with the character walked to `room`. */
export function startState(graph: EngineGraph, room: number): EngineState {
  const p = parseScriptLine(planLine(graph, 'walk', room));
  const out = p.ok ? executeLine(EngineState.initial(graph), p.line, { mode: PLAN_MODE }) : undefined;
  if (!out?.ok) throw new GsrError(`cannot start in room ${room}: the walk there fails`);
  return out.state;
}

export interface PlanRun {
  /** Every line executed. */
  ok: boolean;
  /** States: the start, then one after each executed line. */
  states: EngineState[];
  /** The first line that failed (0-based), its message. */
  failedAt?: number;
  error?: string;
  /** The monitor after the last state. */
  progress: CriteriaProgress;
  /** The monitor after the start state alone (a task must not be met before the first action). */
  atStart: CriteriaProgress;
}

/** Runs a plan from `start` in the benchmark's mode, with the one-arm rule and the completion monitor. */
export function runPlan(task: MonitoredTask & { arms: 1 | 2 }, start: EngineState, lines: readonly string[]): PlanRun {
  const states = [start];
  const atStart = advanceCriteria(task, start, startProgress(task));
  let progress = atStart;
  for (const [i, text] of lines.entries()) {
    const s = states[states.length - 1];
    const p = parseScriptLine(text, i + 1);
    if (!p.ok) return { ok: false, states, failedAt: i, error: p.message, progress, atStart };
    const refused = armsAllow(task, s, p.line);
    if (refused !== null) return { ok: false, states, failedAt: i, error: refused, progress, atStart };
    const out = executeLine(s, p.line, { mode: PLAN_MODE });
    if (!out.ok) return { ok: false, states, failedAt: i, error: out.messages.join(',') || out.exception || 'failed', progress, atStart };
    states.push(out.state);
    progress = advanceCriteria(task, out.state, progress);
  }
  return { ok: true, states, progress, atStart };
}

/** Non-room INSIDE parents of a node. */
export function containersOf(view: GraphView, id: number): number[] {
  return view.out(id, REL.INSIDE).filter((p) => !view.graph.isRoom(p));
}

/**
 * The longest simple path upward along INSIDE edges from `t` ([t, parent, ..., top]); parents are
 * tried in ascending id order and the first longest path found is kept. Cycle-safe.
 */
export function longestInsidePath(view: GraphView, t: number): number[] {
  let best = [t];
  const path = [t];
  const on = new Set(path);
  const visit = (n: number) => {
    if (path.length > best.length) best = [...path];
    for (const p of view.out(n, REL.INSIDE)) {
      if (on.has(p)) continue;
      path.push(p);
      on.add(p);
      visit(p);
      path.pop();
      on.delete(p);
    }
  };
  visit(t);
  return best;
}

/** Of several instances, the one with the longest INSIDE path (ties: the smallest id), as the released generators choose. */
export function deepestInstance(view: GraphView, ids: readonly number[]): number {
  let best = ids[0];
  let len = -1;
  for (const id of [...ids].sort((a, b) => a - b)) {
    const l = longestInsidePath(view, id).length;
    if (l > len) [best, len] = [id, l];
  }
  return best;
}

/** Builds a ground-truth plan line by line while executing it, so opens follow the current state. */
export class PlanBuilder {
  readonly lines: string[] = [];
  state: EngineState;
  failed = false;

  constructor(
    readonly graph: EngineGraph,
    start: EngineState,
  ) {
    this.state = start;
  }

  do(verb: string, ...ids: number[]): void {
    if (this.failed) return;
    const text = planLine(this.graph, verb, ...ids);
    this.lines.push(text);
    const p = parseScriptLine(text);
    const out = p.ok ? executeLine(this.state, p.line, { mode: PLAN_MODE }) : undefined;
    if (out?.ok) this.state = out.state;
    else this.failed = true;
  }

  private canOpen(id: number): boolean {
    return this.graph.node(id)!.properties.has('CAN_OPEN') && this.state.hasState(id, 'CLOSED');
  }

  /** Walks the longest INSIDE path from its top (the room) down to `t`, opening closed containers on the way. */
  approach(t: number): void {
    const path = longestInsidePath(this.state, t).reverse();
    for (const [i, n] of path.entries()) {
      this.do('walk', n);
      if (i > 0 && n !== t && this.canOpen(n)) this.do('open', n);
    }
  }

  /** Puts the held `x` on or in `y` (already approached): opens a closed container first, closes it after. */
  deliver(x: number, y: number, rel: PutRelation): void {
    const open = rel === 'INSIDE' && this.canOpen(y);
    if (open) this.do('open', y);
    this.do(rel === 'INSIDE' ? 'putin' : 'putback', x, y);
    if (open) this.do('close', y);
  }

  grab(x: number): void {
    this.do('grab', x);
  }

  /** Opens `y` when it is an openable closed container; true if it did. */
  openIfClosed(y: number): boolean {
    const open = this.canOpen(y);
    if (open) this.do('open', y);
    return open;
  }
}

/** One step of an oracle plan over task variables (indexes into an assignment of node ids). */
export type OracleOp =
  /** Walk to the node. */
  | { kind: 'reach'; v: number }
  /** Get the node in hand: open its closed container if any (walking there), else walk to it; grab. */
  | { kind: 'fetch'; v: number }
  /** Open the node's closed container ahead of time (walking there). */
  | { kind: 'prep'; v: number }
  /** Open a closed destination (walking there). */
  | { kind: 'open'; v: number }
  /** Put the held node `v` on or in `to` (walking there, opening it if closed). */
  | { kind: 'put'; v: number; to: number; rel: PutRelation };

export interface OraclePlan {
  lines: string[];
  walks: number[];
  /** Straight-line moving distance from the start position (the released metric). */
  distance: number;
}

/**
 * Lines of one oracle candidate: the ops for one assignment of ids, walking only where the next action
 * needs the character (never to the node it last walked to), never closing anything. Null when the
 * ops cannot work: an object in a closed container that cannot be opened, more things held than the
 * arms allow, or an open with no free hand.
 */
export function oraclePlan(graph: EngineGraph, start: EngineState, startPos: Vec3, ids: readonly number[], ops: readonly OracleOp[], arms: 1 | 2): OraclePlan | null {
  const lines: string[] = [];
  const walks: number[] = [];
  const opened = new Set<number>();
  let at = -1;
  let held = 0;
  let distance = 0;
  let pos = startPos;
  const walkTo = (n: number) => {
    if (at === n) return;
    lines.push(planLine(graph, 'walk', n));
    walks.push(n);
    const p = nodePosition(graph, n);
    distance += segmentLength(pos, p);
    pos = p;
    at = n;
  };
  const closed = (n: number) => start.hasState(n, 'CLOSED') && !opened.has(n);
  const open = (n: number): boolean => {
    if (!graph.node(n)!.properties.has('CAN_OPEN') || held >= 2) return false;
    lines.push(planLine(graph, 'open', n));
    opened.add(n);
    return true;
  };
  const closedParent = (x: number) => containersOf(start, x).find(closed);
  for (const op of ops) {
    const x = ids[op.v];
    if (op.kind === 'reach') walkTo(x);
    else if (op.kind === 'fetch' || op.kind === 'prep') {
      const p = closedParent(x);
      if (p !== undefined) {
        walkTo(p);
        if (!open(p)) return null;
      } else if (op.kind === 'fetch') walkTo(x);
      if (op.kind === 'fetch') {
        if (held >= arms) return null;
        lines.push(planLine(graph, 'grab', x));
        held++;
      }
    } else if (op.kind === 'open') {
      walkTo(x);
      if (closed(x) && !open(x)) return null;
    } else {
      const y = ids[op.to];
      walkTo(y);
      if (op.rel === 'INSIDE' && closed(y) && graph.node(y)!.properties.has('CAN_OPEN') && !open(y)) return null;
      lines.push(planLine(graph, op.rel === 'INSIDE' ? 'putin' : 'putback', x, y));
      held--;
    }
  }
  return { lines, walks, distance };
}

/** Oracle search limits: instances tried per task object (nearest to the start first), plans executed. */
export const ORACLE_LIMITS = { instances: 8, validations: 40 } as const;

/**
 * The distance-optimal oracle: over every assignment of distinct instances to the task's objects
 * (`domains`, each cut to the ORACLE_LIMITS.instances nearest the start) and every op order in
 * `orders`, the plan with the shortest straight-line moving distance (ties: fewer lines, then the
 * text) that executes in the engine and meets the criteria. Null when none does.
 */
export function searchOracle(
  task: MonitoredTask & { arms: 1 | 2 },
  graph: EngineGraph,
  start: EngineState,
  startPos: Vec3,
  domains: readonly (readonly number[])[],
  orders: readonly (readonly OracleOp[])[],
): (OraclePlan & { run: PlanRun }) | null {
  const near = domains.map((d) => [...d].sort((a, b) => segmentLength(startPos, nodePosition(graph, a)) - segmentLength(startPos, nodePosition(graph, b)) || a - b).slice(0, ORACLE_LIMITS.instances));
  let assignments: number[][] = [[]];
  for (const d of near) assignments = assignments.flatMap((a) => d.filter((id) => !a.includes(id)).map((id) => [...a, id]));
  const plans: (OraclePlan & { key: string })[] = [];
  for (const ids of assignments) {
    for (const ops of orders) {
      const plan = oraclePlan(graph, start, startPos, ids, ops, task.arms);
      if (plan) plans.push({ ...plan, key: plan.lines.join('\n') });
    }
  }
  plans.sort((a, b) => a.distance - b.distance || a.lines.length - b.lines.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const plan of plans.slice(0, ORACLE_LIMITS.validations)) {
    const run = runPlan(task, start, plan.lines);
    if (run.ok && run.progress.done && run.atStart.met === 0) return { lines: plan.lines, walks: plan.walks, distance: plan.distance, run };
  }
  return null;
}
