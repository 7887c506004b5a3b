/**
 * The actions ET-Plan-Bench uses, with the reference engine's checks (in its order, with its
 * messages), effects and quirks (docs/et-plan.md, "Actions"). `reference` mode reproduces the
 * reference, defects included; `repaired` fixes the two that block agents (find, standup).
 */
import { lineText, parseScriptLine, paramText, type ActionName, type ScriptLine, type ScriptParam } from './script.js';
import { REL, type EngineNode, type RelCode } from './graph.js';
import { EngineState, type Anchor, type Draft, type GraphView } from './state.js';

/** `reference`: the reference engine as it is; `repaired`: find walks first, the character's own states are read. */
export type EngineMode = 'reference' | 'repaired';

export interface ExecuteOptions {
  mode?: EngineMode;
}

/** The actions this engine executes; other parsed actions fail with `action X is not supported by this engine`. */
export const ENGINE_ACTIONS = [
  'WALK', 'RUN', 'FIND', 'GRAB', 'OPEN', 'CLOSE', 'PUTBACK', 'PUTIN', 'PUTOBJBACK', 'SWITCHON', 'SWITCHOFF', 'DROP', 'SIT', 'STANDUP', 'TURNTO', 'LOOKAT',
] as const satisfies readonly ActionName[];

/** The exception the reference raises for `[find]` of something not already close. */
export const FIND_TYPE_ERROR = 'TypeError: JoinedExecutor.execute() takes 5 positional arguments but 7 were given';

/** The result of one step. A failed step leaves the state unchanged. */
export interface StepOutcome {
  ok: boolean;
  /** The state after the step (the input state when the step failed). */
  state: EngineState;
  /** Messages the step logged (its failed check; on success, a silent putobjback failure). */
  messages: string[];
  /** Set when the reference raises instead of failing (then `ok` is false and no message is logged). */
  exception?: string;
  /** Grab only: the anchor a successful grab remembered, or null. */
  anchor?: Anchor | null;
}

const { INSIDE, ON, CLOSE, FACING, HOLDS_RH, HOLDS_LH } = REL;
const HANDS = [HOLDS_RH, HOLDS_LH] as const;

/** Seats per class for `sit` (others take one). */
const SEATS: Readonly<Record<string, number>> = { couch: 4, bed: 4, sofa: 4, loveseat: 2, pianobench: 2, bench: 2 };

/** A node as messages print it: `<class_name> (id)`. */
export const nodeText = (n: EngineNode): string => `<${n.className}> (${n.id})`;

/**
 * The room of a node: itself if a room; with several INSIDE parents, the smallest-id room among
 * them (null if none); with one, that parent's room. Null when there is none (or INSIDE edges loop).
 */
export function roomOf(s: GraphView, id: number): number | null {
  // A chain of single parents longer than the graph has nodes is a loop.
  for (let cur = id, steps = 0; steps <= s.graph.ids.length; steps++) {
    if (s.node(cur) === undefined) return null;
    if (s.graph.isRoom(cur)) return cur;
    const parents = s.out(cur, INSIDE);
    if (parents.length === 1) {
      cur = parents[0];
      continue;
    }
    for (const p of parents) if (s.graph.isRoom(p)) return p;
    return null;
  }
  return null;
}

/** The reference's loose closeness: C CLOSE x, or C CLOSE z with z CLOSE x or x ON z. */
export function isCloseTo(s: GraphView, x: number): boolean {
  for (const z of s.out(s.characterId, CLOSE)) {
    if (z === x || s.has(z, CLOSE, x) || s.has(x, ON, z)) return true;
  }
  return false;
}

/** The hand relation holding `x`, if any. */
function holdingHand(s: GraphView, x: number): RelCode | undefined {
  return HANDS.find((h) => s.has(s.characterId, h, x));
}

/** One step's working context. */
class Step {
  readonly messages: string[] = [];
  readonly c: number;
  readonly char: EngineNode;

  constructor(
    readonly s: EngineState,
    readonly line: ScriptLine,
    readonly mode: EngineMode,
  ) {
    this.c = s.characterId;
    this.char = s.node(this.c)!;
  }

  /** Logs a failed check and returns the failure. */
  fail(text: string): StepOutcome {
    this.messages.push(`${text} when executing "${lineText(this.line)}"`);
    return { ok: false, state: this.s, messages: this.messages };
  }

  done(state: EngineState, extra: Partial<StepOutcome> = {}): StepOutcome {
    return { ok: true, state, messages: this.messages, ...extra };
  }

  /** The character's states as the checks read them: the base graph's in reference mode (a defect). */
  charStates(v: GraphView): readonly string[] {
    return this.mode === 'reference' ? this.char.states : v.states(this.c);
  }

  isSitting(v: GraphView): boolean {
    const st = this.charStates(v);
    return st.includes('SITTING') || st.includes('LYING');
  }

