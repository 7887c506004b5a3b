import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { annotate } from '../../src/annotate/run.js';
import { generateBenchmark, importBenchmark, loadItemSet, writeBenchPromptFile } from '../../src/benchmarks/index.js';
import { loadApartments } from '../../src/benchmarks/et-plan/loop.js';
import { importReleasedTasks } from '../../src/benchmarks/et-plan/released.js';
import { synthApartments } from '../../src/benchmarks/et-plan/synth.js';
import type { EtPlanItem } from '../../src/benchmarks/et-plan/task.js';
import { readBenchPrompts } from '../../src/formats/chat-prompt.js';
import { targetsFromManifest } from '../../src/annotate/targets.js';
import { importWhatsup, importWhatsupToManifest } from '../../src/datasets/index.js';
import { createOpenAiAnswerer, RunStore, runPrompts } from '../../src/mllm/index.js';
import { buildPromptFile } from '../../src/prompts/files.js';
import { collectGallery } from '../../src/report/gallery.js';
import { A_CAPTIONS, controlled, tempDir, writeJpeg, writeWhatsupFolder } from '../datasets/fixtures.js';
import { DOUBLE_DEPTH, DOUBLE_DETECTOR, DOUBLE_SEGMENTER, registerDoubles } from '../annotate/helpers/doubles.js';
import { runCli, scaled } from '../helpers/cli.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';
import { sampleRoot as vspSampleRoot } from '../benchmarks/vsp/sample.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
beforeAll(() => registerDoubles());

type Kind = 'file' | 'directory';

/**
 * A What'sUp root with one good image (`controlled_images/good.jpeg`) and one record whose image is
 * reached through a symbolic link: to a JPEG outside the root (file link), or through a linked folder.
 * The outside JPEG is a real image, so even size reading succeeds on it.
 */
async function escapingRoot(kind: Kind): Promise<{ root: string; secret: Buffer }> {
  const outside = await tempDir('gsr-outside-');
  await writeJpeg(join(outside, 'secret.jpeg'), 40, 30);
  const secret = readFileSync(join(outside, 'secret.jpeg'));
  const linked = kind === 'file' ? 'controlled_images/linked.jpeg' : 'controlled_images/outside/secret.jpeg';
  const root = await writeWhatsupFolder(
    { 'controlled_images_dataset.json': [controlled('controlled_images/good.jpeg', A_CAPTIONS), controlled(linked, A_CAPTIONS)] },
    ['controlled_images/good.jpeg'],
  );
  if (kind === 'file') symlinkSync(join(outside, 'secret.jpeg'), join(root, 'controlled_images', 'linked.jpeg'));
  else symlinkSync(outside, join(root, 'controlled_images', 'outside'));
  return { root, secret };
}

/** A clean root, imported to a manifest; the test then changes it so the image escapes. */
async function cleanImport(): Promise<{ root: string; manifest: string; dir: string }> {
  const dir = await tempDir('gsr-swap-');
  const root = await writeWhatsupFolder({ 'controlled_images_dataset.json': [controlled('controlled_images/good.jpeg', A_CAPTIONS)] }, ['controlled_images/good.jpeg']);
  const manifest = join(dir, 'manifest.jsonl');
  await importWhatsupToManifest(root, manifest);
  return { root, manifest, dir };
}

function swap(root: string, kind: Kind, outsideFile: string): void {
  const images = join(root, 'controlled_images');
  if (kind === 'file') {
    renameSync(join(images, 'good.jpeg'), join(images, 'moved.jpeg'));
    symlinkSync(outsideFile, join(images, 'good.jpeg'));
  } else {
    renameSync(images, join(root, 'moved_images'));
    symlinkSync(join(outsideFile, '..'), images);
  }
}

