import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, chmodSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { generateBenchmark, importBenchmark, loadItemSet } from '../../../src/benchmarks/index.js';
import { importVsp } from '../../../src/benchmarks/vsp/import.js';
import { VSP_TASKS, type VspContext, type VspItem } from '../../../src/benchmarks/vsp/item.js';
import { writeVspLayout } from '../../../src/benchmarks/vsp/layout.js';
import { buildVspPrompts, VspPromptSettingsSchema } from '../../../src/benchmarks/vsp/prompts.js';
import { mazePureText, mazeTable } from '../../../src/benchmarks/vsp/maze.js';
import { describeShared } from '../../helpers/shared.js';
import { sample, sampleRoot } from './sample.js';

let dir: string | undefined;
let copy: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** A writable copy of the sample (made once; each test restores what it changed). */
async function copySample(): Promise<string> {
  if (copy === undefined) {
    copy = mkdtempSync(join(tmpdir(), 'gsr-vsp-copy-'));
    cpSync(await sampleRoot(), copy, { recursive: true });
    for (const f of readdirSync(copy, { recursive: true, withFileTypes: true })) if (f.isFile()) chmodSync(join(f.parentPath, f.name), 0o644);
  }
  return copy;
}

describe('gsr dataset import vsp (the generated sample)', () => {
  it('reads every task and level with two items each, and the in-context examples', async () => {
    const { items, context } = await sample();
    const counts: Record<string, number> = {};
    for (const i of items) counts[`${i.task} ${i.level}`] = (counts[`${i.task} ${i.level}`] ?? 0) + 1;
    expect(new Set(items.map((i) => i.task))).toEqual(new Set(VSP_TASKS));
    expect(Object.values(counts).every((n) => n === 2)).toBe(true);
    expect(Object.keys(counts)).toHaveLength(6 * 4 + 5 + 4 + 3 * 3 + 4 + 2);
    expect(items).toHaveLength(96);
    expect(Object.keys(context.tasks['maze-main'].examples)).toEqual(['3', '4', '5', '6', '7', '8']);
    expect(context.tasks['blocks-main'].examples['7']).toHaveLength(2);
  });

  it('rebuilds the S/F/H/G maps from the table files; they agree with the data\'s own text files where it has them', async () => {
    const { items } = await sample();
    const t4 = items.filter((i) => i.task === 'maze-t4');
    expect(t4.length).toBeGreaterThan(0);
    for (const it of t4) {
      const text = readFileSync(join(await sampleRoot(), `maze/task4/maps/level_${it.level}/text/${it.index}.txt`), 'utf8');
      expect(it.maze!.join('\n')).toBe(text);
      expect(mazeTable(it.maze!)).toBe(it.table![0].trim());
      expect(mazePureText(it.maze!)).toBe(it.pure_text![0].trim());
    }
  });

  it('writes items.jsonl and context.json that read back identically', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-vsp-'));
    const out = join(dir, 'imported');
    const r = await importBenchmark('vsp', await sampleRoot(), out);
    expect(r.items).toBe(96);
    expect(r.counts['maze-t4']).toEqual({ step1: 2, step3: 2, step5: 2, step7: 2, step9: 2 });
    const set = await loadItemSet(out);
    expect(set.benchmark.name).toBe('vsp');
    expect([...set.items.values()]).toEqual((await sample()).items);
  });

  it.each([
    ['a missing item file', 'maze/task-main/maps/level5/table/1.txt', null, /cannot read .*maze\/task-main\/maps\/level5\/table\/1\.txt: ENOENT/],
    ['a malformed maze table', 'maze/task1/maps/level3/table/0.txt', '| | Col 1 |\n| Row 1 | ? |\n', /maze\/task1\/maps\/level3\/table\/0\.txt: unknown maze symbol "\?"/],
    ['a bad blocks state', 'blocks/task-main/maps/level3/info.txt', 'XX\tshape\tYY\tshape\t3\tmove(r,table,0)\n', /blocks\/task-main\/maps\/level3\/info\.txt:1: not a blocks state/],
    ['a bad Y/N answer', 'maze/task4/maps/level_step3/answer/1.txt', 'maybe', /level_step3\/answer\/1\.txt: expected Y or N, found "maybe"/],
    ['an answer that contradicts the map', 'maze/task4/maps/level_step3/answer/0.txt', null, /maze-t4\/step3\/0: the answer file disagrees with the map/],
    ['a missing figure', 'blocks/task2/prompt-visual-images/example0.jpg', null, /missing file .*blocks\/task2\/prompt-visual-images\/example0\.jpg/],
  ])('fails on %s, naming the file, and writes nothing', async (_what, rel, content, message) => {
    const root = await copySample();
    const file = join(root, rel);
    const original = readFileSync(file);
    dir = mkdtempSync(join(tmpdir(), 'gsr-vsp-'));
    const out = join(dir, 'out');
    try {
      if (content !== null) writeFileSync(file, content);
      else if (rel.includes('answer/')) writeFileSync(file, original.toString().trim() === 'Y' ? 'N' : 'Y');
      else rmSync(file);
      await expect(importBenchmark('vsp', root, out)).rejects.toThrow(message);
    } finally {
      writeFileSync(file, original);
    }
    expect(existsSync(join(out, 'items.jsonl'))).toBe(false);
    expect(existsSync(join(out, 'context.json'))).toBe(false);
  });

  it('refuses a root that does not exist', async () => {
    await expect(importVsp('/nonexistent/vsp')).rejects.toThrow('VSP root /nonexistent/vsp does not exist');
  });
});

