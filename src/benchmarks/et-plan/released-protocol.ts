/**
 * The released agent of ET-Plan-Bench (`protocol: released`; docs/et-plan.md, "The released protocol"):
 * what the public repository ET-Plan-Bench/ET-Plan-Bench (commit 07a935b) runs, rebuilt on the engine.
 * The LLM ranks rooms and names objects to explore, by class name; a fixed controller does everything
 * else, per family as the released scripts do: navigation (evaluation_generation/navigation_tasks),
 * single-object manipulation (.../EmbodiedAI/utils/robot.py, robot_task.py) and multi-object and
 * temporal tasks (evaluation_generation/navigation_manipulation_multiple_objects). The LLM sees class
 * names only: no ids, no error text. The cap counts successful actions (`llm_step_save`): the episode
 * fails once more than `step_cap` actions have succeeded. Success is the controller's verdict (the
 * final walk or put succeeded); the completion monitor's verdict is recorded beside it.
 */
import type { EpisodeRecord, EpisodeStep } from '../../formats/episodes.js';
import type { BaselineOptions, DraftPrompt, Episode, EpisodePolicy } from '../types.js';
import { heldBy } from './actions.js';
import { REL, nodePosition, scriptLine, segmentLength, type ActionName } from './engine/index.js';
import { controllerRecord, episodeRecord, type ActionResult, type EtPlanWorld } from './episode.js';
import { observationDigest } from './observation.js';
import {
  answerLine, embodiedList, explorePrompt, navigationExploreList, navigationList, pyList, roomsPrompt,
  type PromptStyle, type ReleasedPrompting,
} from './released-prompts.js';
import type { EtPlanItem } from './task.js';

/** The released multi-object scripts ask at 0.3; the others leave the API's default (null: not sent). */
export function releasedTemperature(style: PromptStyle): number | null {
  return style === 'multi' ? 0.3 : null;
}

/** Which released code a family runs. */
export function promptStyle(item: EtPlanItem): PromptStyle {
  if (item.task === 'navigation' || item.task === 'navigation-spatial') return 'navigation';
  if (item.task === 'manipulation' || item.task === 'manipulation-spatial') return 'embodied';
  return 'multi';
}

/** Room-ranking tries of the navigation and multi-object scripts before they give up. */
export const ROOM_TRIES = 5;
/** At most this many of the LLM's blockers are explored (EmbodiedAI/constant/params.py, BLOCKER_MAX). */
export const BLOCKER_MAX = 7;

interface Decision {
  kind: 'rooms' | 'explore';
  text: string;
  /** The room names or object classes the question lists, in its order. */
  options: string[];
  /** The reply read; null: unreadable (the released code then gives up, or asks again for rooms). */
  read(reply: string): string[] | null;
}

class Stop extends Error {}

/** The released layout map's large objects: LIEABLE, or neither MOVEABLE nor GRABBABLE. */
export function layoutLarge(world: EtPlanWorld): number[] {
  const g = world.graph;
  return g.ids.filter((id) => {
    const p = g.node(id)!.properties;
    return !g.isRoom(id) && id !== g.characterId && (p.has('LIEABLE') || (!p.has('MOVEABLE') && !p.has('GRABBABLE')));
  });
}

export class ReleasedEpisode implements Episode {
  readonly steps: EpisodeStep[] = [];
  private readonly startObs: string;
  private readonly run: Generator<Decision, void, string[] | null>;
  private pending: Decision | undefined;
  private ended: EpisodeRecord['end'] | undefined;
  /** The controller's verdict. */
  private verdict = false;
  private actionsOfStep: ActionResult[] = [];
  readonly style: PromptStyle;
  /** The agent's memory (`MemorySceneGraph`): every thing seen, and the edges seen among them. */
  private readonly memory = new Set<number>();
  private readonly memoryEdges = new Set<string>();
  /** Things explored (walked to as a candidate or blocker). */
  private readonly explored = new Set<number>();