  node(p: ScriptParam): EngineNode {
    return this.s.node(p.id)!;
  }

  get C(): string {
    return nodeText(this.char);
  }
}

/** Walk effects on a draft (shared by walk, run and the repaired find). */
function applyWalk(d: Draft, x: EngineNode, room: number): void {
  const c = d.characterId;
  const oldRoom = roomOf(d, c);
  const held = HANDS.flatMap((h) => d.out(c, h));
  for (const rel of [INSIDE, CLOSE, FACING] as const) d.detach(c, rel);
  d.add(c, INSIDE, room);
  if (!x.isRoom) {
    d.addBoth(c, CLOSE, x.id);
    for (const p of d.out(x.id, INSIDE)) if (!d.graph.isRoom(p)) d.addBoth(c, CLOSE, p);
    for (const b of d.graph.bodyParts) d.addBoth(c, CLOSE, b);
  }
  for (const h of held) {
    for (const rel of [INSIDE, CLOSE, FACING] as const) d.detach(h, rel);
    d.addBoth(c, CLOSE, h);
    if (oldRoom !== null) d.add(h, INSIDE, oldRoom);
  }
  if (x.properties.has('CAN_OPEN')) for (const y of d.in(x.id, INSIDE)) d.addBoth(c, CLOSE, y);
  for (const y of d.out(x.id, ON)) d.addBoth(c, CLOSE, y);
}

function walk(st: Step, p: ScriptParam): StepOutcome {
  const x = st.s.node(p.id);
  if (x === undefined) return missingNode(st, p);
  if (st.isSitting(st.s)) return st.fail(`${st.C} is sitting`);
  const room = roomOf(st.s, x.id);
  if (room === null) return { ok: false, state: st.s, messages: st.messages };
  const d = st.s.edit();
  applyWalk(d, x, room);
  return st.done(d.finish());
}

/** A parameter naming no node: the reference dereferences the missing node and raises (walk, run, find). */
function missingNode(st: Step, p: ScriptParam): StepOutcome {
  return { ok: false, state: st.s, messages: st.messages, exception: `AttributeError: no node with id ${p.idText}` };
}

function find(st: Step, p: ScriptParam): StepOutcome {
  const x = st.s.node(p.id);
  if (x === undefined) return missingNode(st, p);
  let s = st.s;
  // The reference finds without walking when x is on the character, a body part or close, or when the
  // character sits (then "is not close to"); only repaired mode reads SITTING from the state.
  if (!(s.has(x.id, ON, st.c) || x.properties.has('BODY_PART') || isCloseTo(s, x.id) || st.isSitting(s))) {
    if (st.mode === 'reference') return { ok: false, state: s, messages: st.messages, exception: FIND_TYPE_ERROR };
    const walked = walk(st, p);
    if (!walked.ok) return walked;
    s = walked.state;
  }
  if (!isCloseTo(s, x.id)) return st.fail(`${st.C} is not close to ${nodeText(x)}`);
  const d = s.edit();
  d.removeOut(st.c, FACING);
  d.addBoth(st.c, CLOSE, x.id);
  return st.done(d.finish());
}

/** Grab's anchor: the smallest-id non-room node among x's ON targets, else INSIDE, else CLOSE. */
function grabAnchor(s: GraphView, x: number): Anchor | null {
  for (const [rel, name] of [[ON, 'ON'], [INSIDE, 'INSIDE'], [CLOSE, 'CLOSE']] as const) {
    for (const y of s.out(x, rel)) if (!s.graph.isRoom(y)) return [y, name];
  }
  return null;
}

function grab(st: Step, p: ScriptParam): StepOutcome {
  const { s, c } = st;
  const x = st.node(p);
  if (!(x.properties.has('GRABBABLE') || x.className === 'water' || x.className === 'child')) return st.fail(`${nodeText(x)} is not grabbable`);
  if (s.anchorOf(x.id) !== undefined) return st.fail(`${nodeText(x)} already grabbed`);
  if (!isCloseTo(s, x.id)) return st.fail(`${st.C} is not close to ${nodeText(x)}`);
  if (s.out(x.id, INSIDE).some((y) => !s.graph.isRoom(y) && s.hasState(y, 'CLOSED'))) return st.fail(`${nodeText(x)} is inside other closed thing`);
  const hand = HANDS.find((h) => s.out(c, h).length === 0);
  if (hand === undefined) return st.fail(`${st.C} does not have a free hand`);
  const anchor = grabAnchor(s, x.id);
  const room = roomOf(s, c);
  const d = s.edit();
  for (const rel of [ON, INSIDE, CLOSE, HOLDS_RH, HOLDS_LH] as const) d.detach(x.id, rel);
  d.addBoth(c, CLOSE, x.id);
  d.add(c, hand, x.id);
  if (room !== null) d.add(x.id, INSIDE, room);
  if (anchor !== null) {
    d.addBoth(c, CLOSE, anchor[0]);
    d.setAnchor(x.id, anchor);
  }
  return st.done(d.finish(), { anchor });
}

