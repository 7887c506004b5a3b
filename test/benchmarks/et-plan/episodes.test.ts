import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEpisodes } from '../../../src/benchmarks/episodes.js';
import { extractAction } from '../../../src/benchmarks/et-plan/actions.js';
import { EngineGraph, EngineState, executeLine, nodePosition, scriptLine, walkDistance } from '../../../src/benchmarks/et-plan/engine/index.js';
import { StepEpisode, type EtPlanWorld } from '../../../src/benchmarks/et-plan/episode.js';
import { etPlan } from '../../../src/benchmarks/et-plan/index.js';
import { episodeFactory, episodeMaker, replayEpisode } from '../../../src/benchmarks/et-plan/loop.js';
import { PaperEpisode } from '../../../src/benchmarks/et-plan/paper-protocol.js';
import { nearFieldPerception, percentile } from '../../../src/benchmarks/et-plan/perception.js';
import { admissibleActions, createAlwaysFirst, createGreedy, createOracle, createRandom } from '../../../src/benchmarks/et-plan/policies.js';
import { parseEpisodeSettings } from '../../../src/benchmarks/et-plan/settings.js';
import type { EtPlanItem } from '../../../src/benchmarks/et-plan/task.js';
import type { Episode, EpisodePolicy } from '../../../src/benchmarks/types.js';
import { RunStore, StoredAsker } from '../../../src/mllm/index.js';
import { generateBenchmark, loadItemSet } from '../../../src/benchmarks/index.js';
import { useTempDirs } from '../../helpers/temp.js';
import type { Answerer } from '../../../src/mllm/types.js';
import { promptParts } from '../../../src/formats/prompts.js';
import { apartment, ID } from './apartment.js';
import { fixtureItems } from './fixture-items.js';

const graph = new EngineGraph(apartment());
const items = fixtureItems().map((i) => ({ ...i, root: '/fixture' }));
const byId = new Map(items.map((i) => [i.id, i]));
const item = (id: string) => byId.get(id)!;
const graphs = new Map([[`/fixture\0${items[0].apartment}`, graph]]);
const make = (settings: Record<string, unknown> = {}) => episodeMaker(graphs, parseEpisodeSettings(settings));
const stepEpisode = (id: string, settings: Record<string, unknown> = {}) => make(settings)(item(id), 'step') as StepEpisode;

function play(e: Episode, policy: EpisodePolicy) {
  while (!e.done) e.reply(policy.act(e), null);
  return e.record(policy.name);
}

const textOf = (e: Episode) => (e.prompt().parts[0] as { text: string }).text;

describe('reading the action from a reply', () => {
  it.each([
    ['[walk] <kitchen> (1)', '[walk] <kitchen> (1)'],
    ['I should go to the kitchen first.\n[walk] <kitchen> (1)', '[walk] <kitchen> (1)'],
    ['Action: `[grab] <mug> (24)`', '[grab] <mug> (24)'],
    ['1. [walk] <mug> (24)\n2. [grab] <mug> (24)', '[grab] <mug> (24)'],
    ['<char0> [open] <fridge> (20)', '[open] <fridge> (20)'],
    ['- **Answer:** ok', null],
    ['I will now [walk] <fridge> (20) and then think.', '[walk] <fridge> (20) and then think.'],
    ['no action here', null],
  ])('%j -> %j', (reply, want) => {
    expect(extractAction(reply)).toBe(want);
  });
});

