import { copyFileSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPromptFile, indexDepth, depthHint, DEFAULT_TEMPLATES } from '../../src/prompts/index.js';
import { sha256File } from '../../src/util/hash.js';
import type { PromptRecord } from '../../src/formats/index.js';
import { runCli, scaled } from '../helpers/cli.js';
import { whatsupLayoutSample } from '../helpers/samples.js';
import { depthAnnotations, sampleItems as itemsIn, tempDir, writeManifest } from './fixtures.js';

let root = '';
beforeAll(async () => {
  root = await whatsupLayoutSample();
});
const sampleItems = () => itemsIn(root);

function readPrompts(path: string): PromptRecord[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as PromptRecord);
}

describe("buildPromptFile on What'sUp-layout images", () => {
  it('writes one MC prompt per rotation with absolute image paths and content-hash keys', async () => {
    const dir = tempDir();
    const manifest = writeManifest(dir, sampleItems());
    const out = join(dir, 'mc.jsonl');
    const r = await buildPromptFile({ manifest, task: 'mc', out });
    expect(r).toMatchObject({ items: 7, prompts: 4 * 5 + 2 + 2, skipped: [] });
    const prompts = readPrompts(out);
    expect(prompts).toHaveLength(24);
    expect(prompts[0].image).toBe(join(root, 'controlled_images/mug_on_table.jpeg'));
    expect(new Set(prompts.map((p) => p.key)).size).toBe(24);
    // Same bytes under another root: same keys.
    const copyRoot = join(dir, 'copy');
    mkdirSync(join(copyRoot, 'controlled_images'), { recursive: true });
    copyFileSync(prompts[0].image, join(copyRoot, 'controlled_images/mug_on_table.jpeg'));
    const moved = writeManifest(join(dir), [{ ...sampleItems()[0], root: copyRoot }]);
    await buildPromptFile({ manifest: moved, task: 'mc', out: join(dir, 'moved.jsonl') });
    expect(readPrompts(join(dir, 'moved.jsonl')).map((p) => p.key)).toEqual(prompts.slice(0, 4).map((p) => p.key));
  });

  it('skips and reports bad items (invalid record, missing image) and keeps the rest', async () => {
    const dir = tempDir();
    const items = sampleItems().slice(0, 2);
    const manifest = writeManifest(dir, [...items, { ...items[0], id: 'missing-image', image: 'controlled_images/nope.jpeg' }], [JSON.stringify({ id: 'bad', split: 'x' })]);
    const r = await buildPromptFile({ manifest, task: 'grounding', out: join(dir, 'g.jsonl') });
    expect(r.items).toBe(2);
    expect(r.prompts).toBe(4);
    expect(r.skipped.map((s) => s.item)).toEqual(['missing-image', 'bad']);
    expect(r.skipped[0].reason).toMatch(/cannot read image .*nope\.jpeg: ENOENT/);
    expect(r.skipped[1].reason).toMatch(/invalid manifest record/);
  });

  it('does not leave a partial file when the manifest is unreadable', async () => {
    const dir = tempDir();
    await expect(buildPromptFile({ manifest: join(dir, 'none.jsonl'), task: 'mc', out: join(dir, 'o.jsonl') })).rejects.toThrow(/cannot read .*none\.jsonl/);
    expect(existsSync(join(dir, 'o.jsonl'))).toBe(false);
  });

  it('hashes image bytes', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'f'), 'abc');
    expect(await sha256File(join(dir, 'f'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('DAP prompts', () => {
  let items: ReturnType<typeof sampleItems> = [];
  beforeAll(() => {
    items = sampleItems();
  });

  it('add a hint with both depths, the unit and the direction, to MC (default) or TG', async () => {
    const dir = tempDir();
    const manifest = writeManifest(dir, items);
    const annotations = join(dir, 'ann.json');
    writeFileSync(annotations, JSON.stringify(depthAnnotations(items)));
    const r = await buildPromptFile({ manifest, task: 'dap', out: join(dir, 'dap.jsonl'), annotations, relations: ['front', 'behind'] });
    expect(r.items).toBe(1);
    const prompts = readPrompts(join(dir, 'dap.jsonl'));
    expect(prompts).toHaveLength(4);
    const p = prompts[0];
    expect(p).toMatchObject({ task: 'dap', base_task: 'mc', item: 'whatsup-b-mug-behind', expected: 'A' });
    expect(p.hint).toBe('Depth hint: the mug is 1.25 m from the camera and the plate is 2.50 m from the camera (larger values are farther).');
    expect(p.text.startsWith(p.hint! + '\n')).toBe(true);
    expect(p.text).toContain('A. A mug behind a plate');
    await buildPromptFile({ manifest, task: 'dap', out: join(dir, 'dap-tg.jsonl'), annotations, baseTask: 'tg', depthStat: 'mean', splits: ['whatsup-b'] });
    const tg = readPrompts(join(dir, 'dap-tg.jsonl'))[0];
    expect(tg).toMatchObject({ base_task: 'tg', expected: 'A mug behind a plate' });
    expect(tg.hint).toContain('1.30 m');
    expect(tg.key).not.toBe(p.key);
  });

  it('states relative depth as unitless with "larger is nearer"', () => {
    const coco = depthAnnotations(items, { unit: 'relative-inverse', scale: 1, larger: 'nearer' });
    const h = depthHint(items[4], indexDepth(coco, 'a.json'), DEFAULT_TEMPLATES, 'median');
    expect(h).toEqual({ hint: 'Depth hint: the relative depth of the mug is 1.25 and that of the plate is 2.5 (unitless relative inverse depth values; larger values are nearer).', depth: { subject: 1.25, object: 2.5, unit: 'relative-inverse', larger: 'nearer' } });
  });

  it('refuses depth without a stated unit or direction', () => {
    expect(() => indexDepth(depthAnnotations(items, null), 'a.json')).toThrow(/a\.json: info\.depth is missing/);
    expect(() => indexDepth(depthAnnotations(items, { unit: 'm', scale: 1 } as never), 'a.json')).toThrow(/info\.depth\.larger must be "farther" or "nearer"/);
    expect(() => indexDepth(depthAnnotations(items, { scale: 1, larger: 'farther' } as never), 'a.json')).toThrow(/info\.depth\.unit/);
  });

  it('skips items whose annotations lack depth, a unit or an object, with the reason', () => {
    const coco = depthAnnotations(items);
    coco.annotations[1].depth = undefined; // item 0 object
    delete (coco.annotations[2].depth as { unit?: string }).unit; // item 1 subject
    const index = indexDepth(coco, 'a.json');
    expect(depthHint(items[0], index, DEFAULT_TEMPLATES, 'median')).toEqual({ skip: 'object has no depth' });
    expect(depthHint(items[1], index, DEFAULT_TEMPLATES, 'median')).toEqual({ skip: 'subject depth has no unit' });
    expect(depthHint(items[6], index, DEFAULT_TEMPLATES, 'median')).toMatchObject({ skip: expect.stringMatching(/one-object/) });
    expect(depthHint({ id: 'unknown', subject: 'a', object: 'b' }, index, DEFAULT_TEMPLATES, 'median')).toEqual({ skip: 'subject not annotated (no box for it, so no depth)' });
  });

  it('needs --annotations', async () => {
    const dir = tempDir();
    await expect(buildPromptFile({ manifest: writeManifest(dir, items), task: 'dap', out: join(dir, 'x.jsonl') })).rejects.toThrow(/--task dap needs --annotations/);
  });
});

// These spawn the CLI from source; one start can take tens of seconds on a loaded 2-core machine.
describe('gsr prompts (CLI)', { timeout: scaled(150_000) }, () => {
  it('builds a prompt file with per-model templates and prints a JSON summary', () => {
    const dir = tempDir();
    const manifest = writeManifest(dir, sampleItems().slice(0, 1));
    const templates = join(dir, 't.yaml');
    writeFileSync(templates, 'models:\n  qwen:\n    grounding: "Output bbox_2d for the {object}."\n');
    const r = runCli(['prompts', '--manifest', manifest, '--task', 'grounding', '--templates', templates, '--model', 'qwen', '--out', join(dir, 'g.jsonl'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ items: 1, prompts: 2 });
    expect(readPrompts(join(dir, 'g.jsonl'))[1].text).toBe('Output bbox_2d for the table.');
  });
  it('fails in one line on a bad task', () => {
    const dir = tempDir();
    const manifest = writeManifest(dir, sampleItems().slice(0, 1));
    const bad = runCli(['prompts', '--manifest', manifest, '--task', 'xx', '--out', join(dir, 'o.jsonl')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toBe("gsr: error: option '--task <task>' argument 'xx' is invalid. Allowed choices are tg, mc, grounding, dap.");
  });
});
