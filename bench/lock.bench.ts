/**
 * Simultaneous starts on one output folder: 2-8 processes start the pipeline engine on the same
 * folder at the same instant, 1,000 times. For the engine a double run is a trial where more than one
 * process ran the stage (a later start must find it complete and skip it). The anchor is the pid-file
 * lock the engine used before, run the same way around a plain critical section (no completion record,
 * so for it only runs at the same time count): how often two ran at once, and how often a contender
 * judged an empty lock (just created, pid not yet written) stale and removed it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const TRIALS = Number(process.env.GSR_LOCK_TRIALS ?? 1000);
const MAX_CONTENDERS = 8;

interface Report {
  ran: boolean;
  refused: boolean;
  enter: number;
  exit: number;
  emptyTakeovers: number;
  error: string;
}

function startWorker(): Promise<{ child: ChildProcess; ask: (t: object) => Promise<Report> }> {
  const child = fork(join(here, '..', 'test', 'helpers', 'lock-contender.ts'), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, GSR_PROGRESS: '0' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  let pending: ((r: Report) => void) | null = null;
  return new Promise((resolve) => {
    child.on('message', (m) => {
      if (m === 'ready') resolve({ child, ask: (t) => new Promise<Report>((r) => ((pending = r), child.send(t))) });
      else pending?.(m as Report);
    });
  });
}

async function trials(algo: 'kernel' | 'pidfile', workers: Array<Awaited<ReturnType<typeof startWorker>>>, base: string) {
  let doubleRuns = 0;
  let overlaps = 0;
  let noneRan = 0;
  let emptyTakeovers = 0;
  const errors: string[] = [];
  const byContenders: Record<number, number> = {};
  for (let i = 0; i < TRIALS; i++) {
    const k = 2 + (i % (MAX_CONTENDERS - 1));
    byContenders[k] = (byContenders[k] ?? 0) + 1;
    const dir = join(base, `${algo}-${i}`);
    await mkdir(dir, { recursive: true });
    const startAt = Date.now() + 30;
    const reports = await Promise.all(workers.slice(0, k).map((w) => w.ask({ dir, algo, startAt, holdMs: 5 })));
    const ran = reports.filter((r) => r.ran);
    if (ran.length > 1) doubleRuns++;
    if (ran.length === 0) noneRan++;
    const sorted = ran.sort((a, b) => a.enter - b.enter);
    if (sorted.some((r, j) => j > 0 && r.enter < sorted[j - 1]!.exit)) overlaps++;
    for (const r of reports) {
      emptyTakeovers += r.emptyTakeovers;
      if (r.error) errors.push(r.error);
    }
    await rm(dir, { recursive: true, force: true });
  }
  return { trials: TRIALS, trials_by_contenders: byContenders, trials_where_more_than_one_ran: doubleRuns, trials_with_two_running_at_once: overlaps, trials_where_none_ran: noneRan, empty_lock_judged_stale: emptyTakeovers, errors: errors.slice(0, 5), error_count: errors.length };
}

export default async function lockBench(): Promise<Record<string, unknown>> {
  const base = await mkdtemp(join(tmpdir(), 'gsr-lock-bench-'));
  const workers = await Promise.all(Array.from({ length: MAX_CONTENDERS }, startWorker));
  try {
    const load = loadavg()[0];
    const t0 = performance.now();
    const kernel = await trials('kernel', workers, base);
    const kernelSeconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const anchor = await trials('pidfile', workers, base);
    const anchorSeconds = (performance.now() - t1) / 1000;
    return {
      note: 'machine shared with other engineers; each trial starts 2-8 processes on one folder at one instant',
      load_average_at_start: +load.toFixed(1),
      engine_lock: { ...kernel, seconds: +kernelSeconds.toFixed(1) },
      anchor_previous_pid_file_lock: { ...anchor, seconds: +anchorSeconds.toFixed(1) },
    };
  } finally {
    for (const w of workers) w.child.kill();
    await rm(base, { recursive: true, force: true });
  }
}
