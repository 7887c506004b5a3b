import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchmarks, generateBenchmark, loadItemSet, scoreModels, writeBenchPromptFile } from '../../../src/benchmarks/index.js';
import { createOracle, createRandom } from '../../../src/benchmarks/snorkel-spatial/baselines.js';
import { generateSnorkelItems } from '../../../src/benchmarks/snorkel-spatial/generate.js';
import { answerAt, answerKey, answerSpaceSize, oracleAnswer, parseSnorkelItem, QUERY_TYPES, type SnorkelItem } from '../../../src/benchmarks/snorkel-spatial/item.js';
import { judgeSnorkel } from '../../../src/benchmarks/snorkel-spatial/judge.js';
import { chanceByQuery } from '../../../src/benchmarks/snorkel-spatial/report.js';
import { readBenchPrompts } from '../../../src/formats/chat-prompt.js';
import { runCli } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gsr-snorkel-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SnorkelSpatial generator', () => {
  it('same seed, byte-identical items; another seed, other items; a larger count only appends', async () => {
    const settings = { count: 30, actions: [10, 20, 50], seed: 7 };
    await generateBenchmark('snorkel-spatial', settings, join(dir, 'a'));
    await generateBenchmark('snorkel-spatial', settings, join(dir, 'b'));
    await generateBenchmark('snorkel-spatial', { ...settings, seed: 8 }, join(dir, 'c'));
    const bytes = (d: string) => readFileSync(join(dir, d, 'items.jsonl'));
    expect(bytes('a').equals(bytes('b'))).toBe(true);
    expect(readFileSync(join(dir, 'a', 'context.json')).equals(readFileSync(join(dir, 'b', 'context.json')))).toBe(true);
    expect(bytes('a').equals(bytes('c'))).toBe(false);
    const more = generateSnorkelItems({ ...settings, count: 40 }).items.slice(0, 30);
    expect(more).toEqual(generateSnorkelItems(settings).items);
  });

  it('spreads items over every action count and query type, and every item parses back', async () => {
    const set = await loadItemSet(join(dir, 'a'));
    const items = [...set.items.values()] as SnorkelItem[];
    expect(set.benchmark.name).toBe('snorkel-spatial');
    expect(new Set(items.map((i) => i.level))).toEqual(new Set(['10', '20', '50']));
    expect(new Set(items.map((i) => i.task))).toEqual(new Set(QUERY_TYPES));
    for (const i of items) {
      expect(i.actions).toHaveLength(Number(i.level));
      expect(i.answer).toEqual(oracleAnswer(i));
    }
  });

  it('gsr dataset synth snorkel-spatial writes the same bytes for the same seed; usage errors exit 2', () => {
    const args = (out: string) => ['dataset', 'synth', 'snorkel-spatial', '--out', join(dir, out), '--count', '25', '--actions', '10,20,50,100,200', '--seed', '7', '--json'];
    const r = runCli(args('cli1'));
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ benchmark: 'snorkel-spatial', items: 25, settings: { count: 25, seed: 7, board_width: 20, particles: 3 } });
    expect(runCli(args('cli2')).status).toBe(0);
    expect(readFileSync(join(dir, 'cli1', 'items.jsonl')).equals(readFileSync(join(dir, 'cli2', 'items.jsonl')))).toBe(true);
    const bad = runCli(['dataset', 'synth', 'snorkel-spatial', '--out', join(dir, 'x'), '--count', '3', '--actions', '10,ten']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("option '--actions <list>' argument '10,ten' is invalid");
    // The scene synthesiser beside it keeps its required options.
    const scenes = runCli(['dataset', 'synth', '--count', '1']);
    expect(scenes.status).toBe(2);
    expect(scenes.stderr).toBe("gsr: error: required option '--out <dir>' not specified\n");
  }, 60_000);

  it('rejects bad items and settings with one clear line', () => {
    const good = generateSnorkelItems({ count: 1 }).items[0];
    expect(() => parseSnorkelItem({ ...good, width: 1 })).toThrow(/^SnorkelSpatial item ss-000000: width: /);
    expect(() => parseSnorkelItem({ ...good, actions: [{ actor: 'P7', move: 'FORWARD' }], level: '1' })).toThrow('P7 is not one of its particles');
    expect(() => parseSnorkelItem({ ...good, level: '3' })).toThrow('level 3 but 10 actions');
    expect(() => parseSnorkelItem({ ...good, particles: [{ ...good.particles[0], at: [20.5, 0.5] }, ...good.particles.slice(1)] })).toThrow('P1 at (20.5, 0.5) is not the centre of a tile');
    expect(() => parseSnorkelItem({ ...good, particles: [{ ...good.particles[0], at: [1, 0.5] }, ...good.particles.slice(1)] })).toThrow('is not the centre of a tile');
    expect(() => parseSnorkelItem({ ...good, task: 'tile', query: { subject: 'B1' } })).toThrow('a tile query is about a particle, not the board');
    expect(() => parseSnorkelItem({ ...good, task: 'relative-location', query: { subject: 'P1' } })).toThrow('a relative-location query needs "from"');
    expect(() => parseSnorkelItem({ ...good, task: 'relative-location', query: { subject: 'P1', from: 'P1' } })).toThrow('two different particles');
    expect(() => parseSnorkelItem({ ...good, actions: [...good.actions.slice(1), { actor: 'BOARD', rotate: 45 }] })).toThrow(/^SnorkelSpatial item ss-000000: actions\.9/);
    expect(() => generateSnorkelItems({ count: 0 })).toThrow('SnorkelSpatial generation settings: count: ');
  });
});

