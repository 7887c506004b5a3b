/**
 * Task generation on procedural apartments: every family produced, every kept task's ground-truth
 * and oracle plans executing and meeting the criteria (and not met before the first action), the
 * spatial constraint deciding between instances, occlusion subsets by the percentile rules, and the
 * same tasks for the same seed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../helpers/temp.js';
import { readVhGraph } from '../../../src/formats/vh-graph.js';
import { EngineGraph, REL, walkDistance } from '../../../src/benchmarks/et-plan/engine/index.js';
import { OCCLUSION, occlusionSubsets, percentile, stepCap } from '../../../src/benchmarks/et-plan/generate.js';
import { ORACLE_LIMITS, runPlan, startState, walkTargets } from '../../../src/benchmarks/et-plan/plans.js';
import { SIZE_PRESETS, generateEtPlanItems, shareOf } from '../../../src/benchmarks/et-plan/synth.js';
import { ET_PLAN_FAMILIES, parseEtPlanItem, type EtPlanItem } from '../../../src/benchmarks/et-plan/task.js';
import { runCli, scaled } from '../../helpers/cli.js';

const temp = useTempDirs('gsr-et-plan-');

let out: string;
let set: Awaited<ReturnType<typeof generateEtPlanItems>>;
const graphs = new Map<string, EngineGraph>();

beforeAll(async () => {
  out = await temp();
  set = await generateEtPlanItems({ out, apartments: 2, count: 3, seed: 5 });
  for (const a of set.context.apartments) graphs.set(a.file, new EngineGraph(await readVhGraph(join(out, a.file))));
}, scaled(60_000));

describe('et-plan task generation', () => {
  it('produces every family, items that parse, counts that add up', () => {
    for (const f of ET_PLAN_FAMILIES) {
      const g = set.context.generation[f]!;
      expect(g.kept, f).toBe(6);
      expect(g.generated - g.kept, f).toBe(Object.values(g.dropped).reduce((a, b) => a + b, 0));
      expect(set.items.filter((i) => i.task === f)).toHaveLength(6);
    }
    for (const i of set.items) expect(parseEtPlanItem(JSON.parse(JSON.stringify(i)))).toEqual(i);
    expect(new Set(set.items.map((i) => i.id)).size).toBe(set.items.length);
  });

  it('keeps only tasks whose ground-truth and oracle plans execute and meet the criteria, not met at the start', () => {
    for (const item of set.items) {
      const graph = graphs.get(item.apartment)!;
      const start = startState(graph, item.start_room.id);
      for (const plan of [item.ground_truth, item.oracle]) {
        const r = runPlan(item, start, plan);
        expect(r.ok, `${item.id}: ${r.error}`).toBe(true);
        expect(r.progress.done, item.id).toBe(true);
        expect(r.atStart.met, item.id).toBe(0);
      }
      const startPos = graph.node(item.start_room.id)!.center!;
      expect(item.figures.ground_truth_distance).toBe(walkDistance(graph, walkTargets(item.ground_truth), { start: startPos }));
      expect(item.figures.oracle_distance).toBe(walkDistance(graph, walkTargets(item.oracle), { start: startPos }));
      // The oracle is at least as short as the ground truth when the search saw every instance.
      const small = Object.values(item.candidates ?? {}).every((c) => c.length <= ORACLE_LIMITS.instances);
      if (small) expect(item.figures.oracle_distance, item.id).toBeLessThanOrEqual(item.figures.ground_truth_distance + 1e-9);
      expect(item.step_cap).toBe(stepCap(item.task, item.level === 'on' ? 'ON' : 'INSIDE'));
      expect(item.phrasings).toContain(item.instruction);
      for (const p of item.phrasings) expect(p).not.toMatch(/[{}]/);
    }
  });

  it('builds the ground truth as the released generators do: the deepest instance, walked from its room, opening on the way; two-arm plans walk back', () => {
    for (const item of set.items) {
      const graph = graphs.get(item.apartment)!;
      const first = walkTargets(item.ground_truth)[0];
      if (item.task !== 'multi-two-arm') expect(graph.isRoom(first), item.id).toBe(true);
      if (item.task === 'navigation' && graph.node(item.targets[0].id)!.properties.has('GRABBABLE')) expect(item.ground_truth.at(-1)).toMatch(/^\[grab\]/);
    }
    for (const item of set.items.filter((i) => i.task === 'multi-two-arm')) {
      const y = item.targets[2].id;
      const puts = item.ground_truth.findIndex((l) => /^\[put/.test(l));
      expect(item.ground_truth[puts - 1]).toBe(`[walk] <${item.targets[2].class}> (${y})`);
      expect(item.ground_truth.filter((l) => l.startsWith('[grab]'))).toHaveLength(2);
      expect(item.arms).toBe(2);
    }
    for (const item of set.items.filter((i) => i.task === 'multi-one-arm')) expect(item.arms).toBe(1);
  });

  it('states spatial constraints that hold at the start for every candidate and preferably decide between instances', () => {
    const spatial = set.items.filter((i) => i.constraint);
    expect(spatial.length).toBe(12);
    let decides = 0;
    for (const item of spatial) {
      const graph = graphs.get(item.apartment)!;
      const s = startState(graph, item.start_room.id);
      const { relation, anchor } = item.constraint!;
      const x = item.targets[0];
      const candidates = item.candidates?.[x.id] ?? [x.id];
      for (const c of candidates) expect(graph.ids.some((a) => graph.node(a)!.className === anchor.class && s.has(c, REL[relation], a)), `${item.id} ${c}`).toBe(true);
      expect(s.has(x.id, REL[relation], anchor.id)).toBe(true);
      const all = graph.ids.filter((id) => graph.node(id)!.className === x.class);
      if (all.length > candidates.length) decides++;
    }
    expect(decides).toBeGreaterThan(spatial.length / 2);
  });

  it('writes temporal criteria as two steps and multi-object criteria with both objects', () => {
    for (const item of set.items.filter((i) => i.task === 'temporal')) {
      expect(item.criteria).toHaveLength(2);
      const [x, b, d] = item.targets;
      expect(item.criteria[0][0]).toMatchObject({ from: x, to: b });
      expect(item.criteria[1][0]).toMatchObject({ from: b, to: d });
    }
    for (const item of set.items.filter((i) => i.task.startsWith('multi'))) {
      expect(item.criteria).toHaveLength(1);
      expect(item.criteria[0].map((c) => c.from)).toEqual([item.targets[0], item.targets[1], 'character']);
    }
  });

  it('is seeded: same settings, same items and files', async () => {
    const again = await temp();
    const set2 = await generateEtPlanItems({ out: again, apartments: 2, count: 3, seed: 5 });
    expect(set2.items).toEqual(set.items);
    for (const a of set.context.apartments) expect(await readFile(join(again, a.file), 'utf8')).toBe(await readFile(join(out, a.file), 'utf8'));
  }, scaled(60_000));
});

describe('occlusion subsets', () => {
  it('uses linear-interpolated percentiles (numpy default)', () => {
    // numpy.percentile([3, 1, 4, 1, 5, 9, 2, 6], [20, 80]) = [1.4, 5.6]
    expect(percentile([3, 1, 4, 1, 5, 9, 2, 6], 20)).toBeCloseTo(1.4, 12);
    expect(percentile([3, 1, 4, 1, 5, 9, 2, 6], 80)).toBeCloseTo(5.6, 12);
    expect(percentile([7], 20)).toBe(7);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 20)).toBeCloseTo(2.8, 12);
  });

  it('keeps sizes strictly below the 20th percentile and distances strictly above the 80th, per family', () => {
    const item = (task: EtPlanItem['task'], size: number, distance: number) => ({ task, figures: { target_size: size, start_distance: distance, ground_truth_distance: 0, oracle_distance: 0 }, subsets: [] }) as unknown as EtPlanItem;
    // Sizes 1..10: the 20th percentile is 2.8 (sizes 1 and 2 below); distances 1..10: the 80th is 8.2 (9 and 10 above).
    const nav = Array.from({ length: 10 }, (_, i) => item('navigation', i + 1, i + 1));
    // Ties at the threshold are not in the subset: all five equal.
    const flat = Array.from({ length: 5 }, () => item('manipulation', 2, 3));
    const t = occlusionSubsets([...nav, ...flat]);
    expect(t.navigation!.size).toBeCloseTo(2.8, 12);
    expect(t.navigation!.distance).toBeCloseTo(8.2, 12);
    expect(nav.map((i) => i.subsets)).toEqual([['occlusion-size'], ['occlusion-size'], [], [], [], [], [], [], ['occlusion-distance'], ['occlusion-distance']]);
    expect(flat.every((i) => i.subsets.length === 0)).toBe(true);
    expect(OCCLUSION).toEqual({ size: 20, distance: 80 });
  });
});

describe('gsr dataset synth et-plan', () => {
  it('writes an item set and reports kept counts per family', async () => {
    const dir = await temp();
    const r = runCli(['dataset', 'synth', 'et-plan', '--out', dir, '--apartments', '1', '--count', '1', '--families', 'navigation,temporal', '--seed', '2', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as { items: number; generation: Record<string, { kept: number }> };
    expect(res.items).toBe(2);
    expect(Object.keys(res.generation)).toEqual(['navigation', 'temporal']);
    const lines = (await readFile(join(dir, 'items.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as EtPlanItem).task)).toEqual(['navigation', 'temporal']);
  }, scaled(60_000));
});

describe('the released mix (mix: released, sizes)', () => {
  let rel: Awaited<ReturnType<typeof generateEtPlanItems>>;
  let relOut: string;
  const relGraphs = new Map<string, EngineGraph>();
  beforeAll(async () => {
    relOut = await temp();
    rel = await generateEtPlanItems({ out: relOut, apartments: 4, mix: 'released', sizes: { 'navigation-spatial': 40, 'manipulation-spatial': 20 }, families: ['navigation-spatial', 'manipulation-spatial'], seed: 7 });
    for (const a of rel.context.apartments) relGraphs.set(a.file, new EngineGraph(await readVhGraph(join(relOut, a.file))));
  }, scaled(60_000));

  const holdsFor = (item: EtPlanItem, id: number, c: { relation: keyof typeof REL; anchor: { class: string } }) => {
    const graph = relGraphs.get(item.apartment)!;
    const s = startState(graph, item.start_room.id);
    return graph.ids.some((a) => graph.node(a)!.className === c.anchor.class && s.has(id, REL[c.relation], a));
  };

  it('sizes are totals per family over the apartments, shared out evenly', () => {
    expect([0, 1, 2, 3].map((i) => shareOf(10, i, 4))).toEqual([3, 3, 2, 2]);
    expect(rel.context.generation['navigation-spatial']).toMatchObject({ kept: 40, wanted: 40 });
    expect(rel.context.generation['manipulation-spatial']).toMatchObject({ kept: 20, wanted: 20 });
    expect(SIZE_PRESETS.released).toEqual({ navigation: 714, 'navigation-spatial': 557, manipulation: 186, 'manipulation-spatial': 199, temporal: 85, 'multi-one-arm': 136, 'multi-two-arm': 146 });
    expect(Object.values(SIZE_PRESETS.released).reduce((a, b) => a + b, 0)).toBe(2023);
  });

  it('constraints are ON, INSIDE (a room or a thing) and FACING, rooms in about the released share', () => {
    const nav = rel.items.filter((i) => i.task === 'navigation-spatial');
    const kinds = nav.map((i) => (i.constraint!.relation === 'INSIDE' && relGraphs.get(i.apartment)!.isRoom(i.constraint!.anchor.id) ? 'room' : i.constraint!.relation));
    expect(new Set(kinds)).toEqual(new Set(['room', 'ON', 'FACING', 'INSIDE']));
    // 310 of 557 released tasks anchor to a room: 22.3 of 40 (the kinds are balanced over the run's apartments).
    const rooms = kinds.filter((k) => k === 'room').length;
    expect(Math.abs(rooms - (40 * 310) / 557)).toBeLessThanOrEqual(2);
    expect(nav.some((i) => i.instruction.includes('facing the') || i.phrasings.some((p) => p.includes('facing the')))).toBe(true);
    for (const i of rel.items) expect(i.constraint!.relation).not.toBe('CLOSE');
  });

  it('manipulation-spatial tasks constrain the object and the destination; every instance that counts meets its constraint', () => {
    for (const item of rel.items) {
      const [x, y] = item.targets;
      for (const c of item.candidates?.[x.id] ?? [x.id]) expect(holdsFor(item, c, item.constraint!), `${item.id} object ${c}`).toBe(true);
      if (item.task !== 'manipulation-spatial') continue;
      expect(item.destination_constraint, item.id).toBeDefined();
      for (const c of item.candidates?.[y.id] ?? [y.id]) expect(holdsFor(item, c, item.destination_constraint!), `${item.id} destination ${c}`).toBe(true);
      expect(item.targets.map((t) => t.id)).toContain(item.destination_constraint!.anchor.id);
    }
  });

  it('keeps only tasks whose plans execute and meet the criteria', () => {
    for (const item of rel.items) {
      const start = startState(relGraphs.get(item.apartment)!, item.start_room.id);
      for (const plan of [item.ground_truth, item.oracle]) expect(runPlan(item, start, plan).progress.done, item.id).toBe(true);
    }
  });

  it('the CLI takes --mix and --sizes, and refuses bad sizes', async () => {
    const bad = runCli(['dataset', 'synth', 'et-plan', '--out', await temp(), '--sizes', 'navigation=x']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/Expected released, paper or FAMILY=N/);
    const dir = await temp();
    const r = runCli(['dataset', 'synth', 'et-plan', '--out', dir, '--apartments', '2', '--mix', 'released', '--sizes', 'navigation-spatial=3', '--families', 'navigation-spatial', '--seed', '2']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/navigation-spatial\s+\d+\s+3\s+-\s+\d+\s+3/);
  }, scaled(60_000));
});
