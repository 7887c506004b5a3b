import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CocoFile } from '../../src/formats/coco.js';
import { REPO_ROOT, scaled } from '../helpers/cli.js';
import { writePng } from './helpers/images.js';

const CHILD = join(REPO_ROOT, 'test', 'annotate', 'helpers', 'annotate-child.ts');
const doneLines = (journal: string) =>
  existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter((l) => l.includes('"type":"done"')).length : 0;

describe('annotate after a crash', () => {
  it('resumes after SIGKILL without redoing the images it had finished', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-crash-'));
    const images: string[] = [];
    for (let i = 0; i < 12; i++) {
      images.push(join(dir, `p${i}.png`));
      await writePng(images[i], 30 + i, 20); // distinct widths identify images in the call log
    }
    const out = join(dir, 'out');
    const log = join(dir, 'calls.log');
    writeFileSync(log, '');
    const journal = join(out, 'journal.jsonl');

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, out, log, '100', ...images], { cwd: REPO_ROOT, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const deadline = Date.now() + 120_000; // a loaded CI machine can take long to start the child
    while (doneLines(journal) < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const finishedBeforeKill = doneLines(journal);
    expect(finishedBeforeKill).toBeGreaterThanOrEqual(4);
    expect(finishedBeforeKill).toBeLessThan(12);

    const r = spawnSync(process.execPath, ['--import', 'tsx', CHILD, out, log, '100', ...images], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ images_done: 12, images_skipped: finishedBeforeKill, images_processed: 12 - finishedBeforeKill });

    // Every image was detected once, except at most the one in flight when the process died.
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    const perImage = new Map<string, number>();
    for (const c of calls) perImage.set(c, (perImage.get(c) ?? 0) + 1);
    expect(perImage.size).toBe(12);
    const repeated = [...perImage.values()].filter((n) => n > 1);
    expect(repeated.length).toBeLessThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(13);

    const coco = JSON.parse(readFileSync(join(out, 'annotations.json'), 'utf8')) as CocoFile;
    expect(coco.images.map((i) => i.item_id).sort()).toEqual(images.map((_, i) => `p${i}`).sort());
    expect(new Set(coco.annotations.map((a) => a.id)).size).toBe(12);
  }, scaled(300_000));
});