  constructor(
    readonly world: EtPlanWorld,
    readonly variant: string,
    readonly prompting: ReleasedPrompting,
  ) {
    this.style = promptStyle(world.item);
    this.startObs = observationDigest(world.observation());
    this.remember();
    // The manipulation code's layout map: every large object goes into memory at the start.
    if (this.style === 'embodied' && world.layout !== null) for (const id of layoutLarge(world)) this.memory.add(id);
    this.run = this.controller();
    this.advance(undefined);
    this.before = this.actionsOfStep;
    this.actionsOfStep = [];
  }

  /** What the controller did before its first question (everything, when it asked none). */
  private readonly before: ActionResult[];

  get done(): boolean {
    return this.ended !== undefined;
  }

  /** The pending question's kind and the names it lists (for the released-protocol baselines). */
  question(): { kind: Decision['kind']; options: readonly string[] } | null {
    return this.pending === undefined || this.done ? null : { kind: this.pending.kind, options: this.pending.options };
  }

  prompt(): DraftPrompt {
    const { item } = this.world;
    return { item: item.id, task: item.task, level: item.level, variant: this.variant, parts: [{ type: 'text', text: this.pending!.text }], temperature: releasedTemperature(this.style) };
  }

  reply(text: string, key: string | null): EpisodeStep {
    const decision = this.pending!;
    const read = decision.read(text);
    this.advance(read);
    const record: EpisodeStep = {
      step: this.steps.length + 1, key, reply: text,
      action: read === null ? null : `${decision.kind}: ${read.length ? read.join(', ') : 'none'}`, ok: read !== null,
      error: read === null ? `the reply could not be read as the released code reads it (${decision.kind})` : null,
      controller: controllerRecord(this.actionsOfStep), ...this.world.stepFields(),
    };
    this.actionsOfStep = [];
    this.steps.push(record);
    return record;
  }

  record(model: string, failed?: string): EpisodeRecord {
    const r = episodeRecord(this.world, this.variant, this.steps, this.startObs, model, failed !== undefined ? 'failed' : (this.ended ?? 'cap'), failed);
    return { ...r, success: this.verdict, monitor_success: this.world.success, ...(this.before.length ? { controller_before: controllerRecord(this.before) } : {}) };
  }

  /** Successful actions so far (the released step count). */
  get counted(): number {
    return this.world.actions.length;
  }

  private advance(value: string[] | null | undefined): void {
    try {
      const r = this.run.next(value as string[] | null);
      if (r.done) this.ended = this.verdict ? 'success' : 'exhausted';
      else this.pending = r.value;
    } catch (err) {
      if (!(err instanceof Stop)) throw err;
      this.verdict = false;
      this.ended = 'cap';
    }
  }

  /** A 360° scan after every successful action goes into memory with the edges among what it shows. */
  private remember(): void {
    const g = this.world.graph;
    const seen = this.world.observation().visible.filter((id) => id !== g.characterId);
    const set = new Set(seen);
    for (const id of seen) {
      this.memory.add(id);
      for (const rel of [REL.INSIDE, REL.ON, REL.CLOSE, REL.FACING]) {
        for (const to of this.world.state.out(id, rel)) if (set.has(to)) this.memoryEdges.add(`${id} ${rel} ${to}`);
      }
    }
  }

  /** One controller action; a successful one past the cap ends the episode (llm_step_save). */
  private act(action: ActionName, ...ids: number[]): boolean {
    const g = this.world.graph;
    // The released code ran in VirtualHome's Unity simulator, whose put needs a surface (the Python
    // engine's does not); without this the released order "put, else putin" would put things on containers.
    if (action === 'PUTBACK' && !g.node(ids[1])!.properties.has('SURFACES')) {
      this.actionsOfStep.push({ ok: false, error: `${g.node(ids[1])!.className} is not a surface (Unity's put)`, line: `[putback] <${g.node(ids[0])!.className}> (${ids[0]}) <${g.node(ids[1])!.className}> (${ids[1]})` });
      return false;
    }
    const r = this.world.execute(scriptLine(action, ids.map((id) => ({ name: g.node(id)!.className, id }))));
    this.actionsOfStep.push(r);
    if (r.ok) {
      this.remember();
      if (this.counted > this.world.item.step_cap) throw new Stop();
    }
    return r.ok;
  }

