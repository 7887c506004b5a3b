/**
 * ET-Plan-Bench episodes on the engine (docs/et-plan.md, "The episode loop"). `EtPlanWorld` holds one
 * episode's engine state (repaired mode), the character's position and moving distance, what it sees,
 * and the criteria progress checked after every action; `StepEpisode` is the step protocol: each reply
 * is one engine action, read from the reply, checked against the task's rules, executed, and recorded.
 */
import type { ControllerAction, EpisodeRecord, EpisodeStep } from '../../formats/episodes.js';
import { GsrError } from '../../util/errors.js';
import type { DraftPrompt, Episode } from '../types.js';
import { ACTION_GRAMMAR, AGENT_ACTIONS, extractAction, heldBy } from './actions.js';
import { doorRouteLength, doorsOf, type Door } from './engine/distance.js';
import {
  EngineState, REL, executeLine, isCloseTo, nodePosition, parseScriptLine, roomOf, segmentLength,
  type EngineGraph, type ScriptLine, type Vec3,
} from './engine/index.js';
import { advanceCriteria, armsAllow, type CriteriaProgress } from './monitor.js';
import { startState } from './plans.js';
import { observationDigest, observationText, observe, type Observation } from './observation.js';
import type { Perception } from './perception.js';
import type { EpisodeSettings, StartPoint } from './settings.js';
import { spawnPoint } from './spawn.js';
import type { EtPlanItem } from './task.js';

/** What executing one action gave. */
export interface ActionResult {
  ok: boolean;
  error: string | null;
  /** The executed line as the record writes it (graph class names), or null when it did not parse. */
  line: string | null;
}

/** A parsed line in the record's form: lower-case verb, the graph's class names, ids. */
export function canonicalLine(graph: EngineGraph, line: ScriptLine): string {
  return [`[${line.action.toLowerCase()}]`, ...line.params.map((p) => `<${graph.node(p.id)?.className ?? p.name}> (${p.idText})`)].join(' ');
}

export class EtPlanWorld {
  state: EngineState;
  /** Where the character stands: its start room's centre, then its last walk target's centre. */
  position: Vec3;
  /** The base-graph room of `position` (for the door route). */
  private positionRoom: number | null;
  distance = 0;
  /** The released recorder's distance: straight segments through `[walk]` targets only (finds that walk do not count). */
  walkDistance = 0;
  /** Where the released recorder has the character: the start, then its last `[walk]` target. */
  private walkPosition: Vec3;
  /** The completion monitor over the states so far (monitor.ts). */
  monitor: CriteriaProgress;
  /** Lines that executed without error, in order. */
  readonly actions: string[] = [];
  /** Engine actions tried (executed or failed; the paper protocol's step count). */
  tried = 0;
  private readonly doors: Door[];
  /** The base graph's state (rooms of walk targets for the door route). */
  private readonly base: EngineState;
  private seen: { state: EngineState; position: Vec3; obs: Observation } | undefined;

  constructor(
    readonly item: EtPlanItem,
    readonly graph: EngineGraph,
    readonly perception: Perception,
    readonly route: EpisodeSettings['route'],
    /** The layout map's prompt lines, when the settings show it. */
    readonly layout: string | null = null,
    /** Where the character stands at step 1 (settings.ts, `start`). */
    start: StartPoint = 'centre',
  ) {
    const room = graph.node(item.start_room.id);
    if (room === undefined || !graph.isRoom(room.id)) throw new GsrError(`item ${item.id}: start room ${item.start_room.id} is not a room of ${item.apartment}`);
    // The character is walked into its start room before step 1 (task.ts); that walk is not counted.
    this.state = startState(graph, room.id);
    this.position = start === 'spawn' ? spawnPoint(graph, room.id) : nodePosition(graph, room.id);
    this.walkPosition = this.position;
    this.positionRoom = room.id;
    this.doors = route === 'doors' ? doorsOf(graph) : [];
    this.base = EngineState.initial(graph);
    this.monitor = advanceCriteria(item, this.state);
  }

  /** Criteria steps met so far. */
  get progress(): number {
    return this.monitor.met;
  }

  get success(): boolean {
    return this.monitor.done;
  }

  observation(): Observation {
    if (this.seen?.state !== this.state || this.seen.position !== this.position) {
      this.seen = { state: this.state, position: this.position, obs: observe(this.state, this.perception.see(this.state, this.position)) };
    }
    return this.seen.obs;
  }

  /** Executes one parsed line under the task's rules, in the engine's repaired mode. */
  execute(line: ScriptLine): ActionResult {
    this.tried++;
    const text = canonicalLine(this.graph, line);
    if (!(AGENT_ACTIONS as readonly string[]).includes(line.action)) {
      return { ok: false, error: `action ${line.action} is not allowed (allowed: ${AGENT_ACTIONS.map((a) => a.toLowerCase()).join(', ')})`, line: text };
    }
    const arm = armsAllow(this.item, this.state, line);
    if (arm !== null) return { ok: false, error: arm, line: text };
    const before = this.state;
    const out = executeLine(before, line, { mode: 'repaired' });
    if (!out.ok) return { ok: false, error: out.exception ?? (out.messages.join(',') || 'the action failed without a message'), line: text };
    this.state = out.state;
    this.actions.push(text);
    const target = line.params[0]?.id;
    const walked = line.action === 'WALK' || line.action === 'RUN' ||
      (line.action === 'FIND' && !(before.has(target, REL.ON, before.characterId) || this.graph.node(target)!.properties.has('BODY_PART') || isCloseTo(before, target)));
    if (walked) this.moveTo(target);
    if (line.action === 'WALK') {
      const p = nodePosition(this.graph, target);
      this.walkDistance += segmentLength(this.walkPosition, p);
      this.walkPosition = p;
    }
    this.monitor = advanceCriteria(this.item, this.state, this.monitor);
    return { ok: true, error: null, line: text };
  }

