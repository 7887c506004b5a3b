/**
 * Hand-worked engine cases on the project's own small apartment (apartment.ts): every action's
 * success path and every failure message, the quirks the reference has, the repaired mode,
 * partial observation, distances and copy-on-write states.
 */
import { describe, expect, it } from 'vitest';
import {
  EngineGraph,
  EngineState,
  FIND_TYPE_ERROR,
  REL,
  ScriptRun,
  diffStates,
  doorsOf,
  executeLine,
  parseScriptLine,
  roomOf,
  scriptLine,
  segmentLength,
  visibleNodes,
  walkDistance,
  type EngineMode,
  type ScriptStep,
} from '../../../src/benchmarks/et-plan/engine/index.js';
import { pyInt, pyRepr } from '../../../src/benchmarks/et-plan/engine/script.js';
import { ID, apartment } from './apartment.js';

const graph = EngineGraph.fromJson(apartment(), 'apartment');
const C = '<character> (10)';
const at = (line: string, k: number) => ` when executing "${line} [${k}]"`;

/** Runs every line (not stopping at failures) and returns the steps. */
function run(lines: string[], mode: EngineMode = 'reference', g = graph): { steps: ScriptStep[]; run: ScriptRun; start: EngineState } {
  const start = EngineState.initial(g);
  const r = new ScriptRun(start, { mode });
  return { steps: lines.map((l) => r.step(l)), run: r, start };
}

/** The last step of a script, after checking that all earlier steps succeeded. */
function last(lines: string[], mode: EngineMode = 'reference', g = graph): ScriptStep & { before: EngineState } {
  const { steps, start } = run(lines, mode, g);
  for (const [i, s] of steps.slice(0, -1).entries()) expect({ i, line: lines[i], ok: s.ok, error: s.error }).toEqual({ i, line: lines[i], ok: true, error: null });
  const before = steps.length > 1 ? steps[steps.length - 2].state : start;
  return { ...steps[steps.length - 1], before };
}

/** Expects the last line to fail with exactly this message (and to change nothing). */
function fails(lines: string[], message: string, mode: EngineMode = 'reference') {
  const s = last(lines, mode);
  expect(s.ok).toBe(false);
  expect(s.messages).toEqual([`${message}${at(canonicalLine(lines[lines.length - 1]), lines.length)}`]);
  expect(s.error).toBe(s.messages[0]);
  expect(s.state).toBe(s.before);
}

function canonicalLine(text: string): string {
  const r = parseScriptLine(text);
  if (!r.ok) throw new Error(r.message);
  return [`[${r.line.action}]`, ...r.line.params.map((p) => `<${p.name}> (${p.idText})`)].join(' ');
}

const diff = (s: { before: EngineState; state: EngineState }) => {
  const d = diffStates(s.before, s.state);
  return { added: d.added, removed: d.removed, states: Object.fromEntries(d.states) };
};

describe('script lines', () => {
  it('parse as the reference parses them', () => {
    expect(parseScriptLine('  [PutIn] <Red Apple> (+0_21)<fridge>(20) trailing', 4)).toEqual({
      ok: true,
      line: { action: 'PUTIN', index: 4, params: [{ name: 'red_apple', id: 21, idText: '21' }, { name: 'fridge', id: 20, idText: '20' }] },
    });
    expect(parseScriptLine('[lookat_medium] <tv> (30)')).toMatchObject({ ok: true, line: { action: 'LOOKAT' } });
    expect(parseScriptLine('<char0> [walk] <kitchen> (1)')).toEqual({ ok: false, exception: 'ScriptParseException', message: 'Cannot parse action' });
    expect(parseScriptLine('[put] <a> (1) <b> (2)')).toEqual({ ok: false, exception: 'ScriptParseException', message: 'Unknown action "PUT"' });
    expect(parseScriptLine('[walk] <a> (1) <b> (2)')).toEqual({ ok: false, exception: 'ScriptParseException', message: 'Wrong number of parameters for "WALK". Got 2, expected 1' });
    expect(parseScriptLine("[walk] <a> (it's)")).toEqual({ ok: false, exception: 'ValueError', message: `invalid literal for int() with base 10: "it's"` });
    expect(parseScriptLine('[standup]')).toMatchObject({ ok: true, line: { action: 'STANDUP', params: [] } });
  });

  it("ids follow Python's int(): signs, underscores, Unicode digits, whitespace, no floats", () => {
    expect(pyInt(' -007 ')).toEqual({ ok: true, value: '-7' });
    expect(pyInt('1_000')).toEqual({ ok: true, value: '1000' });
    expect(pyInt('\u0663\uff11')).toEqual({ ok: true, value: '31' });
    expect(pyInt('\u{1d7d9}')).toEqual({ ok: true, value: '1' });
    expect(pyInt('99999999999999999999')).toEqual({ ok: true, value: '99999999999999999999' });
    for (const bad of ['1__0', '_1', '1_', '+', '1.0', '0x10', '1 2', '', '+-1']) expect(pyInt(bad).ok).toBe(false);
    expect(pyInt('a\tb')).toEqual({ ok: false, message: "invalid literal for int() with base 10: 'a\\tb'" });
    expect(pyRepr('a\'b"c\\\u00a0')).toBe("'a\\'b\"c\\\\\\xa0'");
    expect(pyRepr('é\u2028')).toBe("'é\\u2028'");
  });
});