describe.each<Kind>(['file', 'directory'])('a %s symbolic link out of the dataset root', (kind) => {
  it.each([true, false])('is refused at import (reading sizes: %s)', async (readSizes) => {
    const { root } = await escapingRoot(kind);
    await expect(importWhatsup(root, { readSizes })).rejects.toThrow(/leaves the dataset root.*symbolic link/);
    const skipped = await importWhatsup(root, { readSizes, skipInvalid: true });
    expect(skipped.items.map((i) => i.image)).toEqual(['controlled_images/good.jpeg']);
    expect(skipped.skipped).toHaveLength(1);
  });

  it('is refused when prompts are built, when a run reads the image, by annotation and by the report', async () => {
    const { root, manifest, dir } = await cleanImport();
    const outsideDir = await tempDir('gsr-outside-');
    await writeJpeg(join(outsideDir, 'good.jpeg'), 48, 36);
    const secret = readFileSync(join(outsideDir, 'good.jpeg'));
    // Prompts built while the root was clean hold the image's real path.
    const promptsPath = join(dir, 'prompts.jsonl');
    expect((await buildPromptFile({ manifest, task: 'tg', out: promptsPath })).prompts).toBeGreaterThan(0);
    swap(root, kind, join(outsideDir, 'good.jpeg'));

    // Prompt time: the item is skipped, naming the link.
    const later = await buildPromptFile({ manifest, task: 'tg', out: join(dir, 'later.jsonl') });
    expect(later.prompts).toBe(0);
    expect(later.skipped[0].reason).toMatch(/symbolic link/);

    // Run time: the earlier prompt file now leads through the link; nothing is posted.
    const server = await startFakeServer();
    servers.push(server);
    const store = RunStore.open(join(dir, 'runs.sqlite'));
    try {
      const summary = await runPrompts({
        prompts: promptsPath, store, answerer: createOpenAiAnswerer({ model: 'm1', baseUrl: server.url }),
        settings: { answerer: 'openai', model: 'm1' }, retry: { maxRetries: 0 },
      });
      expect(summary.ok).toBe(0);
      expect(summary.failed).toBe(summary.prompts);
      expect(JSON.stringify([...store.responses({ model: 'm1' })])).toMatch(/symbolic link/);
    } finally {
      store.close();
    }
    expect(server.totalRequests()).toBe(0);
    const b64 = secret.toString('base64');
    for (const body of server.bodies) expect(JSON.stringify(body)).not.toContain(b64.slice(0, 64));

    // Annotation: the image fails with the reason, its pixels are never decoded.
    const out = join(dir, 'ann');
    const targets = await targetsFromManifest(manifest);
    const r = await annotate({ targets, outDir: out, detector: DOUBLE_DETECTOR, segmenter: DOUBLE_SEGMENTER, depth: DOUBLE_DEPTH, modelsDir: '/nonexistent', device: 'cpu' });
    expect(r.images_failed).toBe(1);
    expect(readFileSync(join(out, 'annotations.json'), 'utf8')).toMatch(/symbolic link/);

    // Report: no thumbnail of the outside file, a warning instead.
    const results = join(dir, 'results');
    mkdirSync(results);
    writeFileSync(join(results, 'grounding-items.jsonl'), JSON.stringify({ item: targets[0].itemId, split: 'whatsup-a', role: 'subject', phrase: 'mug', output: 'x', hit: true }) + '\n');
    const gallery = await collectGallery([{ model: 'm1', dir: results, reasoning: [], grounding: null, groundingOutcomes: null, warnings: [] }], { manifest });
    expect(gallery.images.size).toBe(0);
    expect(gallery.warnings.join('\n')).toMatch(/symbolic link/);
  });
});

describe("the issue's repro: a folder link to /etc", () => {
  it('gsr dataset import whatsup --no-sizes refuses data/controlled_images/etc/passwd', async () => {
    const root = await tempDir('gsr-etc-');
    mkdirSync(join(root, 'controlled_images'));
    symlinkSync('/etc', join(root, 'controlled_images', 'etc'));
    writeFileSync(join(root, 'controlled_images_dataset.json'), JSON.stringify([controlled('controlled_images/etc/passwd', A_CAPTIONS)]));
    const r = runCli(['dataset', 'import', 'whatsup', '--root', root, '--no-sizes', '--out', join(root, 'm.jsonl')]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^gsr: error: .*leaves the dataset root.*\/etc\/passwd/);
  }, scaled(60_000));
});

