/**
 * Partial observation: what the character sees (docs/et-plan.md, "Partial observation"). The
 * reference helper keeps, from the character's room down through INSIDE edges, every node whose
 * parent is a room or OPEN, plus all rooms and what the character holds. A node's parent is the
 * non-room INSIDE parent with the largest id, else the room: the fixed rule the fixtures use where
 * the reference depends on edge order. The walk is cycle-safe; `loop` says the reference would
 * never return on this state (an INSIDE cycle hangs below the room).
 */
import { REL } from './graph.js';
import type { GraphView } from './state.js';

const { INSIDE, HOLDS_RH, HOLDS_LH } = REL;

/** A node's parent for the visibility rule: the largest-id non-room INSIDE parent, else the largest-id room. */
export function visibilityParent(s: GraphView, id: number): number | undefined {
  const parents = s.out(id, INSIDE);
  let room: number | undefined;
  for (let i = parents.length - 1; i >= 0; i--) {
    const p = parents[i];
    if (!s.graph.isRoom(p)) return p;
    room ??= p;
  }
  return room;
}

export interface Visible {
  /** Visible node ids, ascending, each once. */
  ids: number[];
  /** True when the reference helper would loop forever on this state. */
  loop: boolean;
}

type ParentRule = (s: GraphView, id: number) => number | undefined;

/** Per-graph scratch marks for the walk below (generation stamps, so nothing is cleared per call). */
interface Marks {
  seen: Int32Array;
  done: Int32Array;
  gen: number;
}
const marksOf = new WeakMap<object, Marks>();

/**
 * Every node below `root` through INSIDE edges (any depth, cycle-safe) that `keep` accepts, and
 * whether an INSIDE cycle hangs below `root` (where the reference helper would loop).
 */
function below(s: GraphView, root: number, keep: (id: number) => boolean, out: Set<number>): boolean {
  let m = marksOf.get(s.graph);
  if (m === undefined) {
    m = { seen: new Int32Array(s.graph.maxId + 1), done: new Int32Array(s.graph.maxId + 1), gen: 0 };
    marksOf.set(s.graph, m);
  }
  const gen = ++m.gen;
  const { seen, done } = m;
  let loop = false;
  // Depth-first; a child met again while still on the stack (seen, not done) closes a cycle.
  const ids = [root];
  const lists = [s.in(root, INSIDE)];
  const next = [0];
  seen[root] = gen;
  while (ids.length > 0) {
    const top = ids.length - 1;
    const children = lists[top];
    if (next[top] === children.length) {
      done[ids[top]] = gen;
      ids.pop();
      lists.pop();
      next.pop();
      continue;
    }
    const child = children[next[top]++];
    if (seen[child] === gen) {
      if (done[child] !== gen) loop = true;
      continue;
    }
    seen[child] = gen;
    if (keep(child)) out.add(child);
    ids.push(child);
    lists.push(s.in(child, INSIDE));
    next.push(0);
  }
  return loop;
}

/** True when an INSIDE cycle hangs below `room` (the reference helper never returns there). */
export function loopsBelow(s: GraphView, room: number): boolean {
  return below(s, room, () => false, new Set());
}

/**
 * The character's visible set. `parent` replaces the parent rule (the reference takes the last
 * INSIDE edge in its edge list; pass that rule to reproduce it for another edge order).
 */
export function visibleNodes(s: GraphView, parent: ParentRule = visibilityParent): Visible {
  const c = s.characterId;
  const out = new Set<number>(s.graph.rooms);
  for (const h of [...s.out(c, HOLDS_RH), ...s.out(c, HOLDS_LH)]) out.add(h);
  const room = parent(s, c);
  const keep = (id: number) => {
    const p = parent(s, id)!;
    return s.graph.isRoom(p) || s.hasState(p, 'OPEN');
  };
  const loop = room === undefined ? false : below(s, room, keep, out);
  return { ids: [...out].sort((a, b) => a - b), loop };
}