function openClose(st: Step, p: ScriptParam, open: boolean): StepOutcome {
  const { s, c } = st;
  const x = st.node(p);
  if (!(x.properties.has('CAN_OPEN') || x.className === 'desk' || x.className === 'window')) return st.fail(`${nodeText(x)} can not be opened`);
  if (!isCloseTo(s, x.id)) return st.fail(`${st.C} is not close to ${nodeText(x)}`);
  if (open && HANDS.every((h) => s.out(c, h).length > 0)) return st.fail(`${st.C} does not have a free hand`);
  if (open && !s.hasState(x.id, 'CLOSED')) return st.fail(`${nodeText(x)} is not closed`);
  if (!open && !s.hasState(x.id, 'OPEN')) return st.fail(`${nodeText(x)} is not open`);
  if (open && s.hasState(x.id, 'ON')) return st.fail(`${nodeText(x)} is still on`);
  const d = s.edit();
  d.changeStates(x.id, [open ? 'CLOSED' : 'OPEN'], [open ? 'OPEN' : 'CLOSED']);
  return st.done(d.finish());
}

/** The put checks; a message text when one fails. */
function putCheck(st: Step, x: EngineNode, y: EngineNode, inside: boolean): string | null {
  const { s } = st;
  if (holdingHand(s, x.id) === undefined) return `${st.C} is not holding ${nodeText(x)}`;
  if (!isCloseTo(s, y.id)) return `${st.C} is not close to ${nodeText(y)}`;
  if (inside && y.properties.has('CAN_OPEN') && !s.hasState(y.id, 'OPEN')) return `${nodeText(y)} is not open or is not openable`;
  return null;
}

function putEffects(st: Step, x: number, y: number, rel: RelCode): EngineState {
  const d = st.s.edit();
  for (const h of HANDS) d.remove(st.c, h, x);
  d.addBoth(st.c, CLOSE, y);
  d.addBoth(x, CLOSE, y);
  d.add(x, rel, y);
  d.setAnchor(x, undefined);
  return d.finish();
}

function put(st: Step, px: ScriptParam, py: ScriptParam, inside: boolean): StepOutcome {
  const x = st.node(px);
  const y = st.node(py);
  const failed = putCheck(st, x, y, inside);
  if (failed !== null) return st.fail(failed);
  return st.done(putEffects(st, x.id, y.id, inside ? INSIDE : ON));
}

function putObjBack(st: Step, p: ScriptParam): StepOutcome {
  const x = st.node(p);
  const anchor = st.s.anchorOf(x.id);
  if (anchor === undefined) return st.fail(`${nodeText(x)} not grabbed`);
  const y = st.s.node(anchor[0])!;
  const failed = putCheck(st, x, y, anchor[1] === 'INSIDE');
  if (failed !== null) {
    // The reference reports success here, changes nothing and keeps the message (docs/et-plan.md).
    st.fail(failed);
    return st.done(st.s);
  }
  return st.done(putEffects(st, x.id, y.id, REL[anchor[1]]));
}

function switchOnOff(st: Step, p: ScriptParam, on: boolean): StepOutcome {
  const { s } = st;
  const x = st.node(p);
  if (!x.properties.has('HAS_SWITCH')) return st.fail(`${nodeText(x)} does not have a switch`);
  if (!isCloseTo(s, x.id)) return st.fail(`${st.C} is not close to ${nodeText(x)}`);
  if (on && !s.hasState(x.id, 'OFF')) return st.fail(`${nodeText(x)} is not off`);
  if (!on && !s.hasState(x.id, 'ON')) return st.fail(`${nodeText(x)} is not on`);
  if (on && s.hasState(x.id, 'PLUGGED_OUT')) return st.fail(`${nodeText(x)} is unplugged`);
  const d = s.edit();
  d.changeStates(x.id, [on ? 'OFF' : 'ON'], [on ? 'ON' : 'OFF']);
  return st.done(d.finish());
}

function drop(st: Step, p: ScriptParam): StepOutcome {
  const { s, c } = st;
  const x = st.node(p);
  if (holdingHand(s, x.id) === undefined) return st.fail(`${st.C} is not holding ${nodeText(x)}`);
  const room = roomOf(s, c);
  const d = s.edit();
  for (const h of HANDS) d.remove(c, h, x.id);
  if (room !== null) d.add(x.id, INSIDE, room);
  d.setAnchor(x.id, undefined);
  return st.done(d.finish());
}