  private cls(id: number): string {
    return this.world.graph.node(id)!.className;
  }

  private byDistance(ids: readonly number[]): number[] {
    const p = this.world.position;
    const d = (id: number) => segmentLength(p, nodePosition(this.world.graph, id));
    return [...ids].sort((a, b) => d(a) - d(b) || a - b);
  }

  /** What the scan shows now: ids (ascending) and their class names. */
  private scan(): number[] {
    const g = this.world.graph;
    return this.world.observation().visible.filter((id) => id !== g.characterId);
  }

  private roomClasses(): string[] {
    return this.world.graph.rooms.map((r) => this.cls(r));
  }

  private *askRooms(objects: string[]): Generator<Decision, string[] | null, string[] | null> {
    const rooms = this.roomClasses();
    const text = roomsPrompt({ style: this.style, prompting: this.prompting, task: this.world.item.instruction, objects, rooms });
    const prompting = this.prompting;
    if (this.style === 'embodied') {
      // One question; no list in the reply ends the search (the released loop cannot go on).
      return yield { kind: 'rooms', text, options: rooms, read: (reply) => embodiedList(reply) };
    }
    for (let k = 0; k < ROOM_TRIES; k++) {
      const got = yield {
        kind: 'rooms', text, options: rooms,
        read(reply) {
          const line = answerLine(reply, prompting);
          if (line === null || line.length === 0) return null;
          const list = navigationList(line);
          return list.length === rooms.length ? list : null;
        },
      };
      if (got !== null) return got;
    }
    return null;
  }

  private *askExplore(objects: string[], room: string, options: string[]): Generator<Decision, string[], string[] | null> {
    const text = explorePrompt({ style: this.style, prompting: this.prompting, task: this.world.item.instruction, objects, room, options });
    const prompting = this.prompting;
    const embodied = this.style === 'embodied';
    const got = yield {
      kind: 'explore', text, options,
      read(reply) {
        const line = answerLine(reply, prompting);
        if (line === null) return null;
        if (embodied) return embodiedList(line) ?? [];
        const list = navigationExploreList(line);
        return list === 'none' ? [] : list;
      },
    };
    return got ?? [];
  }

  private *controller(): Generator<Decision, void, string[] | null> {
    if (this.style === 'navigation') yield* this.navigation();
    else if (this.style === 'embodied') yield* this.manipulation();
    else yield* this.multi();
  }

  // ---- navigation (gpt4_navigation_layout_map.py, gpt4_navigation_with_spatial_constraint.py) ----

  private *navigation(): Generator<Decision, void, string[] | null> {
    const { item, graph } = this.world;
    const target = item.targets[0].class;
    const c = item.constraint;
    const anchorRoom = c !== undefined && graph.isRoom(c.anchor.id);
    const constrained = c !== undefined && !anchorRoom;
    const layout = this.world.layout !== null && !constrained;
    if (layout) {
      // A target that is itself large is on the map: one walk.
      const large = layoutLarge(this.world).filter((id) => this.cls(id) === target);
      if (large.length) {
        this.verdict = this.act('WALK', large[0]);
        return;
      }
    }
    const objects = constrained ? [target, c!.anchor.class] : [target];
    let ranking = yield* this.askRooms(objects);
    if (ranking === null) return;
    // An anchor that is a room: the ranking is asked, then only that room is searched.
    if (anchorRoom) ranking = [c!.anchor.class];
    const remaining = new Set(graph.rooms);
    for (const name of ranking) {
      const ids = [...remaining].filter((r) => this.cls(r) === name);
      if (ids.length === 0) return;
      const room = this.byDistance(ids)[0];
      remaining.delete(room);
      if (!this.act('WALK', room)) return;
      let seen = this.scan();
      if (layout) seen = [...new Set([...seen, ...layoutLarge(this.world).filter((id) => this.world.state.out(id, REL.INSIDE).includes(room))])].sort((a, b) => a - b);
      let list: string[];
      let fromLlm = true;
      if (constrained) {
        const hit = this.constrainedHit(seen);
        if (hit !== null) {
          this.verdict = this.act('WALK', hit);
          return;
        }
        const classes = seen.map((id) => this.cls(id));
        if (classes.includes(target)) [list, fromLlm] = [[target], false];
        else if (classes.includes(c!.anchor.class)) [list, fromLlm] = [[c!.anchor.class], false];
        else list = yield* this.askExplore(objects, name, this.classList(seen));
      } else {
        const found = seen.filter((id) => this.cls(id) === target);
        if (found.length) {
          this.verdict = this.act('WALK', found[0]);
          return;
        }
        list = yield* this.askExplore(objects, name, this.classList(seen));
      }
      const roomNames = new Set(this.roomClasses());
      for (const big of list) {
        if (roomNames.has(big) || !seen.some((id) => this.cls(id) === big)) continue;
        let ids2 = seen.filter((id) => this.cls(id) === big);
        while (ids2.length) {
          const id = this.byDistance(ids2)[0];
          ids2 = ids2.filter((x) => x !== id);
          if (!this.act('WALK', id)) continue;
          // The spatial script walks to the target's own instances without opening or looking again.
          if (constrained && !fromLlm && big === target) continue;
          const opened = this.act('OPEN', id);
          seen = this.scan();
          const hit = constrained ? this.constrainedHit(seen) : (seen.find((x) => this.cls(x) === target) ?? null);
          if (hit !== null) {
            this.verdict = this.act('WALK', hit);
            return;
          }
          if (opened) this.act('CLOSE', id);
        }
      }
    }
  }

