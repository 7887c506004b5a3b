/**
 * ET-Plan-Bench baselines (docs/et-plan.md, "Baselines"): policies that choose engine actions on the
 * step protocol without a model. `oracle` replays the task's oracle plan; `random` draws among the
 * admissible actions (those that would execute now), seeded per item and step; `always-first` takes
 * the first admissible action; `greedy` explores by a fixed rule, knowing the task's classes only.
 */
import { keyedUniform } from '../../util/random.js';
import type { BaselineOptions, Episode, EpisodePolicy } from '../types.js';
import { AGENT_ACTIONS, heldBy } from './actions.js';
import { armsAllow } from './monitor.js';
import { REL, executeLine, isCloseTo, nodePosition, roomOf, scriptLine, segmentLength, type ActionName, type EngineState, type ScriptLine } from './engine/index.js';
import { canonicalLine, StepEpisode, type EtPlanWorld } from './episode.js';
import { goalsOf } from './paper-protocol.js';
import type { EtPlanItem } from './task.js';

function stepEpisode(e: Episode, policy: string): StepEpisode {
  if (!(e instanceof StepEpisode)) throw new Error(`${policy} acts on step-protocol episodes only`);
  return e;
}

const line = (state: EngineState, action: ActionName, ...ids: number[]): ScriptLine =>
  scriptLine(action, ids.map((id) => ({ name: state.node(id)!.className, id })));

/**
 * Actions that would execute now, in a fixed order (verbs as AGENT_ACTIONS lists them, then ids
 * ascending): walk/find to every visible node, grab/open/close visible objects, put or drop what is
 * held. Candidates are tried on the engine, under the task's one-arm rule.
 */
export function admissibleActions(world: EtPlanWorld): ScriptLine[] {
  const { state, item } = world;
  const visible = world.observation().visible;
  const held = heldBy(state);
  const objects = visible.filter((id) => !state.graph.isRoom(id) && !held.includes(id) && id !== state.characterId);
  const candidates: ScriptLine[] = [];
  const props = (id: number) => state.node(id)!.properties;
  for (const action of AGENT_ACTIONS) {
    switch (action) {
      case 'WALK':
      case 'FIND':
        for (const id of visible) candidates.push(line(state, action, id));
        break;
      case 'GRAB':
        for (const id of objects) if (props(id).has('GRABBABLE')) candidates.push(line(state, action, id));
        break;
      case 'OPEN':
      case 'CLOSE':
        for (const id of objects) if (props(id).has('CAN_OPEN')) candidates.push(line(state, action, id));
        break;
      case 'PUTIN':
      case 'PUTBACK':
        for (const x of held) for (const id of objects) candidates.push(line(state, action, x, id));
        break;
      case 'DROP':
        for (const x of held) candidates.push(line(state, action, x));
    }
  }
  return candidates.filter((l) => armsAllow(item, state, l) === null && executeLine(state, l, { mode: 'repaired' }).ok);
}

const text = (world: EtPlanWorld, l: ScriptLine) => canonicalLine(world.graph, l);

export function createOracle(_items: ReadonlyMap<string, EtPlanItem>, o: BaselineOptions): EpisodePolicy {
  return {
    name: o.name,
    act(e) {
      const ep = stepEpisode(e, 'oracle');
      // Past the end of the plan (it should have succeeded by then): an empty reply, an invalid step.
      return ep.world.item.oracle[ep.steps.length] ?? '';
    },
  };
}

export function createRandom(_items: ReadonlyMap<string, EtPlanItem>, o: BaselineOptions): EpisodePolicy {
  return {
    name: o.name,
    act(e) {
      const ep = stepEpisode(e, 'random');
      const options = admissibleActions(ep.world);
      if (options.length === 0) return '';
      const u = keyedUniform(o.seed, ep.world.item.id, String(ep.steps.length + 1));
      return text(ep.world, options[Math.floor(u * options.length)]);
    },
  };
}

export function createAlwaysFirst(_items: ReadonlyMap<string, EtPlanItem>, o: BaselineOptions): EpisodePolicy {
  return {
    name: o.name,
    act(e) {
      const ep = stepEpisode(e, 'always-first');
      const first = admissibleActions(ep.world)[0];
      return first === undefined ? '' : text(ep.world, first);
    },
  };
}

/** What the greedy explorer remembers in one episode. */
interface GreedyMemory {
  /** Every non-room object seen, by id. */
  seen: Set<number>;
  /** Containers opened for exploring. */
  explored: Set<number>;
  visitedRooms: Set<number>;
  /**
   * What was used for a goal whose criteria step was still not met once all its goals were done: the
   * place reached (`id`), or the object and destination put together (`object:dest`).
   */
  tried: Set<string>;
  /** Goals done (by index), with what was used (as `tried` writes it). */
  finished: Map<number, string>;
}