function sit(st: Step, p: ScriptParam): StepOutcome {
  const { s, c } = st;
  const x = st.node(p);
  if (!isCloseTo(s, x.id)) return st.fail(`${st.C} is not close to ${nodeText(x)}`);
  if (st.isSitting(s)) return st.fail(`${st.C} is sitting`);
  if (!x.properties.has('SITTABLE')) return st.fail(`${nodeText(x)} is not sittable`);
  if (s.in(x.id, ON).length >= (SEATS[x.className] ?? 1)) return st.fail(`Too many things on ${nodeText(x)}`);
  const d = s.edit();
  d.add(c, ON, x.id);
  for (const f of s.out(x.id, FACING)) d.add(c, FACING, f);
  d.changeStates(c, ['LYING'], ['SITTING']);
  return st.done(d.finish());
}

function standup(st: Step): StepOutcome {
  const { s, c } = st;
  if (!st.isSitting(s)) return st.fail(`${st.C} is not sitting`);
  const d = s.edit();
  d.changeStates(c, ['SITTING', 'LYING'], []);
  // Repaired: the seat is freed too, so sitting again works (docs/et-plan.md).
  if (st.mode === 'repaired') d.removeOut(c, ON);
  return st.done(d.finish());
}

function turnTo(st: Step, p: ScriptParam): StepOutcome {
  const d = st.s.edit();
  d.removeOut(st.c, FACING);
  d.add(st.c, FACING, p.id);
  return st.done(d.finish());
}

function lookAt(st: Step, p: ScriptParam): StepOutcome {
  const { s, c } = st;
  const x = st.node(p);
  if (!(s.has(c, FACING, x.id) || s.out(c, FACING).some((z) => s.has(z, FACING, x.id)))) return st.fail(`${st.C} does not face ${nodeText(x)}`);
  return st.done(s);
}

/**
 * Executes one parsed line on a state (pure: the state is never changed). Parameters name nodes by
 * id (`<name> (n)` is node n; the name only appears in messages).
 */
export function executeLine(state: EngineState, line: ScriptLine, options: ExecuteOptions = {}): StepOutcome {
  const st = new Step(state, line, options.mode ?? 'reference');
  const [a, b] = line.params;
  if (line.action === 'WALK' || line.action === 'RUN') return walk(st, a);
  if (line.action === 'FIND') return find(st, a);
  if (!(ENGINE_ACTIONS as readonly string[]).includes(line.action)) return st.fail(`action ${line.action} is not supported by this engine`);
  for (const p of line.params) if (!state.graph.nodes.has(p.id)) return st.fail(`${paramText(p)} cannot be found`);
  switch (line.action) {
    case 'GRAB':
      return grab(st, a);
    case 'OPEN':
    case 'CLOSE':
      return openClose(st, a, line.action === 'OPEN');
    case 'PUTBACK':
    case 'PUTIN':
      return put(st, a, b, line.action === 'PUTIN');
    case 'PUTOBJBACK':
      return putObjBack(st, a);
    case 'SWITCHON':
    case 'SWITCHOFF':
      return switchOnOff(st, a, line.action === 'SWITCHON');
    case 'DROP':
      return drop(st, a);
    case 'SIT':
      return sit(st, a);
    case 'STANDUP':
      return standup(st);
    case 'TURNTO':
      return turnTo(st, a);
    default:
      return lookAt(st, a);
  }
}

/** One step of a script run: the outcome plus what the reference would report. */
export interface ScriptStep extends StepOutcome {
  /** The parsed line, or undefined when the text did not parse. */
  line?: ScriptLine;
  /** Parse failure: the reference's exception name and message. */
  parseError?: { exception: 'ScriptParseException' | 'ValueError'; message: string };
  /** On a failed step: every message of the run so far joined with ",", as the reference reports it; else null. */
  error: string | null;
}

/**
 * A script executed step by step the way the reference executes a whole script: one state, line
 * numbers counted from 1, one message log whose messages pile up in later errors.
 */
export class ScriptRun {
  state: EngineState;
  /** Every message logged so far. */
  readonly log: string[] = [];
  private next = 1;

  constructor(
    state: EngineState,
    readonly options: ExecuteOptions = {},
  ) {
    this.state = state;
  }

  /** Executes the next line (text or parsed; a parsed line is renumbered to its place in the run). */
  step(line: string | ScriptLine): ScriptStep {
    const index = this.next++;
    let parsed: ScriptLine;
    if (typeof line === 'string') {
      const r = parseScriptLine(line, index);
      if (!r.ok) return { ok: false, state: this.state, messages: [], error: null, parseError: { exception: r.exception, message: r.message } };
      parsed = r.line;
    } else parsed = { ...line, index };
    const out = executeLine(this.state, parsed, this.options);
    this.log.push(...out.messages);
    this.state = out.state;
    const error = out.ok || out.exception !== undefined ? null : this.log.join(',');
    return { ...out, line: parsed, error };
  }
}
