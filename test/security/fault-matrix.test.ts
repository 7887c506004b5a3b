/**
 * The file-system fault matrix (docs/security.md, "Faults of the machine"): a full disk, an I/O error,
 * a read-only output folder and a models folder removed mid-run, at write points spread over `gsr
 * annotate`, `gsr run` and `gsr pipeline run` (the demo). Each case must end in one clean error line and
 * exit 1, record no item as failed, and a rerun once the fault is gone must end byte-identical to a clean
 * run (timestamps aside). The faults are injected under the project's write helpers (src/util/faults.ts);
 * as root on Linux, a real small tmpfs is filled and a read-only mount refused too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { faultPointsSeen, setFaultPlan, type FaultPlan } from '../../src/util/faults.js';
import { RunStore } from '../../src/mllm/index.js';
import { annotateTarget, firstDifference, pipelineTarget, runTarget, type CrashTarget } from '../helpers/crash-matrix.js';
import { runCliInProcess, scaled } from '../helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-faultm-'));
const COUNT_ONLY: FaultPlan = { code: 'ENOSPC', at: Number.MAX_SAFE_INTEGER };

afterEach(() => setFaultPlan(null));

/** What a fault's error line must name. */
const ERROR_OF: Record<string, RegExp> = {
  ENOSPC: /ENOSPC|no space left on device|database or disk is full/,
  EIO: /EIO|disk I\/O error/,
  EROFS: /EROFS|read-only file system|readonly database/,
};

interface Case {
  plan: FaultPlan;
  /** Set when the fault is a real one (no plan): what to do before the faulty run and before the resume. */
  before?: () => void;
  after?: () => void;
}

/** Runs the target with the fault, checks the clean stop, resumes without it and compares with the reference. */
async function faultTrial(target: CrashTarget, c: Case, reference: Map<string, string>, failedRecorded: () => number) {
  target.reset();
  c.before?.();
  setFaultPlan(c.plan);
  const faulty = await runCliInProcess(target.args, target.env as Record<string, string>);
  setFaultPlan(null);
  c.after?.();
  const label = `${target.name} ${JSON.stringify(c.plan)}`;
  expect(faulty.status, `${label}: ${faulty.stderr.slice(-800)}`).toBe(1);
  const errors = faulty.stderr.split('\n').filter((l) => l.startsWith('gsr: error:'));
  expect(errors, label).toHaveLength(1);
  expect(errors[0], label).toMatch(ERROR_OF[c.plan.code]);
  expect(failedRecorded(), `${label}: items recorded as failed`).toBe(0);
  const resumed = await runCliInProcess(target.args, target.env as Record<string, string>);
  expect(resumed.status, `${label}: resume: ${resumed.stderr.slice(-800)}`).toBe(0);
  expect(firstDifference(reference, await target.snapshot()), label).toBeUndefined();
}

/** The reference run, counting its write points; returns the snapshot and the count. */
async function reference(target: CrashTarget): Promise<{ snapshot: Map<string, string>; points: number }> {
  target.reset();
  setFaultPlan(COUNT_ONLY);
  const r = await runCliInProcess(target.args, target.env as Record<string, string>);
  const points = faultPointsSeen();
  setFaultPlan(null);
  expect(r.status, r.stderr.slice(-800)).toBe(0);
  return { snapshot: await target.snapshot(), points };
}

/** `n` write points spread over 1..points, the first and the last included. */
function spread(points: number, n: number): number[] {
  return [...new Set(Array.from({ length: n }, (_, i) => 1 + Math.round((i * (points - 1)) / (n - 1))))];
}

const journalFailures = (dir: string) => () => {
  let n = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name === 'journal.jsonl') n += readFileSync(join(e.parentPath, e.name), 'utf8').split('\n').filter((l) => l.includes('"type":"failed"')).length;
  }
  return n;
};