/**
 * The greedy explorer. It works through the task's criteria as sub-goals by class name (as the
 * paper's controller does, never by the criteria's ids): the object to carry, then the destination,
 * or the place to reach. When an instance of the class it needs has been seen, it goes for the
 * nearest one (straight line from where it stands) and acts on it: grab it (opening its closed
 * container first), open a closed destination, put. Otherwise it explores: the nearest closed
 * container in sight that it has not opened, else the nearest room it has not entered (all entered:
 * it starts over). When every goal of a criteria step is done and the step is still not met, what it
 * used (the object and destination put together; the place reached, in a step without placements)
 * counts as wrong and the step's goals start again with other instances.
 */
export function createGreedy(_items: ReadonlyMap<string, EtPlanItem>, o: BaselineOptions): EpisodePolicy {
  const memories = new WeakMap<Episode, GreedyMemory>();
  return {
    name: o.name,
    act(e) {
      const ep = stepEpisode(e, 'greedy');
      let m = memories.get(e);
      if (m === undefined) memories.set(e, (m = { seen: new Set(), explored: new Set(), visitedRooms: new Set(), tried: new Set(), finished: new Map() }));
      const next = greedyAction(ep.world, m);
      return next === null ? '' : text(ep.world, next);
    },
  };
}

function greedyAction(world: EtPlanWorld, m: GreedyMemory): ScriptLine | null {
  const { state, graph } = world;
  const c = state.characterId;
  const here = roomOf(state, c);
  if (here !== null) m.visitedRooms.add(here);
  for (const id of world.observation().visible) if (!graph.isRoom(id)) m.seen.add(id);
  const held = heldBy(state);
  const goals = goalsOf(world.item.criteria);
  const open = () => goals.findIndex((g, i) => !m.finished.has(i) && world.progress <= g.step);
  let gi = open();
  if (gi < 0 || goals[gi].step > world.progress) {
    // Every goal of the current criteria step is done, yet the step is not met: try other instances. A place
    // to reach beside a placement is where the placement ends anyway, so only the placements are suspect then.
    const placing = goals.some((g) => g.step === world.progress && g.kind === 'place');
    for (const [i, used] of m.finished) {
      if (goals[i].step !== world.progress) continue;
      if (!placing || goals[i].kind === 'place') m.tried.add(used);
      m.finished.delete(i);
    }
    gi = open();
  }
  if (gi < 0) return null;
  const goal = goals[gi];
  const dist = (id: number) => segmentLength(world.position, nodePosition(graph, id));
  const byDistance = (ids: number[]) => ids.sort((a, b) => dist(a) - dist(b) || a - b);
  const known = (cls: string) => byDistance([...m.seen].filter((id) => graph.node(id)!.className === cls && !held.includes(id)));
  const close = (id: number) => isCloseTo(state, id);
  const closedContainer = (id: number) => state.out(id, REL.INSIDE).find((p) => !graph.isRoom(p) && state.hasState(p, 'CLOSED') && graph.node(p)!.properties.has('CAN_OPEN'));

  if (goal.kind === 'reach') {
    const t = known(goal.target.class).find((id) => !m.tried.has(String(id)));
    if (t !== undefined) {
      m.finished.set(gi, String(t));
      return line(state, 'WALK', t);
    }
  } else {
    const dests = known(goal.dest.class);
    const untried = (o: number) => dests.filter((d) => !m.tried.has(`${o}:${d}`));
    const carried = held.find((h) => graph.node(h)!.className === goal.object.class);
    if (carried === undefined) {
      // The nearest instance not yet put on every destination seen (any, while no destination is known).
      const t = known(goal.object.class).find((o) => dests.length === 0 || untried(o).length > 0);
      if (t !== undefined) {
        if (!close(t)) return line(state, 'WALK', t);
        const box = closedContainer(t);
        if (box !== undefined && held.length < 2) return line(state, 'OPEN', box);
        return line(state, 'GRAB', t);
      }
    } else {
      const d = untried(carried)[0];
      if (d !== undefined) {
        if (!close(d)) return line(state, 'WALK', d);
        if (goal.relation === 'INSIDE' && state.hasState(d, 'CLOSED')) return line(state, 'OPEN', d);
        m.finished.set(gi, `${carried}:${d}`);
        return line(state, goal.relation === 'INSIDE' ? 'PUTIN' : 'PUTBACK', carried, d);
      }
    }
  }
  // Explore: the nearest closed container in sight not yet opened, else the nearest room not entered.
  const boxes = byDistance(world.observation().visible.filter((id) => !graph.isRoom(id) && !m.explored.has(id) && graph.node(id)!.properties.has('CAN_OPEN') && state.hasState(id, 'CLOSED')));
  if (boxes.length) {
    const b = boxes[0];
    if (!close(b)) return line(state, 'WALK', b);
    m.explored.add(b);
    return line(state, 'OPEN', b);
  }
  let rooms = graph.rooms.filter((r) => !m.visitedRooms.has(r));
  if (rooms.length === 0) {
    m.visitedRooms.clear();
    m.explored.clear();
    rooms = graph.rooms.filter((r) => r !== here);
  }
  if (rooms.length === 0) return null;
  return line(state, 'WALK', byDistance([...rooms])[0]);
}
