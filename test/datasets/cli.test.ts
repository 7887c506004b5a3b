import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scaled } from '../helpers/cli.js';
import { synthesizeDataset } from '../../src/datasets/index.js';
import { listTree, tempDir, writeWhatsupFolder } from './fixtures.js';

const oneLineError = (stderr: string) => {
  expect(stderr, stderr).toMatch(/^gsr: error: /m);
  expect(stderr).not.toMatch(/\n\s+at /);
};

describe('gsr dataset (CLI)', () => {
  it('synth whatsup-layout writes the official layout, and import whatsup prints the per-split table and exits 0', async () => {
    const dir = await tempDir();
    const made = runCli(['dataset', 'synth', 'whatsup-layout', '--out', dir, '--width', '160', '--height', '120']);
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain(`wrote 29 images and the six What'sUp files to ${join(dir, 'data')}, their exact boxes to ${join(dir, 'annotations.json')}`);
    const out = join(dir, 'm.jsonl');
    const r = runCli(['dataset', 'import', 'whatsup', '--root', dir, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    for (const [split, n] of [['whatsup-a', 8], ['whatsup-b', 4], ['coco-one', 4], ['coco-two', 5], ['gqa-one', 4], ['gqa-two', 5], ['total', 30]] as const) {
      expect(r.stdout).toMatch(new RegExp(`^${split}\\s+${n}$`, 'm'));
    }
    expect((await readFile(out, 'utf8')).trim().split('\n')).toHaveLength(30);
  }, scaled(90_000));

  it('synth vsp-layout writes a tree that import vsp reads; it refuses a folder that is not empty', async () => {
    const dir = join(await tempDir(), 'vsp');
    const made = runCli(['dataset', 'synth', 'vsp-layout', '--out', dir, '--items', '1', '--examples', '1', '--json']);
    expect(made.stderr).toBe('');
    expect(JSON.parse(made.stdout)).toMatchObject({ out: dir, files: expect.any(Number) });
    const r = runCli(['dataset', 'import', 'vsp', '--root', dir, '--out', join(dir, '..', 'items')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^maze-t4 +step1:1 step3:1 step5:1 step7:1 step9:1 +5$/m);
    expect(r.stdout).toContain('wrote 48 vsp items');
    const again = runCli(['dataset', 'synth', 'vsp-layout', '--out', dir]);
    expect(again.status).toBe(1);
    oneLineError(again.stderr);
    expect(again.stderr).toContain(`${dir} is not empty`);
  }, scaled(90_000));

  it('bad input: one error line naming file and record, non-zero exit, nothing written', async () => {
    const root = await writeWhatsupFolder({ 'controlled_images_dataset.json': [{ image_path: '../../etc/passwd', caption_options: ['A mug on a table', 'A mug under a table'] }] }, []);
    const out = join(root, 'm.jsonl');
    const r = runCli(['dataset', 'import', 'whatsup', '--root', root, '--out', out]);
    expect(r.status).toBe(1);
    oneLineError(r.stderr);
    expect(r.stderr).toMatch(/controlled_images_dataset\.json: record 0: image_path "\.\.\/\.\.\/etc\/passwd" is absolute or escapes/);
    expect(existsSync(out)).toBe(false);

    const format = runCli(['dataset', 'import', 'coco', '--root', root, '--out', out]);
    expect(format.status).not.toBe(0);
    expect(format.stderr).toMatch(/unknown dataset format "coco"/);
  }, scaled(60_000));

  it('synth writes a set and reports it; bad flags fail with one line', async () => {
    const dir = await tempDir();
    const r = runCli(['dataset', 'synth', '--out', dir, '--count', '4', '--seed', '4', '--width', '320', '--height', '240', '--workers', '2', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ scenes: 4, counts: { furniture: 2, tabletop: 1, 'one-object': 1 } });
    // Worker threads (the CLI) and in-process rendering give the same bytes.
    const inProcess = await tempDir();
    await synthesizeDataset({ out: inProcess, count: 4, seed: 4, width: 320, height: 240, workers: 0 });
    // The CLI's output lock (src/util/lock.ts) stays in the folder; the data files are the same.
    const files = (await listTree(dir)).filter((f) => !f.startsWith('.gsr.lock'));
    expect(files).toEqual(await listTree(inProcess));
    expect(files).toHaveLength(10);
    for (const f of files) expect((await readFile(join(dir, f))).equals(await readFile(join(inProcess, f))), f).toBe(true);
    const bad = runCli(['dataset', 'synth', '--out', dir, '--count', '0']);
    expect(bad.status).toBe(2);
    oneLineError(bad.stderr);
    expect(bad.stderr).toMatch(/option '--count <n>' argument '0' is invalid\. Expected a positive integer\./);
  }, scaled(90_000));
});