/**
 * Benchmark plug-ins, through the shared machinery (importBenchmark, generateBenchmark, loadItemSet,
 * writeBenchPromptFile): a file or folder link out of the item set's root is refused at import, and an
 * image swapped for a link after import is never read when prompts are built.
 */
describe('benchmark item sets: links out of the root', () => {
  /** A file outside every root, with the bytes of `like` (so only the link is wrong). */
  function outsideCopy(like: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-outside-'));
    const path = join(dir, basename(like));
    copyFileSync(like, path);
    return path;
  }
  /** Replaces `path` by a link to an outside copy of it; returns the copy. */
  function linkOut(path: string): string {
    const copy = outsideCopy(path);
    rmSync(path);
    symlinkSync(copy, path);
    return copy;
  }
  const first = (root: string, re: RegExp) => {
    const hit = readdirSync(root, { recursive: true, encoding: 'utf8' }).sort().find((f) => re.test(f));
    if (!hit) throw new Error(`no file like ${re} in ${root}`);
    return join(root, hit);
  };
  async function vspCopy(): Promise<string> {
    const root = join(mkdtempSync(join(tmpdir(), 'gsr-vsp-')), 'VSP');
    cpSync(await vspSampleRoot(), root, { recursive: true });
    return root;
  }
  /** Prompts built from an item set folder: the summary and the sha256 of every image sent. */
  async function promptsOf(set: string) {
    const { benchmark, items, context } = await loadItemSet(set);
    const s = await writeBenchPromptFile(benchmark, items.values(), {}, context, join(set, '..', 'prompts.jsonl'));
    const shas = (await readBenchPrompts(join(set, '..', 'prompts.jsonl'))).flatMap((p) => p.parts.flatMap((part) => (part.type === 'image' ? [part.sha256] : [])));
    return { s, shas };
  }
  const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

  it.each([
    ['a text file the importer reads', /maps\/level\d+\/table\/\d+\.txt$/],
    ['an image', /maps\/level\d+\/img\/\d+\.png$/],
  ])('VSP: %s linked out of the copy is refused at import, and nothing is written', async (_what, re) => {
    const root = await vspCopy();
    linkOut(first(root, re));
    const out = join(root, '..', 'set');
    await expect(importBenchmark('vsp', root, out)).rejects.toThrow(/outside its root .*\(a symbolic link\); refused/);
    expect(existsSync(join(out, 'items.jsonl'))).toBe(false);
  }, 120_000);

  it('VSP: a folder linked out of the copy is refused at import', async () => {
    const root = await vspCopy();
    const level = dirname(dirname(first(root, /maps\/level\d+\/img\/\d+\.png$/)));
    const away = join(mkdtempSync(join(tmpdir(), 'gsr-outside-')), 'level');
    renameSync(level, away);
    symlinkSync(away, level);
    await expect(importBenchmark('vsp', root, join(root, '..', 'set'))).rejects.toThrow(/outside its root .*symbolic link/);
  }, 120_000);

  it('VSP: an image swapped for a link after import is skipped by the prompt writer, never hashed', async () => {
    const root = await vspCopy();
    const set = join(root, '..', 'set');
    await importBenchmark('vsp', root, set);
    const clean = await promptsOf(set);
    const secret = linkOut(first(root, /maps\/level\d+\/img\/\d+\.png$/));
    writeFileSync(secret, 'outside bytes');
    const after = await promptsOf(set);
    expect(after.s.skipped.length).toBeGreaterThan(0);
    expect(after.s.skipped.every((k) => /symbolic link/.test(k.reason))).toBe(true);
    expect(after.s.items).toBe(clean.s.items - after.s.skipped.length);
    expect(after.shas).not.toContain(sha(secret));
  }, 120_000);

  it('SVAT: a photograph linked out of the photos folder is refused when the set is generated', async () => {
    const photos = mkdtempSync(join(tmpdir(), 'gsr-photos-'));
    await writeJpeg(join(photos, 'a.jpeg'), 40, 30);
    await writeJpeg(join(photos, 'b.jpeg'), 40, 30);
    linkOut(join(photos, 'b.jpeg'));
    const out = join(mkdtempSync(join(tmpdir(), 'gsr-svat-')), 'set');
    await expect(generateBenchmark('svat', { background: ['I5'], photos, count: 1, width: 64, height: 64 }, out)).rejects.toThrow(/b\.jpeg.*outside its root.*symbolic link/);
    expect(existsSync(join(out, 'items.jsonl'))).toBe(false);
  }, 120_000);

  it('SVAT: an image of a generated set swapped for a link out of it is skipped by the prompt writer', async () => {
    const set = join(mkdtempSync(join(tmpdir(), 'gsr-svat-')), 'set');
    await generateBenchmark('svat', { count: 2, width: 64, height: 64 }, set);
    const clean = await promptsOf(set);
    const secret = linkOut(first(set, /\.png$/));
    writeFileSync(secret, 'outside bytes');
    const after = await promptsOf(set);
    expect(after.s.skipped.map((k) => k.reason)).toEqual([expect.stringMatching(/outside its root .*symbolic link/)]);
    expect(after.s.items).toBe(clean.s.items - 1);
    expect(after.shas).not.toContain(sha(secret));
  }, 120_000);

  it.each(['items.jsonl', 'context.json'])('SnorkelSpatial: a set whose %s links out of its folder is refused when loaded', async (file) => {
    const set = join(mkdtempSync(join(tmpdir(), 'gsr-snorkel-')), 'set');
    await generateBenchmark('snorkel-spatial', { count: 2 }, set);
    expect((await promptsOf(set)).s.prompts).toBeGreaterThan(0);
    linkOut(join(set, file));
    await expect(loadItemSet(set)).rejects.toThrow(new RegExp(`${file.replace('.', '\\.')} resolves to .*, outside its root .*symbolic link`));
  }, 120_000);

  it('ET-Plan-Bench: an apartment of a generated set swapped for a link out of it is refused, its items skipped', async () => {
    const set = join(mkdtempSync(join(tmpdir(), 'gsr-etplan-')), 'set');
    await generateBenchmark('et-plan', { apartments: 2, count: 1, seed: 5 }, set);
    const { items } = await loadItemSet(set);
    const before = await loadApartments(items.values() as Iterable<EtPlanItem>);
    expect([...before.values()].every((g) => !(g instanceof Error))).toBe(true);
    linkOut(first(set, /apartments\/.*\.json$/));
    const after = [...(await loadApartments(items.values() as Iterable<EtPlanItem>)).values()];
    expect(after.filter((g) => g instanceof Error).map((e) => (e as Error).message)).toEqual([expect.stringMatching(/outside its root .*symbolic link/)]);
    expect(after.filter((g) => !(g instanceof Error))).toHaveLength(1);
  }, 120_000);

  it('ET-Plan-Bench: a graph of --graphs linked out of its folder is refused before anything is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-etplan-'));
    await synthApartments({ out: join(dir, 'a'), count: 2, seed: 9 });
    const graphs = join(dir, 'a', 'apartments');
    linkOut(first(graphs, /\.json$/));
    await expect(generateBenchmark('et-plan', { graphs, count: 1, seed: 3 }, join(dir, 'set'))).rejects.toThrow(/outside its root .*symbolic link/);
    expect(existsSync(join(dir, 'set', 'items.jsonl'))).toBe(false);
  }, 120_000);

  it('ET-Plan-Bench: a released task file linked out of the checkout is refused at import', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gsr-etplan-released-'));
    const record = { task: 'Walk to the toy box.', task_completion_criterion: '(CLOSE, robot, toybox)', env_id: 3, ground_truth_plan: ['<char0> [walk] <toybox> (40)'] };
    writeFileSync(join(root, 'navigation_tasks.jsonl'), JSON.stringify(record) + '\n');
    expect((await importReleasedTasks(root)).tasks).toHaveLength(1);
    linkOut(join(root, 'navigation_tasks.jsonl'));
    await expect(importReleasedTasks(root)).rejects.toThrow(/outside its root .*symbolic link/);
  });
});
