import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { generateBenchmark, loadItemSet } from '../../../src/benchmarks/index.js';
import { generateSvat } from '../../../src/benchmarks/svat/generate.js';
import { svat } from '../../../src/benchmarks/svat/index.js';
import { lineAnswer, parseSvatItem, TEMPLATES, type SvatItem } from '../../../src/benchmarks/svat/spec.js';
import { runCli, scaled } from '../../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gsr-svat-gen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL = { background: ['I1', 'I2', 'I3', 'I4', 'I5'], objects: ['shape', 'tshape', 'objects'], distractors: [1, 3], text: ['none', 'guide'] };

function files(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) if (f.isFile()) out.set(join(f.parentPath, f.name).slice(root.length), readFileSync(join(f.parentPath, f.name)));
  return out;
}

describe('SVAT generation', () => {
  it('same seed, byte-identical items and images; another seed, other ones', async () => {
    const settings = { ...ALL, count: 2, seed: 11, width: 64, height: 48, shots: 4 };
    for (const name of ['a', 'b']) await generateBenchmark('svat', settings, join(dir, name));
    await generateBenchmark('svat', { ...settings, seed: 12 }, join(dir, 'c'));
    const [a, b, c] = ['a', 'b', 'c'].map((n) => files(join(dir, n)));
    expect(a.size).toBe(60 * 2 * 5 + 2);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [k, v] of a) expect(b.get(k)!.equals(v), k).toBe(true);
    expect(c.get('/items.jsonl')!.equals(a.get('/items.jsonl')!)).toBe(false);
    expect([...a.keys()].filter((k) => k.endsWith('.png') && c.has(k) && c.get(k)!.equals(a.get(k)!))).toEqual([]);
  }, scaled(60_000));

  it('balances demonstrations and queries, and keeps every target on its side', async () => {
    const { items } = await generateSvat({ ...ALL, background: ['I1', 'I3'], count: 9, seed: 3, width: 48, height: 48, shots: 6, out: join(dir, 'bal') });
    expect(items).toHaveLength(2 * 3 * 2 * 2 * 9);
    const byLevel = new Map<string, SvatItem[]>();
    for (const i of items) byLevel.set(i.level, [...(byLevel.get(i.level) ?? []), i]);
    for (const [level, xs] of byLevel) {
      const yes = xs.filter((i) => i.query.answer === 'yes').length;
      expect(Math.abs(yes - (xs.length - yes)), level).toBeLessThanOrEqual(1);
    }
    const orders = new Set<string>();
    for (const i of items) {
      expect(i.demos.filter((d) => d.answer === 'yes')).toHaveLength(3);
      orders.add(i.demos.map((d) => d.answer[0]).join(''));
      for (const s of [...i.demos, i.query]) {
        expect(lineAnswer(i.line, s.objects[0])).toBe(s.answer);
        expect(s.objects).toHaveLength(i.phi.m);
      }
    }
    expect(orders.size).toBeGreaterThan(10); // random order, not yes-first
  });

  it('writes items.jsonl without a root, and loading gives the set folder as root', async () => {
    const out = join(dir, 'load');
    await generateBenchmark('svat', { count: 2, width: 32, height: 32 }, out);
    expect(readFileSync(join(out, 'items.jsonl'), 'utf8')).not.toContain('"root"');
    const set = await loadItemSet(out);
    expect([...set.items.values()].every((i) => i.root === out)).toBe(true);
    expect(set.context).toMatchObject({ benchmark: 'svat', templates: TEMPLATES, drawing: { colours: 'random', placement: 'paper', distractor_placement: 'label-side' } });
  });

  it('refuses items whose images do not hold M objects with the target first', async () => {
    const [item] = (await generateSvat({ count: 1, distractors: [3], width: 32, height: 32, out: join(dir, 'bad') })).items;
    expect(parseSvatItem(JSON.parse(JSON.stringify(item)))).toEqual(item);
    const q = item.query;
    expect(() => parseSvatItem({ ...item, query: { ...q, objects: q.objects.slice(1) } })).toThrow(`SVAT item ${item.id}: image 5 has 2 objects, but M is 3`);
    expect(() => parseSvatItem({ ...item, query: { ...q, objects: [...q.objects].reverse() } })).toThrow(/image 5's first object is a \w+, not the target/);
    expect(() => parseSvatItem({ ...item, line: { ...item.line, at: 2 } })).toThrow(`SVAT item ${item.id}: line.at: `);
  });

  it('refuses bad settings and unreadable photo folders in one line', async () => {
    await expect(generateSvat({ out: dir, shots: 3 })).rejects.toThrow('SVAT settings: shots: shots must be even');
    await expect(generateSvat({ out: dir, background: ['I9'] })).rejects.toThrow(/^SVAT settings: background\.0: /);
    await expect(generateSvat({ out: dir, width: 400, height: 100 })).rejects.toThrow('within a factor of 2');
    await expect(generateSvat({ out: dir, background: ['I5'], photos: join(dir, 'none') })).rejects.toThrow(`SVAT photos: ${join(dir, 'none')} does not exist`);
    const photos = join(dir, 'photos');
    mkdirSync(photos);
    writeFileSync(join(dir, 'outside.png'), 'not a png');
    symlinkSync(join(dir, 'outside.png'), join(photos, 'link.png'));
    await expect(generateSvat({ out: join(dir, 'x'), background: ['I5'], photos, count: 1 })).rejects.toThrow(/SVAT photos: .*link\.png: .*outside its root/);
  });

  it('I5 without photographs: the set carries a caveat naming its stand-in items, which the CLI prints; with photographs it carries none', async () => {
    const standIns = await generateSvat({ out: join(dir, 'i5-rendered'), background: ['I1', 'I5'], count: 2, width: 32, height: 32 });
    const notes = svat.notes!(new Map(standIns.items.map((i) => [i.id, i])));
    expect(notes).toEqual([expect.stringMatching(/^SVAT I5 \(photographs\): 2 items show rendered scenes standing in for photographs, as no photos folder was given/)]);
    const photos = join(dir, 'real-photos');
    mkdirSync(photos);
    await sharp({ create: { width: 40, height: 40, channels: 3, background: '#8a6' } }).png().toFile(join(photos, 'rendered-0.png'));
    const real = await generateSvat({ out: join(dir, 'i5-photos'), background: ['I5'], photos, count: 2, width: 32, height: 32 });
    expect(svat.notes!(new Map(real.items.map((i) => [i.id, i])))).toEqual([]);
    const r = runCli(['dataset', 'synth', 'svat', '--out', join(dir, 'i5-cli'), '--background', 'I5', '--count', '2', '--width', '32', '--height', '32']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`warning: ${notes[0]}`);
  }, scaled(60_000));

  it('gsr dataset synth svat writes the set; gsr dataset synth keeps its own required options', () => {
    const out = join(dir, 'cli');
    const r = runCli(['dataset', 'synth', 'svat', '--out', out, '--background', 'I1,I2', '--distractors', '3', '--shots', '2', '--count', '3', '--seed', '5', '--width', '40', '--height', '40', '--colours', 'palette', '--placement', 'boxed', '--distractor-placement', 'anywhere', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ benchmark: 'svat', items: 6, counts: { svat: { 'I1/shape/M3/none': 3, 'I2/shape/M3/none': 3 } } });
    expect(readdirSync(join(out, 'images'))).toHaveLength(18);
    expect(JSON.parse(readFileSync(join(out, 'context.json'), 'utf8'))).toMatchObject({ drawing: { colours: 'palette', placement: 'boxed', distractor_placement: 'anywhere' } });
    const bad = runCli(['dataset', 'synth', 'svat', '--out', out, '--count', '1', '--objects', 'shape,cubes']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('expected a comma-separated list of shape, tshape, objects (got "cubes")');
    const missing = runCli(['dataset', 'synth', '--count', '2']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("required option '--out <dir>' not specified");
  }, scaled(60_000));
});
