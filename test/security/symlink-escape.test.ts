import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { annotate } from '../../src/annotate/run.js';
import { targetsFromManifest } from '../../src/annotate/targets.js';
import { importWhatsup, importWhatsupToManifest } from '../../src/datasets/index.js';
import { createOpenAiAnswerer, RunStore, runPrompts } from '../../src/mllm/index.js';
import { buildPromptFile } from '../../src/prompts/files.js';
import { collectGallery } from '../../src/report/gallery.js';
import { A_CAPTIONS, controlled, tempDir, writeJpeg, writeWhatsupFolder } from '../datasets/fixtures.js';
import { DOUBLE_DEPTH, DOUBLE_DETECTOR, DOUBLE_SEGMENTER, registerDoubles } from '../annotate/helpers/doubles.js';
import { runCli, scaled } from '../helpers/cli.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';

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
