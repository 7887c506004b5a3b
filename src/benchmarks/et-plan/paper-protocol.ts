/**
 * The paper's agent protocol (ET-Plan-Bench section 4.2, "LLM agent"; docs/et-plan.md, "The paper's
 * protocol"): the LLM ranks the rooms to search, picks which visible object to explore, and says which
 * found instance the task means; a fixed controller does the rest (walk to the room, look, walk to the
 * chosen object and open it when it is a closed container, grab, walk to the destination, open it,
 * put). The controller works through the task's criteria as sub-goals, by class name only (never by
 * the criteria's ids), and remembers every object it has seen. The step cap counts engine actions
 * and unreadable replies.
 */
import type { EpisodeRecord, EpisodeStep } from '../../formats/episodes.js';
import type { DraftPrompt, Episode } from '../types.js';
import { heldBy } from './actions.js';
import { REL, roomOf, scriptLine, type ActionName } from './engine/index.js';
import { controllerRecord, episodeRecord, taskLines, type ActionResult, type EtPlanWorld } from './episode.js';
import { isStructure, nodeName, observationDigest, observationText } from './observation.js';
import type { Criterion, NodeRef } from './task.js';

type DecisionKind = 'rooms' | 'choose' | 'explore';

/** A question to the LLM and how its reply is read (null: unreadable). */
interface Decision {
  kind: DecisionKind;
  text: string;
  read(reply: string): { summary: string; value: number[] | number | 'none' } | null;
}

type Goal = { kind: 'reach'; target: NodeRef; step: number } | { kind: 'place'; object: NodeRef; dest: NodeRef; relation: Criterion['relation']; step: number };

/** The cap or success ends the controller wherever it is. */
class Stop extends Error {}

/** Sub-goals from the criteria: within a criteria step, placements first, then places to reach. */
export function goalsOf(criteria: readonly (readonly Criterion[])[]): Goal[] {
  return criteria.flatMap((step, k) => {
    const place: Goal[] = [];
    const reach: Goal[] = [];
    for (const c of step) {
      if (c.from === 'character') reach.push({ kind: 'reach', target: c.to, step: k });
      else place.push({ kind: 'place', object: c.from, dest: c.to, relation: c.relation, step: k });
    }
    return [...place, ...reach];
  });
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The ids a line names in parentheses, in order. */
const idsIn = (line: string) => [...line.matchAll(/\((\d+)\)/g)].map((m) => Number(m[1]));

/** Lines of a reply, last first, trimmed, without empty ones. */
const linesLastFirst = (reply: string) => reply.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '').reverse();

export class PaperEpisode implements Episode {
  readonly steps: EpisodeStep[] = [];
  private readonly startObs: string;
  private readonly run: Generator<Decision, void, string>;
  private pending: Decision | undefined;
  private ended: EpisodeRecord['end'] | undefined;
  /** Replies that could not be read (they count towards the cap). */
  private unreadable = 0;
  private actionsOfStep: ActionResult[] = [];
  /** Every non-room object seen, with the room it was seen in. */
  private readonly memory = new Map<number, number | null>();
  /** Objects already explored (walked to, opened). */
  private readonly explored = new Set<number>();

  constructor(
    readonly world: EtPlanWorld,
    readonly variant: string,
  ) {
    this.startObs = observationDigest(world.observation());
    this.remember();
    this.run = this.controller();
    this.advance(undefined);
  }

  get done(): boolean {
    return this.ended !== undefined;
  }

  prompt(): DraftPrompt {
    const { item } = this.world;
    const k = this.steps.length + 1;
    const last = this.steps[this.steps.length - 1];
    const note = last !== undefined && !last.ok ? [`Your last reply could not be read: ${last.error}`, ''] : [];
    const text = [...taskLines(this.world), '', `Decision ${k}; actions used: ${this.used()} of at most ${item.step_cap}.`, ...note, this.pending!.text].join('\n');
    return { item: item.id, task: item.task, level: item.level, variant: this.variant, parts: [{ type: 'text', text }] };
  }

  reply(text: string, key: string | null): EpisodeStep {
    const decision = this.pending!;
    const read = decision.read(text);
    const step = this.steps.length + 1;
    this.actionsOfStep = [];
    if (read === null) {
      this.unreadable++;
      if (this.used() >= this.world.item.step_cap) this.ended = 'cap';
    } else this.advance(read.value);
    const record: EpisodeStep = {
      step, key, reply: text, action: read === null ? null : `${decision.kind}: ${read.summary}`, ok: read !== null,
      error: read === null ? `no ${decision.kind === 'rooms' ? 'room' : 'choice'} could be read from the reply` : null,
      controller: controllerRecord(this.actionsOfStep), ...this.world.stepFields(),
    };
    this.steps.push(record);
    return record;
  }