describe('the step protocol', () => {
  it('the oracle succeeds on every task, in as many steps as its plan has', () => {
    const oracle = createOracle(byId, { name: 'oracle', seed: 0 });
    for (const it of items) {
      const r = play(make()(it, 'step'), oracle);
      expect(r, it.id).toMatchObject({ success: true, end: 'success', status: 'ok' });
      expect(r.steps.length).toBe(it.oracle.length);
      expect(r.steps.every((s) => s.ok && s.key === null)).toBe(true);
      expect(r.steps.at(-1)!.progress).toBe(it.criteria.length);
    }
  });

  it('moving distance is the straight segments from the start room centre through each walk target', () => {
    const it = item('multi-one-arm');
    const r = play(stepEpisode(it.id), createOracle(byId, { name: 'o', seed: 0 }));
    const targets = it.oracle.filter((l) => l.startsWith('[walk]')).map((l) => Number(/\((\d+)\)/.exec(l)![1]));
    expect(r.distance).toBe(walkDistance(graph, targets, { start: nodePosition(graph, ID.kitchen) }));
    // Distance so far grows only on walks.
    expect(r.steps.map((s) => s.distance > 0)).toEqual([true, true, true, true, true, true, true, true]);
    expect(r.steps[1].distance).toBe(r.steps[0].distance);
  });

  it('the prompt holds the task, the observation, what is held, the last result, the history and the grammar', () => {
    const e = stepEpisode('man-mug-microwave');
    const first = textOf(e);
    expect(first).toContain('Task: Put the mug into the microwave.');
    expect(first).toContain('Use one arm');
    expect(first).toContain('Step 1 of at most 40.');
    expect(first).toContain('You are in the bedroom (3).');
    expect(first).toContain('- closet (41), open\n  - inside: shirt (42)');
    expect(first).toContain('Holding: nothing.');
    expect(first).toContain('Last action: none yet.');
    expect(first).toContain('[putin] <object> (id) <container> (id)');
    expect(first).not.toContain('character (10)');
    e.reply('[walk] <mug> (24)', 'k1');
    e.reply('[grab] <mug> (24)', 'k2');
    e.reply('Let me open it.\n[open] <microwave> (26)', 'k3');
    const text = textOf(e);
    expect(text).toContain('Step 4 of at most 40.');
    expect(text).toContain('Holding: mug (24) in your right hand.');
    expect(text).toContain('Last action: [open] <microwave> (26): failed: <character> (10) is not close to <microwave> (26) when executing "[OPEN] <microwave> (26) [3]"');
    expect(text).toContain('1. [walk] <mug> (24): done\n2. [grab] <mug> (24): done\n3. [open] <microwave> (26): failed');
    expect(text).toContain('- kitchentable (22)\n  - on: plate (23)\n  - on: apple (25)');
  });

  it('layout_map shows the large furniture by room in every prompt, of both protocols', () => {
    expect(textOf(stepEpisode('nav-book'))).not.toContain('Layout map');
    const shown = textOf(stepEpisode('nav-book', { layout_map: true }));
    expect(shown).toContain('Layout map (large furniture by room; positions x, z in metres):\n- kitchen (1) (0.0, 0.0): ');
    expect(shown).toContain('- livingroom (2) (6.0, 0.0): ');
    expect(textOf(make({ layout_map: true, protocol: 'paper' })(item('nav-book'), 'paper'))).toContain('Layout map');
  });

  it('an invalid reply counts as a step; the step cap ends the episode', () => {
    const e = stepEpisode('nav-book');
    e.reply('I do not know.', 'k');
    e.reply('[put] <book> (34) <sofa> (31)', 'k');
    e.reply('[switchon] <tv> (30)', 'k');
    e.reply('[walk] <book> (abc)', 'k');
    expect(e.steps.map((s) => [s.action, s.ok, s.error])).toEqual([
      [null, false, 'no action could be read from the reply (no [verb] in it)'],
      ['[put] <book> (34) <sofa> (31)', false, 'ScriptParseException: Unknown action "PUT"'],
      ['[switchon] <tv> (30)', false, 'action SWITCHON is not allowed (allowed: walk, find, grab, open, close, putin, putback, drop)'],
      ['[walk] <book> (abc)', false, "ValueError: invalid literal for int() with base 10: 'abc'"],
    ]);
    while (!e.done) e.reply('nothing', 'k');
    const r = e.record('m');
    expect(r).toMatchObject({ success: false, end: 'cap', step_cap: 20 });
    expect(r.steps).toHaveLength(20);
    expect(r.actions).toEqual([]);
  });

  it('executed actions are recorded with the graph\'s class names, whatever name the reply used', () => {
    const e = stepEpisode('nav-book');
    e.reply('[walk] <novel> (34)', 'k');
    expect(e.steps[0].action).toBe('[walk] <book> (34)');
    expect(e.record('m').actions).toEqual(['[walk] <book> (34)']);
  });

  it('one-arm tasks refuse a second grab; two-arm tasks allow it', () => {
    const plan = ['[walk] <book> (34)', '[grab] <book> (34)', '[walk] <pillow> (35)', '[grab] <pillow> (35)'];
    const one = stepEpisode('multi-one-arm');
    const two = stepEpisode('multi-two-arm');
    for (const l of plan) {
      one.reply(l, 'k');
      two.reply(l, 'k');
    }
    expect(one.steps[3]).toMatchObject({ ok: false, error: '<character> (10) already holds <book> (34) and this task allows one arm when executing "[GRAB] <pillow> (35) [4]"', held: [ID.book] });
    expect(two.steps[3]).toMatchObject({ ok: true, held: [ID.book, ID.pillow] });
  });

  it('also records the released recorder\'s distance: [walk] lines only, so a find that walks moves the character but adds nothing there', () => {
    const e = stepEpisode('nav-fridge-apple');
    e.reply('[find] <book> (34)', null);
    e.reply('[walk] <table> (22)', null);
    e.reply('[walk] <fridge> (20)', null);
    const r = e.record('m');
    expect(r.steps.map((s) => s.ok)).toEqual([true, true, true]);
    const start = nodePosition(graph, ID.bedroom);
    // Sums left to right from 0, as calculate_distance_traversal does with its walk destinations.
    expect(r.distance).toBe(walkDistance(graph, [ID.book, ID.table, ID.fridge], { start }));
    expect(r.walk_distance).toBe(walkDistance(graph, [ID.table, ID.fridge], { start }));
    expect(r.walk_distance).not.toBe(r.distance);
  });

  it('start: spawn stands the character at its room\'s spawn point, not the centre', () => {
    // The character's own room (living room): where the graph puts it.
    const living = stepEpisode('nav-spatial-apple', { start: 'spawn' });
    expect(living.world.position).toEqual(nodePosition(graph, ID.character));
    expect(stepEpisode('nav-spatial-apple').world.position).toEqual(nodePosition(graph, ID.livingroom));
    // Another room (kitchen, 6 x 6 m around [0, 1.25, 0]): a drawn free floor spot at the character's height, the same every time.
    const p = stepEpisode('nav-book', { start: 'spawn' }).world.position;
    expect(p).toEqual(stepEpisode('multi-one-arm', { start: 'spawn' }).world.position);
    expect(p).not.toEqual(nodePosition(graph, ID.kitchen));
    expect(p[1]).toBe(0.9);
    expect(Math.abs(p[0])).toBeLessThanOrEqual(3 - 0.6);
    expect(Math.abs(p[2])).toBeLessThanOrEqual(3 - 0.6);
    for (const id of [ID.fridge, ID.table, ID.microwave, ID.cabinet]) {
      const b = graph.node(id)!.raw.bounding_box!;
      expect(Math.abs(p[0] - b.center[0]) > b.size[0] / 2 || Math.abs(p[2] - b.center[2]) > b.size[2] / 2).toBe(true);
    }
    // The first walk's distance starts there.
    const e = stepEpisode('nav-book', { start: 'spawn' });
    e.reply('[walk] <book> (34)', null);
    expect(e.record('m')).toMatchObject({ distance: walkDistance(graph, [ID.book], { start: p }), walk_distance: walkDistance(graph, [ID.book], { start: p }) });
    expect(() => parseEpisodeSettings({ start: 'door' })).toThrow(/^et-plan episodes: start/);
  });

  it('scoring in released mode reads the walk-only distance and skips items without a record', async () => {
    const { scoreEtPlan } = await import('../../../src/benchmarks/et-plan/report.js');
    const { parseMetricSettings } = await import('../../../src/benchmarks/et-plan/settings.js');
    const random = createRandom(byId, { name: 'random', seed: 3 });
    const records = items.slice(1).map((it) => play(make()(it, 'step'), random));
    // Random finds walk: the two distances differ, so the check below tells them apart.
    expect(records.some((r) => r.success && r.walk_distance !== r.distance)).toBe(true);
    const itemMap = new Map(items.map((i) => [i.id, i]));
    const released = scoreEtPlan(itemMap, new Map([['random', records]]), parseMetricSettings({ quirks: 'released' })).analysis;
    const all = released.rows.find((r) => r.task === 'all')!;
    // The item without a record (distance 0) and records whose walks went nowhere are dropped.
    const kept = records.filter((r) => r.walk_distance !== 0);
    expect(all).toMatchObject({ n: kept.length, dropped: items.length - kept.length });
    const wins = kept.filter((r) => r.success);
    expect(all.distance).toBe(wins.length ? wins.reduce((a, r) => a + r.walk_distance!, 0) / wins.length : null);
    expect(released.mode).toBe('released');
  });

  it('the engine runs in repaired mode: find walks first', () => {
    const e = stepEpisode('nav-book');
    e.reply('[find] <book> (34)', 'k');
    expect(e.steps[0]).toMatchObject({ ok: true, progress: 1 });
    expect(e.steps[0].distance).toBeGreaterThan(0);
    expect(e.done).toBe(true);
  });

  it('criteria steps are met in order over the state sequence, not on the final state', () => {
    const e = stepEpisode('temporal-apple-plate-sofa');
    const plan = item('temporal-apple-plate-sofa').oracle;
    for (const l of plan) e.reply(l, 'k');
    expect(e.steps.map((s) => s.progress)).toEqual([0, 0, 0, 1, 1, 1, 2]);
    // Grabbing the plate removed `apple INSIDE plate`: the last state does not hold step 1, yet the task is done.
    expect(e.world.state.has(ID.apple2, 0, ID.plate)).toBe(false);
    expect(e.record('m').success).toBe(true);
    // Step 2 first (plate on the sofa), then the plate moved on and step 1 done: step 2 never held after step 1.
    const r = stepEpisode('temporal-apple-plate-sofa');
    const lines = ['[walk] <plate> (23)', '[grab] <plate> (23)', '[walk] <sofa> (31)', '[putback] <plate> (23) <sofa> (31)', '[grab] <plate> (23)', '[walk] <coffeetable> (33)',
      '[putback] <plate> (23) <coffeetable> (33)', '[walk] <apple> (25)', '[grab] <apple> (25)', '[walk] <plate> (23)', '[putin] <apple> (25) <plate> (23)'];
    for (const l of lines) r.reply(l, 'k');
    expect(r.steps.every((s) => s.ok)).toBe(true);
    expect(r.steps.map((s) => s.progress)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(r.done).toBe(false);
    // Step 2 already true when step 1 is met does not count (monitor.ts): the plate left on the sofa, then the apple put in.
    const same = stepEpisode('temporal-apple-plate-sofa');
    for (const l of [...lines.slice(0, 4), '[walk] <apple> (25)', '[grab] <apple> (25)', '[walk] <plate> (23)', '[putin] <apple> (25) <plate> (23)']) same.reply(l, 'k');
    expect(same.steps.map((s) => s.progress)).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
  });

  it('records the observation digest, room and held ids after every step', () => {
    const e = stepEpisode('man-mug-microwave');
    e.reply('[walk] <mug> (24)', 'k');
    e.reply('[grab] <mug> (24)', 'k');
    expect(e.steps.map((s) => [s.room, s.held])).toEqual([[ID.kitchen, []], [ID.kitchen, [ID.mug]]]);
    expect(e.steps[0].obs).toMatch(/^[0-9a-f]{16}$/);
    expect(e.steps[0].obs).not.toBe(e.steps[1].obs);
    expect(e.record('m').start_obs).not.toBe(e.steps[0].obs);
  });
});

describe('perception', () => {
  it('percentile interpolates linearly between order statistics', () => {
    expect(percentile([1, 2, 3, 4, 5], 20)).toBeCloseTo(1.8, 12);
    expect(percentile([10, 0], 50)).toBe(5);
    expect(percentile([7], 20)).toBe(7);
  });

  it('near-field keeps rooms and held objects, objects within the radius, and small objects only close by', () => {
    const p = nearFieldPerception(graph, { radius: 2.5, small_radius: 1, small_percentile: 20 });
    const s = executeLine(EngineState.initial(graph), scriptLine('WALK', [{ name: 'kitchen', id: ID.kitchen }]), { mode: 'repaired' }).state;
    // At the kitchen centre (0, 1.25, 0): the table (1.2 away) and its plate, mug (about 1.1) are in range;
    // the apple on the table is small (0.001 < the 20th percentile of grabbable volumes) and 1.5 away.
    const near = p.see(s, [0, 1.25, 0]);
    expect(near).toEqual(expect.arrayContaining([ID.kitchen, ID.livingroom, ID.bedroom, ID.table, ID.plate, ID.mug]));
    expect(near).not.toContain(ID.apple2);
    expect(near).not.toContain(ID.fridge); // 2.9 away
    // Standing at the table, the small apple is within 1 and seen.
    expect(p.see(s, [0, 0.8, 1.1])).toContain(ID.apple2);
  });

  it('near-field on occlusion items only, under perception_scope: occlusion', () => {
    const s = { perception: 'near-field', perception_scope: 'occlusion', near_field: { radius: 0.5 } };
    const plain = (make(s)(item('nav-book'), 'step') as StepEpisode).world;
    const occluded = (make(s)(item('nav-fridge-apple'), 'step') as StepEpisode).world;
    expect(plain.observation().visible.length).toBeGreaterThan(occluded.observation().visible.length);
    expect(occluded.observation().visible).toEqual([...graph.rooms]);
  });
});

describe('baselines', () => {
  const all = (policy: EpisodePolicy) => items.map((i) => play(make()(i, 'step'), policy));

  it('random is seeded: the same seed gives the same episodes, another seed others', () => {
    const a = all(createRandom(byId, { name: 'r', seed: 1 }));
    const b = all(createRandom(byId, { name: 'r', seed: 1 }));
    const c = all(createRandom(byId, { name: 'r', seed: 2 }));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    // Only admissible actions: every step executes.
    expect(a.flatMap((r) => r.steps).every((s) => s.ok)).toBe(true);
  });

  it('admissible actions are those that execute now, in a fixed order', () => {
    const e = stepEpisode('man-mug-microwave');
    const w = e.world as EtPlanWorld;
    const lines = () => admissibleActions(w).map((l) => l.action + ' ' + l.params.map((p) => p.id).join(' '));
    expect(lines().slice(0, 3)).toEqual(['WALK 1', 'WALK 2', 'WALK 3']);
    // In the bedroom, close to nothing: only walks and finds.
    expect(lines().filter((l) => !l.startsWith('WALK') && !l.startsWith('FIND'))).toEqual([]);
    e.reply('[walk] <fridge> (20)', 'k');
    // At the closed fridge (the apple inside cannot be grabbed yet).
    expect(lines().filter((l) => !l.startsWith('WALK') && !l.startsWith('FIND'))).toEqual(['OPEN 20']);
    e.reply('[walk] <mug> (24)', 'k');
    e.reply('[grab] <mug> (24)', 'k');
    // Holding the mug at the table, one arm: puts onto or into what is close (the engine accepts an apple as a
    // container: it cannot be opened), a drop, and no second grab.
    expect(lines().filter((l) => !l.startsWith('WALK') && !l.startsWith('FIND'))).toEqual(['PUTIN 24 22', 'PUTIN 24 23', 'PUTIN 24 25', 'PUTBACK 24 22', 'PUTBACK 24 23', 'PUTBACK 24 25', 'DROP 24']);
    expect(admissibleActions(w).every((l) => executeLine(w.state, l, { mode: 'repaired' }).ok)).toBe(true);
  });

  it('always-first takes the first admissible action every time', () => {
    const r = play(stepEpisode('nav-book'), createAlwaysFirst(byId, { name: 'first', seed: 0 }));
    expect(new Set(r.steps.map((s) => s.action))).toEqual(new Set(['[walk] <kitchen> (1)']));
    expect(r.success).toBe(false);
  });

  it('the greedy explorer finds and carries by class name; it solves the fixture tasks', () => {
    const rs = all(createGreedy(byId, { name: 'greedy', seed: 0 }));
    expect(rs.map((r) => [r.item, r.success])).toEqual(items.map((i) => [i.id, true]));
    // It never reads the criteria's ids: it goes to the apple it sees first (25, on the table), which is
    // not the task's; the step stays unmet, so it explores the closed containers and finds the other in the fridge.
    expect(rs[1].actions).toEqual(['[walk] <livingroom> (2)', '[walk] <kitchen> (1)', '[walk] <apple> (25)', '[walk] <microwave> (26)', '[open] <microwave> (26)', '[walk] <fridge> (20)']);
    // It opens a closed destination before putting into it.
    expect(rs[3].actions.slice(-2)).toEqual(['[open] <microwave> (26)', '[putin] <mug> (24) <microwave> (26)']);
  });
});

describe('the paper protocol', () => {
  /** A scripted model: rooms in id order, the first listed object or instance. */
  const scripted = (e: Episode): string => {
    const t = textOf(e);
    if (t.includes('In which order')) return 'Probably the kitchen.\nkitchen (1), livingroom (2), bedroom (3)';
    const first = /^- \S+ \((\d+)\)/m.exec(t.slice(t.lastIndexOf('does the task mean') >= 0 ? t.lastIndexOf('does the task mean') : t.lastIndexOf('should be explored')));
    return first ? `I pick this one.\n(${first[1]})` : 'none';
  };

  it('the LLM ranks rooms and picks objects; the controller walks, opens, grabs and puts', () => {
    const e = make({ protocol: 'paper' })(item('man-mug-microwave'), 'paper') as PaperEpisode;
    while (!e.done) e.reply(scripted(e), 'k');
    const r = e.record('m');
    expect(r).toMatchObject({ success: true, end: 'success', variant: 'paper' });
    expect(r.steps.map((s) => s.action)).toEqual(['rooms: kitchen (1), livingroom (2), bedroom (3)', 'choose: mug (24)', 'choose: microwave (26)']);
    expect(r.steps.map((s) => s.controller!.map((c) => c.line))).toEqual([
      ['[walk] <kitchen> (1)'],
      ['[walk] <mug> (24)', '[grab] <mug> (24)'],
      ['[walk] <microwave> (26)', '[open] <microwave> (26)', '[putin] <mug> (24) <microwave> (26)'],
    ]);
    expect(r.actions).toHaveLength(6);
  });

  it('an unreadable reply counts towards the cap; none moves the search on; the room list can be exhausted', () => {
    const e = make({ protocol: 'paper' })(item('nav-book'), 'paper') as PaperEpisode;
    e.reply('hmm', 'k');
    expect(e.steps[0]).toMatchObject({ ok: false, action: null, error: 'no room could be read from the reply' });
    expect(textOf(e)).toContain('Your last reply could not be read');
    e.reply('bedroom', 'k');
    expect(e.steps[1].action).toBe('rooms: bedroom (3), kitchen (1), livingroom (2)');
    while (!e.done) e.reply('none', 'k');
    const r = e.record('m');
    // bedroom, then kitchen, then livingroom, where the book is offered (and refused).
    expect(r).toMatchObject({ success: false, end: 'exhausted' });
    expect(r.actions).toEqual(['[walk] <bedroom> (3)', '[walk] <kitchen> (1)', '[walk] <livingroom> (2)']);
  });

  it('baselines run the step protocol when models run the paper protocol', () => {
    const f = episodeFactory(make({ protocol: 'paper' }), parseEpisodeSettings({ protocol: 'paper' }));
    expect(f(item('nav-book'), 'policy')).toBeInstanceOf(StepEpisode);
    expect(f(item('nav-book'), 'model')).toBeInstanceOf(PaperEpisode);
  });
});

describe('replay', () => {
  it('feeding the recorded replies to a fresh episode gives the recorded observations', () => {
    const r = play(stepEpisode('temporal-apple-plate-sofa'), createGreedy(byId, { name: 'g', seed: 0 }));
    const frames: Array<[number | null, boolean, number]> = [];
    replayEpisode(make(), item('temporal-apple-plate-sofa'), r, (f) => frames.push([f.step?.step ?? null, f.differs, f.world.progress]));
    expect(frames).toHaveLength(r.steps.length + 1);
    expect(frames.every((f) => !f[1])).toBe(true);
    expect(frames.at(-1)![2]).toBe(2);
    const tampered = { ...r, steps: r.steps.map((s, i) => (i === 1 ? { ...s, reply: '[walk] <bed> (40)' } : s)) };
    const differs: boolean[] = [];
    replayEpisode(make(), item('temporal-apple-plate-sofa'), tampered, (f) => differs.push(f.differs));
    expect(differs[2]).toBe(true);
  });
});

describe('on generated tasks', () => {
  const temp = useTempDirs('gsr-etplan-episodes-');

  it('the oracle succeeds on every generated task through the episode loop; the greedy explorer on most', { timeout: 120_000 }, async () => {
    const dir = await temp();
    await generateBenchmark('et-plan', { apartments: 2, count: 2, seed: 11 }, dir);
    const set = await loadItemSet(dir);
    const generated = set.items as Map<string, EtPlanItem>;
    const start = await etPlan.episodes!.prepare(generated, parseEpisodeSettings({}), set.context);
    const run = (kind: string) => runEpisodes({ benchmark: etPlan, items: generated, start, model: kind, actor: { policy: etPlan.episodes!.policies[kind](generated, { name: kind, seed: 0 }) } });
    const oracle = await run('oracle');
    expect(oracle.summary).toMatchObject({ episodes: generated.size, successes: generated.size, skipped: [] });
    expect(new Set(oracle.records.map((r) => r.task)).size).toBe(7);
    for (const r of oracle.records) expect(r.actions).toEqual(generated.get(r.item)!.oracle.map((l) => l.replace(/^\[(\w+)\]/, (_, v: string) => `[${v.toLowerCase()}]`)));
    const greedy = await run('greedy');
    expect(greedy.summary.successes).toBeGreaterThanOrEqual(Math.ceil(0.75 * generated.size));
  });
});

describe('the loop through the run store', () => {
  /** A deterministic model: walks to the first id the prompt's object list names, then grabs it, ... */
  const model = (log: string[]): Answerer => ({
    name: 'scripted',
    async answer(p) {
      const text = promptParts(p).map((x) => (x.type === 'text' ? x.text : '')).join('');
      log.push(text);
      const k = Number(/Step (\d+) of/.exec(text)![1]);
      const ids = [...text.matchAll(/^\s*- (?:\w+: )?(\w+) \((\d+)\)/gm)].map((m) => [m[1], m[2]]);
      const [name, id] = ids[k % Math.max(1, ids.length)] ?? ['kitchen', '1'];
      return k % 3 === 0 ? `[grab] <${name}> (${id})` : k % 7 === 0 ? 'no idea' : `[walk] <${name}> (${id})`;
    },
  });

  it('answers are stored; a second run replays them with identical records and no request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-etplan-loop-'));
    const store = RunStore.open(join(dir, 'store.sqlite'));
    const settings = { answerer: 'scripted', model: 'scripted', temperature: 0 };
    const run = async (log: string[]) =>
      runEpisodes({ benchmark: etPlan, items: byId as ReadonlyMap<string, EtPlanItem>, start: episodeFactory(make(), parseEpisodeSettings({})), model: 'scripted', actor: { asker: new StoredAsker({ store, answerer: model(log), settings }) }, concurrency: 3 });
    const log1: string[] = [];
    const first = await run(log1);
    expect(first.summary).toMatchObject({ episodes: items.length, cached: 0, skipped: [] });
    expect(log1.length).toBe(first.summary.steps);
    const log2: string[] = [];
    const second = await run(log2);
    expect(log2).toEqual([]);
    expect(second.records).toEqual(first.records);
    expect(second.summary.cached).toBe(first.summary.steps);
    expect(first.records.every((r) => r.steps.every((s) => s.key !== null))).toBe(true);
    store.close();
  });

  it('an episode whose item cannot run is skipped and listed; the others run', async () => {
    const bad = { ...item('nav-book'), id: 'bad', start_room: { id: ID.book, class: 'book' } };
    const map = new Map<string, EtPlanItem>([['bad', bad], ['nav-book', item('nav-book')]]);
    const r = await runEpisodes({ benchmark: etPlan, items: map, start: episodeFactory(make(), parseEpisodeSettings({})), model: 'o', actor: { policy: createOracle(map, { name: 'o', seed: 0 }) } });
    expect(r.summary.skipped).toEqual([{ item: 'bad', reason: `item bad: start room ${ID.book} is not a room of apartment.json` }]);
    expect(r.records.map((x) => x.item)).toEqual(['nav-book']);
  });
});