describe('loading', () => {
  it('finds the character, rooms and body parts; rejects graphs the engine cannot index', () => {
    expect([graph.characterId, graph.rooms, graph.bodyParts, graph.ids.length]).toEqual([10, [1, 2, 3], [50], 32]);
    const noChar = apartment();
    noChar.nodes = noChar.nodes.filter((n) => n.id !== 10);
    noChar.edges = noChar.edges.filter((e) => e.from_id !== 10 && e.to_id !== 10);
    expect(() => new EngineGraph(noChar)).toThrow('graph has no node of class "character"');
    const big = apartment();
    big.nodes.push({ ...big.nodes[0], id: 2 ** 20 });
    expect(() => new EngineGraph(big)).toThrow(/node id 1048576 is too large/);
    expect(() => EngineGraph.fromJson({ nodes: [], edges: [{ from_id: 1, relation_type: 'ON', to_id: 2 }] }, 'g.json')).toThrow(/^g\.json: edges\.0 names node 1/);
  });

  it('INSIDE loops of single parents have no room', () => {
    const g = apartment();
    g.edges = g.edges.filter((e) => !(e.relation_type === 'INSIDE' && (e.from_id === 43 || e.from_id === 44) && e.to_id === 3));
    const s = EngineState.initial(new EngineGraph(g));
    expect(roomOf(s, 43)).toBeNull();
    expect(roomOf(s, ID.shirt)).toBe(ID.bedroom);
  });
});

