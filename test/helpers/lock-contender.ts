/**
 * One contender for bench/lock.bench.ts and test/security/concurrency.test.ts. Waits for trials over IPC; each trial starts at an agreed
 * instant (spin-waited, so all contenders start together) and runs either the pipeline engine with one
 * stage (the real lock) or the pid-file lock the engine used before (the anchor), and reports whether
 * its critical section ran and when.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PipelineProgress, runStages, type Stage } from '../../src/pipeline/index.js';
import { pidAlive } from '../../src/util/process.js';

interface Trial {
  dir: string;
  algo: 'kernel' | 'pidfile';
  startAt: number;
  holdMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The engine's previous lock: create `.lock` empty, then write the pid; a lock without a live pid is removed. */
async function pidFileLock(out: string, seen: { emptyTakeovers: number }): Promise<(() => Promise<void>) | null> {
  const path = join(out, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const text = (await readFile(path, 'utf8').catch(() => '')).trim();
      const pid = Number(text);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) return null;
      if (text === '') seen.emptyTakeovers++;
      await rm(path, { force: true });
    }
  }
  return null;
}

process.on('message', (t: Trial) => void contend(t));

async function contend(t: Trial): Promise<void> {
  while (Date.now() < t.startAt) {
    /* spin: every contender leaves this loop within about a millisecond of the others */
  }
  const report = { ran: false, refused: false, enter: 0, exit: 0, emptyTakeovers: 0, error: '' };
  const critical = async () => {
    report.ran = true;
    report.enter = performance.timeOrigin + performance.now();
    await sleep(t.holdMs);
    report.exit = performance.timeOrigin + performance.now();
  };
  try {
    if (t.algo === 'kernel') {
      const stage: Stage = { name: 'only', settings: {}, after: [], run: critical };
      await runStages([stage], { out: t.dir, progress: new PipelineProgress(1, () => {}) });
    } else {
      const unlock = await pidFileLock(t.dir, report);
      if (unlock === null) report.refused = true;
      else {
        await critical();
        await unlock();
      }
    }
  } catch (err) {
    const message = (err as Error).message;
    if (/ is in use by /.test(message)) report.refused = true;
    else report.error = message;
  }
  process.send!(report);
}
process.send!('ready');
