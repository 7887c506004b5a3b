import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PipelineProgress, runStages, type Stage } from '../../src/pipeline/index.js';
import { openAtomicWriter } from '../../src/util/fs.js';
import { holdOutputFile, LOCK_FILE, lockOutputFolder, tryLock } from '../../src/util/lock.js';
import { REPO_ROOT, scaled } from '../helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-lock-'));
const oneStage = (calls: string[]): Stage[] => [{ name: 'a', settings: {}, after: [], run: async () => void calls.push('a') }];
const quiet = () => new PipelineProgress(1, () => {});

/** A separate process that holds the folder's lock (or writes the file) until killed. */
async function holder(folder: string, kind: 'folder' | 'file' = 'folder') {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test', 'util', 'lock-holder.ts'), folder, kind], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
    child.on('exit', () => reject(new Error(`holder exited: ${stderr}`)));
  });
  const exited = new Promise((r) => child.on('exit', r));
  return { pid: child.pid!, kill: async () => (child.kill('SIGKILL'), await exited) };
}

describe('output lock', () => {
  it('is taken once at a time within a process, and again after release', () => {
    const path = join(tmp(), LOCK_FILE);
    const a = tryLock(path, 'test');
    expect(a).not.toBeNull();
    expect(tryLock(path, 'test')).toBeNull();
    a!.release();
    const b = tryLock(path, 'test');
    expect(b).not.toBeNull();
    b!.release();
  });

  it('a refused attempt in the holding process does not drop its lock (SQLite keeps the descriptor open)', () => {
    const folder = tmp();
    const held = lockOutputFolder(folder, 'test holder');
    try {
      for (let i = 0; i < 3; i++) expect(tryLock(join(folder, LOCK_FILE), 'again')).toBeNull();
      const other = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test', 'util', 'lock-holder.ts'), folder], { encoding: 'utf8', timeout: scaled(60_000) });
      expect(other.status).not.toBe(0);
      expect(other.stderr).toMatch(/is in use by test holder/);
    } finally {
      held.release();
    }
  }, scaled(60_000));

  it('an empty or leftover lock file never blocks, and is never taken from a live holder', async () => {
    const out = tmp();
    // What the previous lock left while its holder was still writing its pid: an empty file.
    writeFileSync(join(out, LOCK_FILE), '');
    writeFileSync(join(out, '.lock'), '');
    const calls: string[] = [];
    await expect(runStages(oneStage(calls), { out, progress: quiet() })).resolves.toHaveLength(1);
    expect(calls).toEqual(['a']);
  });

  it('refuses a folder another live process holds, naming it; the moment that process is killed, a run proceeds', async () => {
    const out = tmp();
    const h = await holder(out);
    try {
      const calls: string[] = [];
      await expect(runStages(oneStage(calls), { out, progress: quiet() })).rejects.toThrow(new RegExp(`${out} is in use by lock holder \\(pid ${h.pid}, since `));
      expect(() => lockOutputFolder(out, 'gsr annotate')).toThrow(/is in use by lock holder/);
      expect(calls).toEqual([]);
      await h.kill();
      await expect(runStages(oneStage(calls), { out, progress: quiet() })).resolves.toHaveLength(1);
      expect(calls).toEqual(['a']);
    } finally {
      await h.kill();
    }
  }, scaled(60_000));

  it('taking it removes the temp files of writers that are gone, and nothing else', async () => {
    const folder = tmp();
    mkdirSync(join(folder, 'depth'));
    // A real writer's temp file, open in this (live) process; then the same name with a dead pid.
    const live = await openAtomicWriter(join(folder, 'depth', 'a.png'));
    await live.write('partial');
    const [name] = readdirSync(join(folder, 'depth'));
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const orphan = join(folder, 'depth', name!.replace(`.${process.pid}.`, `.${dead}.`));
    writeFileSync(orphan, 'partial');
    writeFileSync(join(folder, `.annotations.json.${dead}.0badcafe.tmp`), 'partial');
    writeFileSync(join(folder, 'keep.tmp'), 'not ours');
    writeFileSync(join(folder, `.x.${dead}.nothex!.tmp`), 'not ours');
    const lock = lockOutputFolder(folder, 'test');
    lock.release();
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(join(folder, `.annotations.json.${dead}.0badcafe.tmp`))).toBe(false);
    expect(readdirSync(join(folder, 'depth'))).toEqual([name]);
    expect(existsSync(join(folder, 'keep.tmp'))).toBe(true);
    expect(existsSync(join(folder, `.x.${dead}.nothex!.tmp`))).toBe(true);
    await live.commit();
    expect(readdirSync(join(folder, 'depth'))).toEqual(['a.png']);
  });

  it('covers the subfolders of a held folder: a writer below is refused, naming the holder, and writes nothing', async () => {
    const out = tmp();
    const h = await holder(out);
    try {
      const inside = join(out, 'annotate', 'deeper');
      expect(() => lockOutputFolder(inside, 'gsr annotate')).toThrow(new RegExp(`^${inside} is inside ${out}, which is in use by lock holder \\(pid ${h.pid}, since [0-9T:.Z-]+\\); wait for it to finish or stop it$`));
      expect(() => holdOutputFile(join(out, 'prompts', 'tg.jsonl'), 'gsr prompts')).toThrow(new RegExp(`is inside ${out}, which is in use by lock holder \\(pid ${h.pid}`));
      expect(readdirSync(out).sort()).toEqual([LOCK_FILE, `${LOCK_FILE}.owner`]);
      // Beside it, all is free.
      holdOutputFile(join(out, '..', 'beside.jsonl'), 'gsr prompts').release();
    } finally {
      await h.kill();
    }
    lockOutputFolder(join(out, 'annotate'), 'gsr annotate').release();
  }, 60_000);

  it('a folder with a held folder or a file being written below it cannot be taken; the holder is named', async () => {
    const out = tmp();
    const sub = join(out, 'annotate');
    const h = await holder(sub);
    try {
      expect(() => lockOutputFolder(out, 'gsr pipeline run')).toThrow(new RegExp(`^${out} contains ${sub}, which is in use by lock holder \\(pid ${h.pid}, since `));
      // A second writer of another file below the same folder is fine: only taking the folder is refused.
      lockOutputFolder(join(out, 'other'), 'gsr annotate').release();
    } finally {
      await h.kill();
    }
    // A file writer below a folder that has a lock file holds it shared.
    const w = await holder(join(out, 'prompts', 'tg.jsonl'), 'file');
    try {
      expect(() => lockOutputFolder(out, 'gsr pipeline run')).toThrow(new RegExp(`^${out} is in use by file holder \\(pid ${w.pid}, since `));
      holdOutputFile(join(out, 'prompts', 'mc.jsonl'), 'gsr prompts').release();
    } finally {
      await w.kill();
    }
    const lock = lockOutputFolder(out, 'gsr pipeline run');
    // The killed writer's note is gone once the folder is taken.
    expect(readdirSync(out).filter((n) => n.endsWith('.reader'))).toEqual([]);
    lock.release();
  }, 60_000);
});