  /** Parses and executes a line of text (the line number goes into engine messages). */
  executeText(text: string, index: number): ActionResult {
    const parsed = parseScriptLine(text, index);
    if (!parsed.ok) {
      this.tried++;
      return { ok: false, error: `${parsed.exception}: ${parsed.message}`, line: null };
    }
    return this.execute(parsed.line);
  }

  private moveTo(target: number): void {
    const p = nodePosition(this.graph, target);
    const room = roomOf(this.base, target);
    this.distance += this.route === 'straight' ? segmentLength(this.position, p) : doorRouteLength(this.doors, this.position, this.positionRoom, p, room);
    this.position = p;
    this.positionRoom = room;
  }

  /** The record fields that describe the world after a step. */
  stepFields(): Pick<EpisodeStep, 'obs' | 'room' | 'held' | 'progress' | 'distance'> {
    const o = this.observation();
    return { obs: observationDigest(o), room: o.room, held: heldBy(this.state), progress: this.progress, distance: this.distance };
  }
}

/** The parts of a record every protocol fills the same way. */
export function episodeRecord(world: EtPlanWorld, variant: string, steps: EpisodeStep[], startObs: string, model: string, end: EpisodeRecord['end'], failed?: string): EpisodeRecord {
  const item = world.item;
  return {
    item: item.id, task: item.task, level: item.level, subsets: [...item.subsets], model, variant,
    status: failed === undefined ? 'ok' : 'failed', error: failed ?? null, success: world.success, end,
    step_cap: item.step_cap, criteria_steps: item.criteria.length, start_obs: startObs, steps, actions: [...world.actions], distance: world.distance,
    walk_distance: world.walkDistance,
  };
}

/** The step protocol: one engine action per reply. */
export class StepEpisode implements Episode {
  readonly steps: EpisodeStep[] = [];
  private readonly startObs: string;

  constructor(
    readonly world: EtPlanWorld,
    readonly variant: string,
  ) {
    this.startObs = observationDigest(world.observation());
  }

  get done(): boolean {
    return this.world.success || this.steps.length >= this.world.item.step_cap;
  }

  prompt(): DraftPrompt {
    const { item } = this.world;
    return { item: item.id, task: item.task, level: item.level, variant: this.variant, parts: [{ type: 'text', text: stepPromptText(this.world, this.steps) }] };
  }

  reply(text: string, key: string | null): EpisodeStep {
    const step = this.steps.length + 1;
    const action = extractAction(text);
    const r: ActionResult = action === null
      ? { ok: false, error: 'no action could be read from the reply (no [verb] in it)', line: null }
      : this.world.executeText(action, step);
    const record: EpisodeStep = { step, key, reply: text, action: r.line ?? action, ok: r.ok, error: r.error, ...this.world.stepFields() };
    this.steps.push(record);
    return record;
  }

  record(model: string, failed?: string): EpisodeRecord {
    const end = failed !== undefined ? 'failed' : this.world.success ? 'success' : 'cap';
    return episodeRecord(this.world, this.variant, this.steps, this.startObs, model, end, failed);
  }
}

/** How a past step reads in a prompt. */
export function stepSummary(s: Pick<EpisodeStep, 'action' | 'ok' | 'error' | 'controller'>): string {
  const what = s.action ?? '(no action read)';
  return `${what}: ${s.ok ? 'done' : 'failed'}`;
}

/** The task lines every prompt starts with (and the layout map, when shown). */
export function taskLines(world: EtPlanWorld): string[] {
  const { item } = world;
  return [
    'You are a household robot in an apartment. Complete the task below.',
    '',
    `Task: ${item.instruction}`,
    ...(item.arms === 1 ? ['Use one arm: hold at most one object at a time.'] : ['You may use both arms: you can hold two objects.']),
    ...(world.layout === null ? [] : ['', world.layout]),
  ];
}

/** The step protocol's prompt. */
export function stepPromptText(world: EtPlanWorld, steps: readonly EpisodeStep[]): string {
  const k = steps.length + 1;
  const last = steps[steps.length - 1];
  const lastText = last === undefined ? 'none yet.' : last.ok ? `${last.action}: done.` : `${last.action ?? '(no action read)'}: failed: ${last.error}`;
  return [
    ...taskLines(world),
    '',
    `Step ${k} of at most ${world.item.step_cap}.`,
    observationText(world.state, world.observation()),
    '',
    `Last action: ${lastText}`,
    'Previous actions:',
    ...(steps.length ? steps.map((s) => `${s.step}. ${stepSummary(s)}`) : ['(none)']),
    '',
    'Actions (one per reply, in this syntax, with the names and ids above):',
    ACTION_GRAMMAR,
    '',
    `Think if you need to, then give your action on the last line, for example: [walk] <${world.graph.node(world.item.start_room.id)!.className}> (${world.item.start_room.id})`,
  ].join('\n');
}

/** Controller actions as the record writes them. */
export function controllerRecord(results: ActionResult[]): ControllerAction[] {
  return results.map((r) => ({ line: r.line ?? '', ok: r.ok, error: r.error }));
}