  record(model: string, failed?: string): EpisodeRecord {
    return episodeRecord(this.world, this.variant, this.steps, this.startObs, model, failed !== undefined ? 'failed' : (this.ended ?? 'cap'), failed);
  }

  private used(): number {
    return this.world.tried + this.unreadable;
  }

  /** Feeds the controller one decision's value and runs it to its next decision or its end. */
  private advance(value: unknown): void {
    try {
      const r = this.run.next(value as string);
      if (r.done) this.ended = this.world.success ? 'success' : 'exhausted';
      else this.pending = r.value;
    } catch (err) {
      if (!(err instanceof Stop)) throw err;
      this.ended = this.world.success ? 'success' : 'cap';
    }
  }

  private remember(): void {
    const g = this.world.graph;
    const o = this.world.observation();
    for (const id of o.visible) if (!g.isRoom(id) && !isStructure(g, id) && id !== g.characterId) this.memory.set(id, o.room);
  }

  /** Executes one controller action; stops the controller at success or the cap. */
  private act(action: ActionName, ...ids: number[]): boolean {
    const g = this.world.graph;
    const r = this.world.execute(scriptLine(action, ids.map((id) => ({ name: g.node(id)!.className, id }))));
    this.actionsOfStep.push(r);
    this.remember();
    if (this.world.success || this.used() >= this.world.item.step_cap) throw new Stop();
    return r.ok;
  }

  private *controller(): Generator<Decision, void, string> {
    const goals = goalsOf(this.world.item.criteria);
    for (const goal of goals) {
      if (this.world.progress > goal.step) continue;
      if (goal.kind === 'reach') {
        const id = yield* this.find(goal.target.class, `reach a ${goal.target.class}`);
        if (id === null) return;
        this.act('WALK', id);
        continue;
      }
      const { state } = this.world;
      let object = heldBy(state).find((h) => state.node(h)!.className === goal.object.class);
      if (object === undefined) {
        const id = yield* this.find(goal.object.class, `pick up a ${goal.object.class}`);
        if (id === null) return;
        this.act('WALK', id);
        // A closed container on the way is opened first.
        for (const p of this.world.state.out(id, REL.INSIDE)) if (this.openable(p)) this.act('OPEN', p);
        if (!this.act('GRAB', id)) continue;
        object = id;
      }
      const dest = yield* this.find(goal.dest.class, `put the ${goal.object.class} ${goal.relation === 'INSIDE' ? 'into' : 'onto'} a ${goal.dest.class}`);
      if (dest === null) return;
      this.act('WALK', dest);
      if (goal.relation === 'INSIDE' && this.openable(dest)) this.act('OPEN', dest);
      this.act(goal.relation === 'INSIDE' ? 'PUTIN' : 'PUTBACK', object, dest);
    }
  }

  /** A closed container the controller can open. */
  private openable(id: number): boolean {
    const s = this.world.state;
    return !s.graph.isRoom(id) && s.node(id)!.properties.has('CAN_OPEN') && s.hasState(id, 'CLOSED');
  }

  /**
   * Finds an instance of a class: offers what is known (seen now or before) for the LLM to choose;
   * otherwise searches the rooms in the LLM's order, exploring the objects it picks. Null when every
   * room was searched.
   */
  private *find(cls: string, purpose: string): Generator<Decision, number | null, string> {
    const g = this.world.graph;
    const rejected = new Set<number>();
    let order: number[] | null = null;
    let at = 0;
    const doneRooms = new Set<number>();
    for (;;) {
      const held = new Set(heldBy(this.world.state));
      const known = [...this.memory.keys()].filter((id) => g.node(id)!.className === cls && !rejected.has(id) && !held.has(id)).sort((a, b) => a - b);
      if (known.length) {
        const v = yield* this.ask(this.chooseDecision(cls, purpose, known));
        if (v !== 'none') return v as number;
        for (const id of known) rejected.add(id);
        continue;
      }
      if (order === null) {
        order = (yield* this.ask(this.roomsDecision(cls, purpose))) as number[];
        at = 0;
        this.act('WALK', order[0]);
        continue;
      }
      const room = roomOf(this.world.state, this.world.state.characterId);
      const candidates = room === null || doneRooms.has(room) ? [] : this.world.observation().visible.filter((id) => this.explorable(id));
      if (candidates.length) {
        const v = yield* this.ask(this.exploreDecision(cls, purpose, candidates));
        if (v !== 'none') {
          const id = v as number;
          this.explored.add(id);
          this.act('WALK', id);
          if (this.openable(id)) this.act('OPEN', id);
          continue;
        }
      }
      if (room !== null) doneRooms.add(room);
      if (++at >= order.length) return null;
      this.act('WALK', order[at]);
    }
  }