describe('SnorkelSpatial prompts, judge and baselines', () => {
  const items = generateSnorkelItems({ count: 100, actions: [10, 50], seed: 3, board_width: 6 }).items;
  const byId = new Map(items.map((i) => [i.id, i]));

  it('builds one text-only prompt per item in the published sections, with a JSON schema naming the answer key', async () => {
    const b = benchmarks.get('snorkel-spatial');
    const s = await writeBenchPromptFile(b, items, {}, null, join(dir, 'prompts.jsonl'));
    expect(s).toMatchObject({ items: 100, prompts: 100, images: 0, skipped: [] });
    const prompts = await readBenchPrompts(join(dir, 'prompts.jsonl'));
    for (const p of prompts) {
      expect(p.parts.map((x) => x.type)).toEqual(['text']);
      const key = Object.keys(byId.get(p.item)!.answer)[0];
      expect(p.response_format?.schema).toMatchObject({ required: [key] });
      const text = (p.parts[0] as { text: string }).text;
      expect(text).toContain(`\nKey: \`${key}\`\nType: `);
      expect(text.split('\n').filter((l) => l.startsWith('# '))).toEqual(['# Initial States', '# Actions', '# Question', '# Response format - JSON schema']);
      expect(text).toMatch(/\nThe actions are the following:\nFirst, .*\. Then, /);
      expect(text).toContain(`Initially the board is at location (3.0, 3.0) and oriented towards north.`);
    }
    // Both wordings of each kind of action occur.
    const all = prompts.map((p) => (p.parts[0] as { text: string }).text).join('\n');
    for (const re of [/move particle P\d (FORWARD|BACKWARD|LEFT|RIGHT) by 1 unit/, /particle P\d is moved \w+ by 1 unit/, /rotate board B1 by \d+ degrees/, /board B1 is rotated by \d+ degrees/]) expect(all).toMatch(re);
    // Keys name the entity and the property; the board has a location and an orientation.
    const keys = new Set(items.map((i) => answerKey(i)));
    for (const k of ['board_B1_location', 'board_B1_orientation', 'particle_P1_tile', 'particle_P2_location']) expect(keys).toContain(k);
    expect([...keys].some((k) => /^particle_P\d_orientation_relative_to_particle_P\d$/.test(k))).toBe(true);
    expect([...keys].some((k) => /^particle_P\d_location_relative_to_particle_P\d$/.test(k))).toBe(true);
  });

  it('judges: right value correct, wrong value valid but wrong, no key or bad shape invalid', () => {
    const tile = items.find((i) => i.task === 'tile')!;
    const tk = answerKey(tile);
    const right = tile.answer[tk] as number;
    expect(judgeSnorkel(tile, `The answer is {"${tk}": ${right}}.`)).toMatchObject({ valid: true, correct: true });
    expect(judgeSnorkel(tile, '```json\n{"' + tk + '": ' + (right + 1) + '}\n```')).toMatchObject({ valid: true, correct: false });
    expect(judgeSnorkel(tile, 'tile 5')).toMatchObject({ valid: false, correct: false });
    expect(judgeSnorkel(tile, '{"tile": 5}')).toMatchObject({ valid: false, reason: `no "${tk}" key` });
    expect(judgeSnorkel(tile, `{"${tk}": "five"}`)).toMatchObject({ valid: false });
    const orient = items.find((i) => i.task === 'absolute-orientation')!;
    const ok = answerKey(orient);
    expect(judgeSnorkel(orient, JSON.stringify({ [ok]: String(orient.answer[ok]).toLowerCase() }))).toMatchObject({ valid: true, correct: true });
    // Points: [x, y] numbers, or the text "(x, y)"; a cell without the half is a different point.
    const loc = items.find((i) => i.task === 'absolute-location' && i.query.subject !== 'B1')!;
    const lk = answerKey(loc);
    const [x, y] = loc.answer[lk] as [number, number];
    expect(x % 1 === 0.5 || x % 1 === -0.5).toBe(true);
    expect(judgeSnorkel(loc, JSON.stringify(loc.answer))).toMatchObject({ valid: true, correct: true, extracted: [x, y] });
    expect(judgeSnorkel(loc, `{"${lk}": "(${x}, ${y})"}`)).toMatchObject({ valid: true, correct: true });
    expect(judgeSnorkel(loc, `{"${lk}": [${x - 0.5}, ${y - 0.5}]}`)).toMatchObject({ valid: true, correct: false });
    expect(judgeSnorkel(loc, `{"${lk}": {"x": ${x}, "y": ${y}}}`)).toMatchObject({ valid: false });
    const rel = items.find((i) => i.task === 'relative-location')!;
    expect(judgeSnorkel(rel, JSON.stringify(rel.answer))).toMatchObject({ valid: true, correct: true });
    expect(judgeSnorkel(rel, `{"${answerKey(rel)}": {"front": 1, "right": 2}}`)).toMatchObject({ valid: false });
  });

  it('the oracle scores 100%; random stays near chance for each query type', async () => {
    const prompts = await readBenchPrompts(join(dir, 'prompts.jsonl'));
    const oracle = createOracle(byId, { name: 'oracle', seed: 0 });
    const random = createRandom(byId, { name: 'random', seed: 1 });
    const responses = new Map<string, Array<{ key: string; model: string; output: string; status: 'ok' }>>();
    for (const a of [oracle, random]) responses.set(a.name, await Promise.all(prompts.map(async (p) => ({ key: p.key, model: a.name, output: (await a.answer(p, new AbortController().signal)) as string, status: 'ok' as const }))));
    const { cells } = scoreModels(benchmarks.get('snorkel-spatial'), byId, prompts, responses);
    const sum = (m: string, f: (c: (typeof cells)[number]) => number) => cells.filter((c) => c.model === m).reduce((s, c) => s + f(c), 0);
    expect(sum('oracle', (c) => c.correct)).toBe(100);
    expect(sum('random', (c) => c.invalid)).toBe(0);
    // Orientation queries: chance 1/4 over 40 items; the rest have far larger answer spaces.
    const chance = chanceByQuery(items);
    expect(chance.get('absolute-orientation')!.chance).toBe(0.25);
    expect(chance.get('tile')!.chance).toBeCloseTo(1 / 36);
    expect(chance.get('relative-location')!.chance).toBeCloseTo(1 / 121);
    const orientCorrect = cells.filter((c) => c.model === 'random' && c.task.endsWith('orientation')).reduce((s, c) => s + c.correct, 0);
    expect(orientCorrect).toBeGreaterThan(2);
    expect(orientCorrect).toBeLessThan(20);
  });

  it('the random answer space holds the true answer, and every answer in it is valid', () => {
    for (const i of items.slice(0, 40)) {
      const n = answerSpaceSize(i);
      const space = Array.from({ length: n }, (_, k) => JSON.stringify(answerAt(i, k)));
      expect(new Set(space).size).toBe(n);
      expect(space).toContain(JSON.stringify(i.answer));
      expect(judgeSnorkel(i, space[n - 1]).valid).toBe(true);
    }
  });
});