/** Why a real tmpfs cannot be mounted here, or null when it can (root on Linux, in a container that may mount). */
const mountRefused = ((): string | null => {
  if (process.platform !== 'linux') return `not Linux (${process.platform}): no tmpfs to mount`;
  if (process.getuid?.() !== 0) return 'not root: mounting a tmpfs needs root';
  const dir = mkdtempSync(join(tmpdir(), 'gsr-mnt-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return null;
  } catch (err) {
    return `mount -t tmpfs was refused here (${(err as Error).message.split('\n')[0]})`;
  }
})();
const mount = (dir: string, options: string) => execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
const remount = (dir: string, options: string) => execFileSync('mount', ['-o', `remount,${options}`, dir], { stdio: 'ignore' });
const umount = (dir: string) => execFileSync('umount', ['-l', dir], { stdio: 'ignore' });

function treeBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  return n;
}

describe('file-system fault matrix (a clean error, no item failed, a resume equal to a clean run)', () => {
  it('gsr annotate: ENOSPC at 5 write points, EIO once, a read-only output folder; the models folder removed mid-run (--low-memory)', async () => {
    const dir = tmp();
    const target = await annotateTarget(dir, 6);
    const ref = await reference(target);
    expect(ref.points).toBeGreaterThan(12); // depth PNG and journal line per image, the lock note, annotations.json
    const failed = journalFailures(target.out);
    for (const at of spread(ref.points, 5)) await faultTrial(target, { plan: { code: 'ENOSPC', at } }, ref.snapshot, failed);
    // A disk with room for a journal line but not for a depth PNG (issue 39), and an I/O error on one PNG:
    // the line that follows must not record the image as failed.
    await faultTrial(target, { plan: { code: 'ENOSPC', at: 3, pathIncludes: 'depth/' } }, ref.snapshot, failed);
    await faultTrial(target, { plan: { code: 'EIO', at: 2, once: true, pathIncludes: 'depth/' } }, ref.snapshot, failed);
    await faultTrial(target, { plan: { code: 'EIO', at: Math.ceil(ref.points / 2), once: true } }, ref.snapshot, failed);
    await faultTrial(target, { plan: { code: 'EROFS', at: 1 } }, ref.snapshot, failed);

    // The models folder goes away after the first chunk of images: the next chunk's model load fails.
    target.reset();
    const models = join(dir, 'models');
    const lowMemory = [...target.args, '--low-memory', '--low-memory-chunk', '3'];
    const away = `${models}.away`;
    const watcher = setInterval(() => {
      const journal = join(target.out, 'journal.jsonl');
      if (existsSync(models) && existsSync(journal) && readFileSync(journal, 'utf8').split('"type":"done"').length > 3) renameSync(models, away);
    }, 1);
    let faulty;
    try {
      faulty = await runCliInProcess(lowMemory);
    } finally {
      clearInterval(watcher);
    }
    if (existsSync(away)) renameSync(away, models);
    expect(faulty.status, faulty.stderr).toBe(1);
    expect(faulty.stderr).toMatch(/gsr: error: cannot load the \w+ model again \(it loaded earlier in this run; was its folder removed\?\)/);
    expect(failed()).toBe(0);
    const resumed = await runCliInProcess(lowMemory);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(firstDifference(ref.snapshot, await target.snapshot())).toBeUndefined();
  }, scaled(120_000));

  it('gsr run: the store full (SQLITE_FULL) at 5 write points, an I/O error once', async () => {
    const dir = tmp();
    const target = await runTarget(dir, 60);
    try {
      const ref = await reference(target);
      const store = join(dir, 'runs.sqlite');
      const failed = () => {
        const s = RunStore.open(store, { create: false });
        try {
          return s.counts().failed ?? 0;
        } finally {
          s.close();
        }
      };
      // Answers are committed in groups of those that arrive together, so the number of writes varies
      // from run to run: the points are drawn from the first half of the reference's.
      const half = Math.max(2, Math.floor(ref.points / 2));
      for (const at of spread(half, 5)) await faultTrial(target, { plan: { code: 'ENOSPC', at } }, ref.snapshot, failed);
      await faultTrial(target, { plan: { code: 'EIO', at: Math.ceil(half / 2), once: true } }, ref.snapshot, failed);
    } finally {
      await target.close?.();
    }
  }, scaled(60_000));

  it('gsr pipeline run (the demo, 6 scenes): ENOSPC at 4 write points, EIO once; an older journal that recorded ENOSPC as failed images', async () => {
    const dir = tmp();
    const target = pipelineTarget(dir, 6);
    const ref = await reference(target);
    const failed = journalFailures(target.out);
    for (const at of spread(ref.points, 4)) await faultTrial(target, { plan: { code: 'ENOSPC', at } }, ref.snapshot, failed);
    await faultTrial(target, { plan: { code: 'ENOSPC', at: 2, pathIncludes: 'annotate.partial/depth/' } }, ref.snapshot, failed);
    await faultTrial(target, { plan: { code: 'EIO', at: Math.ceil(ref.points / 3), once: true } }, ref.snapshot, failed);

    // The reproduction of issue 39: the disk fills in the annotate stage, and the journal (as older
    // versions wrote it) holds the images before as failed with ENOSPC. The rerun annotates them again.
    target.reset();
    setFaultPlan({ code: 'ENOSPC', at: 5, pathIncludes: 'annotate.partial/journal.jsonl' });
    expect((await runCliInProcess(target.args, target.env as Record<string, string>)).status).toBe(1);
    setFaultPlan(null);
    const journal = join(target.out, '.annotate.partial', 'journal.jsonl');
    const lines = readFileSync(journal, 'utf8').split('\n');
    const forged = lines.map((l) => {
      if (!l.includes('"type":"done"')) return l;
      const r = JSON.parse(l) as { item_id: string; image: { file_name: string } };
      return JSON.stringify({ type: 'failed', item_id: r.item_id, file: r.image.file_name, error: `ENOSPC: no space left on device, write` });
    });
    expect(forged.filter((l) => l.includes('"type":"failed"')).length).toBe(2);
    writeFileSync(journal, forged.join('\n'));
    const resumed = await runCliInProcess(target.args, target.env as Record<string, string>);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/2 images were recorded as failed for a fault of the machine, not of the image \(first: synth-00000: ENOSPC/);
    expect(firstDifference(ref.snapshot, await target.snapshot())).toBeUndefined();
  }, scaled(300_000));

  it('a real tmpfs (root on Linux): gsr annotate fills a small one (exit 1) and resumes once it is larger; a read-only mount is refused', async (ctx) => {
    if (mountRefused !== null) return ctx.skip(mountRefused);
    const dir = tmp();
    const target = await annotateTarget(dir, 6);
    const clear = () => {
      for (const name of readdirSync(target.out)) rmSync(join(target.out, name), { recursive: true, force: true });
    };
    target.reset();
    mkdirSync(target.out);
    // The reference is made on the mount too, so that every path is the same.
    mount(target.out, 'size=16m');
    try {
      expect((await runCliInProcess(target.args)).status).toBe(0);
      const reference = await target.snapshot();
      const bytes = treeBytes(target.out);
      clear();
      remount(target.out, `size=${Math.max(8, Math.floor(bytes / 2048))}k`);
      const full = await runCliInProcess(target.args);
      expect(full.status, full.stderr).toBe(1);
      expect(full.stderr.split('\n').filter((l) => l.startsWith('gsr: error:'))).toEqual([expect.stringMatching(ERROR_OF.ENOSPC)]);
      expect(journalFailures(target.out)()).toBe(0);
      remount(target.out, 'size=16m');
      const resumed = await runCliInProcess(target.args);
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(firstDifference(reference, await target.snapshot())).toBeUndefined();

      // Read-only (as root, chmod would not stop a write): one error line, and the outputs stay as they were.
      remount(target.out, 'ro');
      const readOnly = await runCliInProcess([...target.args, '--force']);
      remount(target.out, 'rw');
      expect(readOnly.status, readOnly.stderr).toBe(1);
      expect(readOnly.stderr.split('\n').filter((l) => l.startsWith('gsr: error:'))).toEqual([expect.stringMatching(ERROR_OF.EROFS)]);
      expect(firstDifference(reference, await target.snapshot())).toBeUndefined();
    } finally {
      umount(target.out);
    }
  }, scaled(60_000));
});