describe('the generated sample', () => {
  it('is the same bytes for the same seed; another seed draws other maps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-vsp-seed-'));
    try {
      const [a, b, c] = ['a', 'b', 'c'].map((x) => join(dir, x));
      await writeVspLayout(a, { seed: 5, items: 1, examples: 1 });
      await writeVspLayout(b, { seed: 5, items: 1, examples: 1 });
      await writeVspLayout(c, { seed: 6, items: 1, examples: 1 });
      const files = readdirSync(a, { recursive: true, withFileTypes: true }).filter((f) => f.isFile()).map((f) => join(f.parentPath, f.name).slice(a.length + 1)).sort();
      for (const f of files) expect(readFileSync(join(b, f)).equals(readFileSync(join(a, f))), f).toBe(true);
      expect(readFileSync(join(c, 'blocks/task-main/maps/level3/info.txt'), 'utf8')).not.toBe(readFileSync(join(a, 'blocks/task-main/maps/level3/info.txt'), 'utf8'));
      await expect(writeVspLayout(a)).rejects.toThrow(`${a} is not empty`);
      await expect(writeVspLayout(join(dir, 'd'), { items: 0 })).rejects.toThrow('VSP layout settings: items: ');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('as the plug-in\'s generator: items without a root, paths under layout/, readable after the set is moved', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-vsp-gen-'));
    const r = await generateBenchmark('vsp', { items: 1, examples: 1, seed: 2 }, join(dir, 'set'));
    expect(r.items).toBe(48);
    renameSync(join(dir, 'set'), join(dir, 'moved'));
    const set = await loadItemSet(join(dir, 'moved'));
    const item = set.items.get('blocks-main/3/0') as VspItem;
    expect(item.root).toBe(join(dir, 'moved'));
    expect(item.images).toEqual(['layout/blocks/task-main/maps/level3/input_img/0.jpg', 'layout/blocks/task-main/maps/level3/output_img/0.jpg']);
    const [p] = buildVspPrompts(item, VspPromptSettingsSchema.parse({ shots: 1 }), set.context as VspContext);
    for (const part of p.parts) if (part.type === 'image') expect(existsSync(part.image), part.image).toBe(true);
  });
});

describeShared('the generated sample against the published VSP copy', ['vsp'], ({ vsp }) => {
  // A file's place in the tree with its numbers left out: maze/task1/maps/level3/img/N.png.
  const shapes = (root: string) => new Set(readdirSync(root, { recursive: true, withFileTypes: true }).filter((f) => f.isFile()).map((f) => join(f.parentPath, f.name.replace(/\d+/g, 'N')).slice(root.length + 1)));
  it('every kind of file it writes is one the published copy has, in the same folder', async () => {
    const ours = shapes(await sampleRoot());
    const theirs = shapes(vsp);
    expect([...ours].filter((s) => !theirs.has(s))).toEqual([]);
    expect(ours.size).toBeGreaterThan(100);
  });
});