  /** Asks until the reply is readable (each unreadable reply is a step, so the cap ends it). */
  private *ask(d: Decision): Generator<Decision, number[] | number | 'none', string> {
    return (yield d) as unknown as number[] | number | 'none';
  }

  private explorable(id: number): boolean {
    const n = this.world.graph.node(id)!;
    if (this.world.graph.isRoom(id) || isStructure(this.world.graph, id) || this.explored.has(id) || heldBy(this.world.state).includes(id)) return false;
    return n.properties.has('CAN_OPEN') || n.properties.has('CONTAINERS') || n.properties.has('SURFACES');
  }

  private context(cls: string, purpose: string): string[] {
    const g = this.world.graph;
    const seen = [...this.memory].filter(([id]) => !this.world.observation().visible.includes(id)).map(([id, r]) => `${nodeName(g, id)} in the ${r === null ? '?' : nodeName(g, r)}`);
    return [
      `You are looking for: a ${cls} (to ${purpose}).`,
      observationText(this.world.state, this.world.observation()),
      `Seen before elsewhere: ${seen.length ? seen.join(', ') : 'nothing'}.`,
      '',
    ];
  }

  private roomsDecision(cls: string, purpose: string): Decision {
    const g = this.world.graph;
    const rooms = g.rooms;
    return {
      kind: 'rooms',
      text: [...this.context(cls, purpose), `In which order should the rooms be searched for the ${cls}? Give every room, most likely first, on the last line, for example: ${rooms.map((r) => nodeName(g, r)).join(', ')}`].join('\n'),
      read(reply) {
        for (const line of linesLastFirst(reply)) {
          const lower = line.toLowerCase();
          const named = rooms
            .map((r) => ({ r, at: Math.min(...[lower.indexOf(`(${r})`), lower.search(new RegExp(`\\b${escapeRegExp(g.node(r)!.className.toLowerCase())}\\b`))].filter((i) => i >= 0)) }))
            .filter((x) => Number.isFinite(x.at))
            .sort((a, b) => a.at - b.at || a.r - b.r)
            .map((x) => x.r);
          if (named.length === 0) continue;
          const order = [...named, ...rooms.filter((r) => !named.includes(r))];
          return { summary: order.map((r) => nodeName(g, r)).join(', '), value: order };
        }
        return null;
      },
    };
  }

  /** A decision among listed objects, or none. */
  private pickDecision(kind: 'choose' | 'explore', question: string, cls: string, purpose: string, options: number[]): Decision {
    const g = this.world.graph;
    const s = this.world.state;
    const where = (id: number) => {
      const rel = [...s.out(id, REL.INSIDE).filter((p) => !g.isRoom(p)).map((p) => `inside ${nodeName(g, p)}`), ...s.out(id, REL.ON).map((p) => `on ${nodeName(g, p)}`)];
      const room = this.memory.get(id);
      return `${nodeName(g, id)}${rel.length ? `, ${rel.join(', ')}` : ''}${room != null ? `, in the ${nodeName(g, room)}` : ''}`;
    };
    return {
      kind,
      text: [...this.context(cls, purpose), question, ...options.map((id) => `- ${where(id)}`), '', 'Reply with one of them as name (id) on the last line, or none.'].join('\n'),
      read(reply) {
        for (const line of linesLastFirst(reply)) {
          const id = idsIn(line).find((i) => options.includes(i));
          if (id !== undefined) return { summary: nodeName(g, id), value: id };
          if (/\bnone\b/i.test(line)) return { summary: 'none', value: 'none' };
        }
        return null;
      },
    };
  }

  private chooseDecision(cls: string, purpose: string, options: number[]): Decision {
    return this.pickDecision('choose', `Which ${cls} does the task mean? Known ${cls} objects (answer none to keep searching):`, cls, purpose, options);
  }

  private exploreDecision(cls: string, purpose: string, options: number[]): Decision {
    return this.pickDecision('explore', `No ${cls} is in sight. Which object here should be explored (walked to, and opened if closed)? Answer none to search the next room:`, cls, purpose, options);
  }
}