  /** Class names as the released scan lists them (a set: ours sorted). */
  private classList(ids: readonly number[]): string[] {
    return [...new Set(ids.map((id) => this.cls(id)))].sort();
  }

  /**
   * The spatial script's check: both classes in sight and an edge `(REL, target, anchor)` among what
   * the scan shows; the instance is the task's own when in sight, else one with an edge to an anchor.
   */
  private constrainedHit(seen: readonly number[]): number | null {
    const { item, state } = this.world;
    const c = item.constraint!;
    const target = item.targets[0];
    const set = new Set(seen);
    const rel = REL[c.relation as keyof typeof REL];
    const targets = seen.filter((id) => this.cls(id) === target.class);
    if (!seen.some((id) => this.cls(id) === c.anchor.class)) return null;
    const holds = (id: number) => state.out(id, rel).some((to) => set.has(to) && this.cls(to) === c.anchor.class);
    if (!targets.some(holds)) return null;
    if (set.has(target.id)) return target.id;
    const rels = [REL.INSIDE, REL.ON, REL.CLOSE, REL.FACING];
    return targets.find((id) => rels.some((r) => state.out(id, r).some((to) => set.has(to) && this.cls(to) === c.anchor.class))) ?? targets[0];
  }

  // ---- single-object manipulation (EmbodiedAI: robot_task.py nav_manipulate_single[_constrained]) ----