describe('walk and run', () => {
  it('to a room: the character moves rooms, keeps nothing close', () => {
    const s = last(['[walk] <kitchen> (1)']);
    expect(diff(s)).toEqual({ added: [[10, 'INSIDE', 1]], removed: [[10, 'INSIDE', 2]], states: {} });
  });

  it('to an object in a container: close to it, its non-room parents and every body part; run is the same', () => {
    const s = last(['[walk] <apple> (21)']);
    expect(diff(s)).toEqual({
      added: [[10, 'CLOSE', 20], [10, 'CLOSE', 21], [10, 'CLOSE', 50], [10, 'INSIDE', 1], [20, 'CLOSE', 10], [21, 'CLOSE', 10], [50, 'CLOSE', 10]],
      removed: [[10, 'INSIDE', 2]],
      states: {},
    });
    expect(last(['[run] <apple> (21)']).state.fingerprint()).toBe(s.state.fingerprint());
  });

  it('to an openable container: close to everything inside it, even closed; to a thing ON another: close to that too', () => {
    expect(last(['[walk] <fridge> (20)']).state.has(10, REL.CLOSE, ID.apple)).toBe(true);
    const plate = last(['[walk] <plate> (23)']);
    expect(plate.state.out(10, REL.CLOSE)).toEqual([ID.table, ID.plate, ID.hand]);
  });

  it('a second walk drops the old closeness; a walk to a node without a room fails with no message; a missing id raises', () => {
    const s = last(['[walk] <plate> (23)', '[walk] <sofa> (31)']);
    expect(s.state.out(10, REL.CLOSE)).toEqual([ID.sofa, ID.hand]);
    expect(s.state.out(10, REL.INSIDE)).toEqual([ID.livingroom]);
    const noRoom = last(['[walk] <hand> (50)']);
    expect(noRoom).toMatchObject({ ok: false, messages: [], error: '' });
    expect(noRoom.state).toBe(noRoom.before);
    const missing = last(['[walk] <ghost> (99)']);
    expect(missing).toMatchObject({ ok: false, messages: [], error: null, exception: expect.stringMatching(/^AttributeError: /) });
  });

  it('held objects come along but stay INSIDE the room the character left', () => {
    const s = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <bedroom> (3)']);
    expect(s.state.out(ID.mug, REL.INSIDE)).toEqual([ID.kitchen]);
    expect(s.state.has(10, REL.CLOSE, ID.mug) && s.state.has(ID.mug, REL.CLOSE, 10)).toBe(true);
    expect(s.state.out(10, REL.INSIDE)).toEqual([ID.bedroom]);
  });

  it('"is sitting": never in reference mode (the base graph is read), in repaired mode after sit', () => {
    expect(last(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[walk] <kitchen> (1)']).ok).toBe(true);
    fails(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[walk] <kitchen> (1)'], `${C} is sitting`, 'repaired');
    // A graph whose character is SITTING in the file is sitting for the reference too.
    const g = apartment();
    g.nodes.find((n) => n.id === 10)!.states = ['SITTING'];
    const s = last(['[walk] <kitchen> (1)'], 'reference', new EngineGraph(g));
    expect(s.messages).toEqual([`${C} is sitting${at('[WALK] <kitchen> (1)', 1)}`]);
  });
});

describe('find', () => {
  it('of something close: faces nothing, becomes close to it', () => {
    const s = last(['[walk] <table> (22)', '[turnto] <tv> (30)', '[find] <mug> (24)']);
    expect(diff(s)).toEqual({ added: [[10, 'CLOSE', 24], [24, 'CLOSE', 10]], removed: [[10, 'FACING', 30]], states: {} });
  });

  it('of something not close: the reference raises; repaired walks there first', () => {
    const ref = last(['[find] <apple> (21)']);
    expect(ref).toMatchObject({ ok: false, error: null, messages: [], exception: FIND_TYPE_ERROR });
    expect(ref.state).toBe(ref.before);
    const rep = last(['[find] <apple> (21)'], 'repaired');
    expect(rep.ok).toBe(true);
    expect(rep.state.fingerprint()).toBe(last(['[walk] <apple> (21)']).state.fingerprint());
  });

  it('of a body part not close: "is not close to"', () => {
    fails(['[find] <hand> (50)'], `${C} is not close to <hand> (50)`);
  });

  it('of an id that names no node: raises, as walk does, in both modes (the reference dereferences the missing node)', () => {
    for (const mode of ['reference', 'repaired'] as const) {
      const s = last(['[find] <ghost> (99)'], mode);
      expect(s).toMatchObject({ ok: false, error: null, messages: [], exception: 'AttributeError: no node with id 99' });
      expect(s.state).toBe(s.before);
    }
  });

  it('while sitting, of something not close: finds without walking and fails "is not close to" (repaired; the reference never reads SITTING)', () => {
    fails(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[find] <apple> (21)'], `${C} is not close to <apple> (21)`, 'repaired');
    expect(last(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[find] <apple> (21)'])).toMatchObject({ ok: false, exception: FIND_TYPE_ERROR });
    // A character SITTING in the file takes the sitting branch in the reference too.
    const g = apartment();
    g.nodes.find((n) => n.id === 10)!.states = ['SITTING'];
    expect(last(['[find] <apple> (21)'], 'reference', new EngineGraph(g)).messages).toEqual([`${C} is not close to <apple> (21)${at('[FIND] <apple> (21)', 1)}`]);
  });
});

describe('grab', () => {
  it('takes the object off its anchor, into a free hand, right first', () => {
    const s = last(['[walk] <mug> (24)', '[grab] <mug> (24)']);
    expect(s.anchor).toEqual([ID.table, 'ON']);
    expect(diff(s)).toEqual({
      added: [[10, 'HOLDS_RH', 24]],
      removed: [[22, 'CLOSE', 24], [23, 'CLOSE', 24], [24, 'CLOSE', 22], [24, 'CLOSE', 23], [24, 'CLOSE', 25], [24, 'ON', 22], [25, 'CLOSE', 24]],
      states: {},
    });
    const second = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[grab] <plate> (23)']);
    expect(second.state.out(10, REL.HOLDS_LH)).toEqual([ID.plate]);
  });

  it('anchors: INSIDE a container, CLOSE (the character itself after a drop), none', () => {
    expect(last(['[walk] <shirt> (42)', '[grab] <shirt> (42)']).anchor).toEqual([ID.closet, 'INSIDE']);
    expect(last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[drop] <mug> (24)', '[grab] <mug> (24)']).anchor).toEqual([10, 'CLOSE']);
    expect(last(['[walk] <coffeetable> (33)', '[grab] <remotecontrol> (38)']).anchor).toBeNull();
  });

  it('closeness through ON: the character is close to the chair, the cushion lies on it', () => {
    expect(last(['[walk] <chair> (32)', '[grab] <cushion> (37)']).ok).toBe(true);
  });

  it('grabbing a container detaches what is in it', () => {
    const s = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <plate> (23)', '[putin] <mug> (24) <plate> (23)', '[grab] <plate> (23)']);
    expect(s.before.has(ID.mug, REL.INSIDE, ID.plate)).toBe(true);
    expect(s.state.has(ID.mug, REL.INSIDE, ID.plate)).toBe(false);
  });

  it('failures, in the order checked', () => {
    fails(['[walk] <table> (22)', '[grab] <kitchentable> (22)'], '<kitchentable> (22) is not grabbable');
    fails(['[walk] <mug> (24)', '[grab] <mug> (24)', '[grab] <mug> (24)'], '<mug> (24) already grabbed');
    fails(['[grab] <apple> (21)'], `${C} is not close to <apple> (21)`);
    fails(['[walk] <apple> (21)', '[grab] <apple> (21)'], '<apple> (21) is inside other closed thing');
    fails(['[walk] <cereal> (29)', '[grab] <cereal> (29)'], '<cereal> (29) is inside other closed thing');
    fails(['[walk] <mug> (24)', '[grab] <mug> (24)', '[grab] <plate> (23)', '[grab] <apple> (25)'], `${C} does not have a free hand`);
    fails(['[grab] <ghost> (99)'], '<ghost> (99) cannot be found');
  });
});

describe('open and close', () => {
  it('swap CLOSED and OPEN; close needs no free hand', () => {
    const open = last(['[walk] <fridge> (20)', '[open] <fridge> (20)']);
    expect(diff(open)).toEqual({ added: [], removed: [], states: { 20: [['CLOSED'], ['OPEN']] } });
    const close = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[grab] <plate> (23)', '[walk] <closet> (41)', '[close] <closet> (41)']);
    expect(diff(close).states).toEqual({ 41: [['OPEN'], ['CLOSED']] });
  });

  it('failures, in the order checked; a desk or window passes the first check', () => {
    fails(['[walk] <table> (22)', '[open] <table> (22)'], '<kitchentable> (22) can not be opened');
    fails(['[walk] <cabinet> (28)', '[open] <cabinet> (28)'], '<kitchencabinets> (28) can not be opened');
    fails(['[open] <fridge> (20)'], `${C} is not close to <fridge> (20)`);
    fails(['[walk] <mug> (24)', '[grab] <mug> (24)', '[grab] <plate> (23)', '[walk] <fridge> (20)', '[open] <fridge> (20)'], `${C} does not have a free hand`);
    fails(['[walk] <coffeemaker> (27)', '[open] <coffeemaker> (27)'], '<coffeemaker> (27) is not closed');
    fails(['[walk] <coffeemaker> (27)', '[close] <coffeemaker> (27)'], '<coffeemaker> (27) is not open');
    fails(['[walk] <microwave> (26)', '[switchon] <microwave> (26)', '[open] <microwave> (26)'], '<microwave> (26) is still on');
    fails(['[walk] <desk> (45)', '[open] <desk> (45)'], '<desk> (45) is not closed');
  });
});

describe('putback, putin, putobjback', () => {
  it('put on: the hand is freed, the object stays INSIDE its old room', () => {
    const s = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <coffeetable> (33)', '[putback] <mug> (24) <coffeetable> (33)']);
    expect(diff(s)).toEqual({ added: [[24, 'CLOSE', 33], [24, 'ON', 33], [33, 'CLOSE', 24]], removed: [[10, 'HOLDS_RH', 24]], states: {} });
    expect(s.state.out(ID.mug, REL.INSIDE)).toEqual([ID.kitchen]);
  });

  it('put in: an open container, or anything that cannot be opened (the apple itself included)', () => {
    const s = last(['[walk] <shirt> (42)', '[grab] <shirt> (42)', '[putin] <shirt> (42) <closet> (41)']);
    expect(s.state.out(ID.shirt, REL.INSIDE)).toEqual([ID.bedroom, ID.closet]);
    expect(last(['[walk] <apple> (25)', '[grab] <apple> (25)', '[putin] <apple> (25) <apple> (25)']).state.has(25, REL.INSIDE, 25)).toBe(true);
  });

  it('put failures, in the order checked', () => {
    fails(['[walk] <mug> (24)', '[putback] <mug> (24) <table> (22)'], `${C} is not holding <mug> (24)`);
    fails(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <bedroom> (3)', '[putback] <mug> (24) <bed> (40)'], `${C} is not close to <bed> (40)`);
    fails(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <fridge> (20)', '[putin] <mug> (24) <fridge> (20)'], '<fridge> (20) is not open or is not openable');
    fails(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <coffeemaker> (27)', '[putin] <mug> (24) <coffeemaker> (27)'], '<coffeemaker> (27) is not open or is not openable');
  });

  it('putobjback returns the object to its anchor and forgets it', () => {
    const s = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[putobjback] <mug> (24)']);
    expect(s.state.has(ID.mug, REL.ON, ID.table)).toBe(true);
    expect(s.state.anchorOf(ID.mug)).toBeUndefined();
    fails(['[putobjback] <mug> (24)'], '<mug> (24) not grabbed');
    fails(['[walk] <mug> (24)', '[grab] <mug> (24)', '[drop] <mug> (24)', '[putobjback] <mug> (24)'], '<mug> (24) not grabbed');
  });

  it('a putobjback whose put checks fail succeeds silently, and its message opens the next error', () => {
    const { steps } = run(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <bedroom> (3)', '[putobjback] <mug> (24)', '[grab] <bed> (40)']);
    const silent = `${C} is not close to <kitchentable> (22)${at('[PUTOBJBACK] <mug> (24)', 4)}`;
    expect(steps[3]).toMatchObject({ ok: true, error: null, messages: [silent] });
    expect(steps[3].state).toBe(steps[2].state);
    expect(steps[4]).toMatchObject({ ok: false, error: `${silent},<bed> (40) is not grabbable${at('[GRAB] <bed> (40)', 5)}` });
  });
});

describe('switches, drop, sit and standup, turnto, lookat', () => {
  it('switch on and off swap OFF and ON', () => {
    const on = last(['[walk] <tv> (30)', '[switchon] <tv> (30)']);
    expect(diff(on)).toEqual({ added: [], removed: [], states: { 30: [['OFF'], ['ON']] } });
    expect(diff(last(['[walk] <lamp> (36)', '[switchoff] <lamp> (36)'])).states).toEqual({ 36: [['ON'], ['OFF']] });
  });

  it('switch failures, in the order checked', () => {
    fails(['[walk] <table> (22)', '[switchon] <table> (22)'], '<kitchentable> (22) does not have a switch');
    fails(['[switchon] <tv> (30)'], `${C} is not close to <tv> (30)`);
    fails(['[walk] <lamp> (36)', '[switchon] <lamp> (36)'], '<tablelamp> (36) is not off');
    fails(['[walk] <tv> (30)', '[switchoff] <tv> (30)'], '<tv> (30) is not on');
    fails(['[walk] <coffeemaker> (27)', '[switchon] <coffeemaker> (27)'], '<coffeemaker> (27) is unplugged');
  });

  it('drop: the hand is freed, the object is INSIDE the current room too', () => {
    const s = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <bedroom> (3)', '[drop] <mug> (24)']);
    expect(diff(s)).toEqual({ added: [[24, 'INSIDE', 3]], removed: [[10, 'HOLDS_RH', 24]], states: {} });
    fails(['[drop] <mug> (24)'], `${C} is not holding <mug> (24)`);
  });

  it('sit: on the seat, facing what it faces, SITTING', () => {
    const s = last(['[walk] <sofa> (31)', '[sit] <sofa> (31)']);
    expect(diff(s)).toEqual({ added: [[10, 'FACING', 30], [10, 'ON', 31]], removed: [], states: { 10: [[], ['SITTING']] } });
    fails(['[sit] <sofa> (31)'], `${C} is not close to <sofa> (31)`);
    fails(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[sit] <sofa> (31)'], `${C} is sitting`, 'repaired');
    fails(['[walk] <table> (22)', '[sit] <table> (22)'], '<kitchentable> (22) is not sittable');
    fails(['[walk] <chair> (32)', '[sit] <chair> (32)'], 'Too many things on <chair> (32)');
  });

  it('standup: always fails in reference mode; repaired clears SITTING and leaves the seat', () => {
    fails(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[standup]'], `${C} is not sitting`);
    fails(['[standup]'], `${C} is not sitting`, 'repaired');
    const s = last(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[standup]'], 'repaired');
    expect(diff(s)).toEqual({ added: [], removed: [[10, 'ON', 31]], states: { 10: [['SITTING'], []] } });
    expect(last(['[walk] <sofa> (31)', '[sit] <sofa> (31)', '[standup]', '[walk] <kitchen> (1)'], 'repaired').ok).toBe(true);
  });

  it('turnto faces one thing; lookat needs facing it or facing what faces it', () => {
    const s = last(['[turnto] <sofa> (31)', '[turnto] <tv> (30)']);
    expect(diff(s)).toEqual({ added: [[10, 'FACING', 30]], removed: [[10, 'FACING', 31]], states: {} });
    fails(['[turnto] <ghost> (99)'], '<ghost> (99) cannot be found');
    expect(last(['[turnto] <tv> (30)', '[lookat] <tv> (30)']).ok).toBe(true);
    const via = last(['[turnto] <sofa> (31)', '[lookat] <tv> (30)']);
    expect(via.ok && via.state === via.before).toBe(true);
    fails(['[lookat] <tv> (30)'], `${C} does not face <tv> (30)`);
  });

  it('other parsed actions fail with a message of their own', () => {
    fails(['[drink] <mug> (24)'], 'action DRINK is not supported by this engine');
    fails(['[lookat_short] <tv> (30)'], 'action LOOKAT_SHORT is not supported by this engine');
  });
});

describe('script runs', () => {
  it('messages pile up: a failure reports every message so far, joined with ","', () => {
    const { steps } = run(['[grab] <kitchentable> (22)', '[walk] <kitchen> (1)', '[open] <fridge> (20)']);
    const m1 = `<kitchentable> (22) is not grabbable${at('[GRAB] <kitchentable> (22)', 1)}`;
    expect(steps[0].error).toBe(m1);
    expect(steps[1]).toMatchObject({ ok: true, error: null });
    expect(steps[2].error).toBe(`${m1},${C} is not close to <fridge> (20)${at('[OPEN] <fridge> (20)', 3)}`);
  });

  it('a line that does not parse fails with its parse error and takes a line number', () => {
    const { steps, run: r } = run(['[jump] <x> (1)', '[walk] <kitchen> (1)', '[grab] <fridge> (20)']);
    expect(steps[0]).toMatchObject({ ok: false, error: null, parseError: { exception: 'ScriptParseException', message: 'Unknown action "JUMP"' } });
    expect(steps[2].error).toBe(`<fridge> (20) is not grabbable${at('[GRAB] <fridge> (20)', 3)}`);
    expect(r.log).toHaveLength(1);
  });

  it('executeLine is pure: the same state and line give the same outcome, the input untouched', () => {
    const s0 = EngineState.initial(graph);
    const line = scriptLine('WALK', [{ name: 'apple', id: ID.apple }]);
    const a = executeLine(s0, line);
    const b = executeLine(s0, line);
    expect(a.state).not.toBe(b.state);
    expect(a.state.fingerprint()).toBe(b.state.fingerprint());
    expect(s0.fingerprint()).toBe(EngineState.initial(graph).fingerprint());
    expect(s0.out(10, REL.INSIDE)).toEqual([ID.livingroom]);
  });
});

describe('partial observation', () => {
  it('the character sees its room, not inside closed containers; all rooms; what it holds', () => {
    const start = visibleNodes(EngineState.initial(graph));
    expect(start).toEqual({ ids: [1, 2, 3, 10, 30, 31, 32, 33, 34, 35, 36, 37, 38], loop: false });
    const kitchen = last(['[walk] <fridge> (20)']);
    expect(visibleNodes(kitchen.state).ids).toEqual([1, 2, 3, 4, 10, 20, 22, 23, 24, 25, 26, 27, 28]);
    const opened = last(['[walk] <fridge> (20)', '[open] <fridge> (20)']);
    expect(visibleNodes(opened.state).ids).toContain(ID.apple);
    const carried = last(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <livingroom> (2)']);
    expect(visibleNodes(carried.state).ids).toContain(ID.mug);
  });

  it('an INSIDE cycle below the room: cycle-safe, flagged as a state where the reference loops', () => {
    const bedroom = visibleNodes(last(['[walk] <bedroom> (3)']).state);
    expect(bedroom).toEqual({ ids: [1, 2, 3, 5, 10, 40, 41, 42, 45], loop: true });
  });
});

describe('distances', () => {
  const char: [number, number, number] = [6, 0.9, 0];
  it('straight: segments from the character to each walk target, summed left to right', () => {
    expect(walkDistance(graph, [ID.kitchen, ID.bedroom])).toBe(0 + segmentLength(char, [0, 1.25, 0]) + 12);
    expect(walkDistance(graph, [])).toBe(0);
  });

  it('doors: a room change goes through door centres', () => {
    expect(doorsOf(graph).map((d) => [d.id, d.rooms])).toEqual([[4, [1, 2]], [5, [2, 3]]]);
    const viaDoor = segmentLength(char, [3, 1, 2]) + segmentLength([3, 1, 2], [0, 1.25, 0]);
    const kitchenToBedroom = segmentLength([0, 1.25, 0], [3, 1, 2]) + segmentLength([3, 1, 2], [9, 1, -2]) + segmentLength([9, 1, -2], [12, 1.25, 0]);
    expect(walkDistance(graph, [ID.kitchen, ID.bedroom], { route: 'doors' })).toBeCloseTo(viaDoor + kitchenToBedroom, 12);
    // Same room: the straight line.
    expect(walkDistance(graph, [ID.sofa], { route: 'doors' })).toBe(walkDistance(graph, [ID.sofa]));
  });
});

describe('copy-on-write states', () => {
  it('derived states share the base graph and leave their parents unchanged', () => {
    const { steps } = run(['[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <bedroom> (3)']);
    expect(steps[0].state.out(10, REL.HOLDS_RH)).toEqual([]);
    expect(steps[1].state.out(10, REL.HOLDS_RH)).toEqual([ID.mug]);
    expect(steps[1].state.out(10, REL.INSIDE)).toEqual([ID.kitchen]);
    expect(steps[2].state.graph).toBe(graph);
    expect([...steps[2].state.edges()].length).toBe(graph.edgeCount + diffStates(EngineState.initial(graph), steps[2].state).added.length - diffStates(EngineState.initial(graph), steps[2].state).removed.length);
  });

  it('a state changed and changed back has the fingerprint of the original', () => {
    const s = last(['[walk] <fridge> (20)', '[open] <fridge> (20)', '[close] <fridge> (20)', '[walk] <livingroom> (2)']);
    expect(s.state.fingerprint()).toBe(EngineState.initial(graph).fingerprint());
  });
});