  /** The verb and first id of the action before the last, as `task_env.action_history[-2]`. */
  private beforeLast(): { verb: string; id: number } | null {
    const a = this.world.actions.at(-2);
    const m = a === undefined ? null : /^\[(\w+)\][^(]*\((\d+)\)/.exec(a);
    return m === null ? null : { verb: m[1], id: Number(m[2]) };
  }

  private *manipulation(): Generator<Decision, void, string[] | null> {
    const { item } = this.world;
    const goal = item.criteria[0].find((c) => c.from !== 'character')!;
    const object = (goal.from as { class: string }).class;
    const dest = goal.to.class;
    const oc = item.constraint;
    const dc = item.destination_constraint;
    const objectId = oc ? yield* this.exploreConstrained(object, oc.anchor.class, oc.relation) : yield* this.explore(object);
    if (!objectId) return;
    const prev = this.beforeLast();
    let grabbed: boolean;
    if (prev !== null && prev.verb === 'open' && this.world.actions.length > 2) {
      grabbed = this.act('GRAB', objectId);
      this.act('CLOSE', prev.id);
    } else grabbed = this.act('GRAB', objectId);
    if (!grabbed) return;
    const destId = dc ? yield* this.exploreConstrained(dest, dc.anchor.class, dc.relation) : yield* this.explore(dest);
    if (!destId) return;
    const before = this.beforeLast();
    const put = () => (goal.relation === 'INSIDE' ? this.putInClose(objectId, destId) : this.putOn(objectId, destId));
    if (before !== null && before.verb === 'open') {
      this.verdict = put();
      this.act('CLOSE', before.id);
    } else this.verdict = put();
  }

  private putIn(x: number, y: number): boolean {
    return this.act('PUTIN', x, y) || this.act('PUTBACK', x, y);
  }

  private putOn(x: number, y: number): boolean {
    return this.act('PUTBACK', x, y) || this.act('PUTIN', x, y);
  }

  private putInClose(x: number, y: number): boolean {
    const opened = this.act('OPEN', y);
    const ok = this.putIn(x, y);
    if (opened) this.act('CLOSE', y);
    return ok;
  }

  /** Seen instances of a class, nearest first, walked to until one walk succeeds: its id, false (every walk failed) or null (none seen). */
  private walkToSeen(name: string): number | false | null {
    const ids = [...this.memory].filter((id) => this.cls(id) === name && !this.world.graph.isRoom(id));
    if (ids.length === 0) return null;
    for (const id of this.byDistance(ids)) {
      const ok = this.act('WALK', id);
      this.explored.add(id);
      if (ok) return id;
    }
    return false;
  }

  /** Memory items not explored yet (rooms and the character left out). */
  private remainingItems(): number[] {
    const g = this.world.graph;
    return [...this.memory].filter((id) => !g.isRoom(id) && id !== g.characterId && !this.explored.has(id)).sort((a, b) => a - b);
  }

  private *blockers(objects: string[]): Generator<Decision, Array<[string, number[]]>, string[] | null> {
    const remaining = this.remainingItems();
    const list = yield* this.askExplore(objects, '', this.classList(remaining));
    const out: Array<[string, number[]]> = [];
    for (const name of list.slice(0, BLOCKER_MAX)) {
      const ids = remaining.filter((id) => this.cls(id) === name);
      if (ids.length) out.push([name, ids]);
    }
    return out;
  }

  private *explore(name: string): Generator<Decision, number | false | null, string[] | null> {
    const seen = this.walkToSeen(name);
    if (seen !== null) return seen;
    const rooms = yield* this.askRooms([name]);
    if (rooms === null) return null;
    for (const roomName of rooms) {
      const r = yield* this.exploreRoomName(name, roomName);
      if (r !== null) return r;
    }
    return null;
  }

  private *exploreRoomName(name: string, roomName: string): Generator<Decision, number | false | null, string[] | null> {
    for (const room of this.byDistance(this.world.graph.rooms.filter((r) => this.cls(r) === roomName))) {
      if (!this.act('WALK', room)) return false;
      const seen = this.walkToSeen(name);
      if (seen !== null) return seen;
      for (const [, ids] of yield* this.blockers([name])) {
        let left = ids;
        while (left.length) {
          const id = this.byDistance(left)[0];
          left = left.filter((x) => x !== id);
          const ok = this.act('WALK', id);
          this.explored.add(id);
          if (!ok) continue;
          const a = this.walkToSeen(name);
          if (a !== null) return a;
          this.act('OPEN', id);
          const b = this.walkToSeen(name);
          if (b !== null) return b;
          this.act('CLOSE', id);
        }
      }
    }
    return null;
  }

  /** A memory edge `item REL anchor` between remaining items of the two classes: walk to that item. */
  private walkToConstrained(name: string, anchor: string, rel: string): { ok: boolean | null; items: number[]; anchors: number[] } {
    const remaining = this.remainingItems();
    const items = remaining.filter((id) => this.cls(id) === name);
    const anchors = remaining.filter((id) => this.cls(id) === anchor);
    for (const i of items) {
      for (const a of anchors) {
        if (!this.memoryEdges.has(`${i} ${REL[rel as keyof typeof REL]} ${a}`)) continue;
        const ok = this.act('WALK', i);
        this.explored.add(i);
        return { ok, items: [i], anchors: [a] };
      }
    }
    return { ok: null, items, anchors };
  }

  private walkSearchConstrained(name: string, anchor: string, rel: string): number | false | null {
    const first = this.walkToConstrained(name, anchor, rel);
    if (first.ok) return first.items[0];
    if (first.ok === false) return false;
    const visited: number[] = [];
    const anchors = new Set(first.anchors);
    for (const id of [...new Set([...first.items, ...first.anchors])].sort((a, b) => a - b)) {
      const ok = this.act('WALK', id);
      visited.push(id);
      if (!ok) return false;
      if (rel === 'INSIDE' && anchors.has(id)) this.act('OPEN', id);
      const again = this.walkToConstrained(name, anchor, rel);
      if (again.ok) {
        for (const v of visited) this.explored.add(v);
        return again.items[0];
      }
    }
    for (const v of visited) this.explored.add(v);
    return null;
  }

  private *exploreConstrained(name: string, anchor: string, rel: string): Generator<Decision, number | false | null, string[] | null> {
    if (this.roomClasses().includes(anchor)) return yield* this.exploreRoomName(name, anchor);
    const here = this.walkSearchConstrained(name, anchor, rel);
    if (here !== null) return here;
    const rooms = yield* this.askRooms([name, anchor]);
    if (rooms === null) return null;
    for (const roomName of rooms) {
      for (const room of this.byDistance(this.world.graph.rooms.filter((r) => this.cls(r) === roomName))) {
        if (!this.act('WALK', room)) return false;
        const r = this.walkSearchConstrained(name, anchor, rel);
        if (r !== null) return r;
        for (const [, ids] of yield* this.blockers([name, anchor])) {
          let left = ids;
          while (left.length) {
            const id = this.byDistance(left)[0];
            left = left.filter((x) => x !== id);
            this.act('WALK', id);
            this.explored.add(id);
            const r2 = this.walkSearchConstrained(name, anchor, rel);
            if (r2 !== null) return r2;
          }
        }
      }
    }
    return null;
  }

  // ---- multi-object and temporal (navigation_manipulation_multiple_objects/inference_exploration_*.py) ----

  /** robot_find_one_object: in sight, else seen before, else rooms in the LLM's order and objects it names. */
  private *findOne(name: string): Generator<Decision, number | null, string[] | null> {
    const inSight = () => this.scan().filter((id) => this.cls(id) === name);
    const here = inSight();
    if (here.length) return this.act('WALK', here[0]) ? here[0] : null;
    for (const id of [...this.memory].filter((x) => this.cls(x) === name).sort((a, b) => a - b)) {
      this.explored.add(id);
      if (this.act('WALK', id)) return id;
    }
    const ranking = yield* this.askRooms([name]);
    if (ranking === null) return null;
    const remaining = new Set(this.world.graph.rooms);
    for (const roomName of ranking) {
      const ids = [...remaining].filter((r) => this.cls(r) === roomName);
      if (ids.length === 0) return null;
      const room = this.byDistance(ids)[0];
      remaining.delete(room);
      if (!this.act('WALK', room)) return null;
      let seen = this.scan();
      const found = seen.filter((id) => this.cls(id) === name);
      if (found.length) return this.act('WALK', found[0]) ? found[0] : null;
      const list = yield* this.askExplore([name], roomName, this.classList(seen));
      for (const big of list) {
        let ids2 = seen.filter((id) => this.cls(id) === big && !this.world.graph.isRoom(id));
        while (ids2.length) {
          const id = this.byDistance(ids2)[0];
          ids2 = ids2.filter((x) => x !== id);
          if (!this.act('WALK', id)) continue;
          const opened = this.act('OPEN', id);
          seen = this.scan();
          const hit = seen.find((x) => this.cls(x) === name);
          if (hit !== undefined) return this.act('WALK', hit) ? hit : null;
          if (opened) this.act('CLOSE', id);
        }
      }
    }
    return null;
  }

  private *pickOne(name: string): Generator<Decision, number | null, string[] | null> {
    const id = yield* this.findOne(name);
    if (id === null) return null;
    return this.act('GRAB', id) ? id : null;
  }

  /**
   * Open, put (put, else putin), close, each failure ending the task: the one-arm and temporal scripts'
   * order. They open a destination that can be opened and is not a box (temporal: whatever the
   * relation; one arm: into it only).
   */
  private deliver(x: number, y: number, open: boolean): boolean {
    const openable = open && this.world.graph.node(y)!.properties.has('CAN_OPEN') && this.cls(y) !== 'box';
    if (openable && !this.act('OPEN', y)) return false;
    if (!this.putOn(x, y)) return false;
    return openable ? this.act('CLOSE', y) : true;
  }

  private *multi(): Generator<Decision, void, string[] | null> {
    const { item } = this.world;
    const places = item.criteria.flat().filter((c) => c.from !== 'character');
    if (item.task === 'temporal') {
      // inference_exploration_temp.py: pick x, find b, put x there, grab b, find d, put b there.
      const [first, second] = [item.criteria[0].find((c) => c.from !== 'character')!, item.criteria[1]?.find((c) => c.from !== 'character')];
      const x = yield* this.pickOne((first.from as { class: string }).class);
      if (x === null) return;
      const b = yield* this.findOne(first.to.class);
      if (b === null || !this.deliver(x, b, true)) return;
      if (second === undefined) {
        this.verdict = true;
        return;
      }
      if (!this.act('GRAB', b)) return;
      const d = yield* this.findOne(second.to.class);
      if (d === null) return;
      this.verdict = this.deliver(b, d, true);
      return;
    }
    const dest = places[0].to.class;
    const rel = places[0].relation;
    if (item.arms === 1) {
      for (const p of places) {
        const x = yield* this.pickOne((p.from as { class: string }).class);
        if (x === null) return;
        const y = yield* this.findOne(dest);
        if (y === null || !this.deliver(x, y, rel === 'INSIDE')) return;
      }
      this.verdict = true;
      return;
    }
    // Two arms (inference_exploration_*_both.py): grab both first, then find the destination.
    const x1 = yield* this.pickOne((places[0].from as { class: string }).class);
    if (x1 === null) return;
    const x2 = yield* this.pickOne((places[1].from as { class: string }).class);
    if (x2 === null) return;
    const y = yield* this.findOne(dest);
    if (y === null) return;
    if (this.putOn(x1, y)) {
      this.verdict = this.putOn(x2, y);
      return;
    }
    // A closed destination: free a hand on a surface in sight, open, put the second, fetch the first.
    const surfaces = this.scan().filter((id) => this.world.graph.node(id)!.properties.has('SURFACES') && id !== y && !heldBy(this.world.state).includes(id));
    let freed = false;
    for (const s of surfaces) {
      if (!this.act('WALK', s)) continue;
      if (this.putOn(x1, s)) {
        freed = true;
        break;
      }
    }
    if (!freed || !this.act('WALK', y) || !this.act('OPEN', y) || !this.putOn(x2, y)) return;
    if (!this.act('WALK', x1) || !this.act('GRAB', x1) || !this.act('WALK', y)) return;
    this.verdict = this.putOn(x1, y);
    if (this.verdict && this.world.state.hasState(y, 'OPEN')) this.act('CLOSE', y);
  }
}

/**
 * Baselines of the released protocol, standing in for its LLM: `released-list` ranks the rooms in the
 * order the question lists them and names every object offered, in order; `released-none` ranks the
 * rooms the same way and names no object (the controller alone). They show what the released controller
 * does on an apartment without a model's common sense.
 */
export function releasedPolicy(kind: 'list' | 'none'): (items: unknown, o: BaselineOptions) => EpisodePolicy {
  return (_items, o) => ({
    name: o.name,
    protocol: 'released',
    act(e) {
      if (!(e instanceof ReleasedEpisode)) throw new Error(`released-${kind} plays released-protocol episodes only`);
      const q = e.question();
      if (q === null) return '';
      // CoT reads the last line: the answer goes on a line of its own.
      const answer = q.kind === 'explore' && kind === 'none' ? 'None' : pyList(q.options);
      return e.prompting === 'cot' ? `Answer:\n${answer}` : answer;
    },
  });
}
