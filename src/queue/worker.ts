/**
 * The worker loop shared by `gsr worker annotate` and `gsr worker run`: find a registered run of its
 * kind with jobs waiting (or the one named), attach a BullMQ worker to its queue, and leave it when the
 * queue is empty or the run is gone, then look again. A job whose worker dies (kill -9, a lost machine)
 * stays locked for `lockMs`, then another worker's stalled-job check hands it out again. Aborting
 * `signal` (SIGTERM) closes the worker after its jobs in hand are finished.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { Worker, type ConnectionOptions, type Job, type Queue } from 'bullmq';
import { KEY_PREFIX, openQueue, openRedis, redisOptions } from './connection.js';
import { getRun, listRuns, type QueueRun, type RunKind } from './runs.js';
import { errorMessage } from '../util/errors.js';

export interface WorkerOptions {
  url: string;
  kind: RunKind;
  /** Serve only this run. */
  runId?: string;
  /** Jobs in hand at once. */
  concurrency: number;
  /** How long a job's lock lasts without renewal: how soon a dead worker's job is handed out again (default 30 s). */
  lockMs?: number;
  /** Look for runs this often when idle (default 1 s). */
  pollMs?: number;
  /** Stop after this long without any run to serve (default: never). */
  idleExitMs?: number;
  signal: AbortSignal;
  onEvent?: (event: WorkerEvent) => void;
}

export type WorkerEvent =
  | { type: 'attached'; run: string; queue: string }
  | { type: 'detached'; run: string; jobs: number }
  | { type: 'job-failed'; run: string; job: string; error: string }
  | { type: 'refused'; run: string; error: string };

/** What a worker does with one run's jobs. */
export interface JobProcessor {
  process(job: Job, signal: AbortSignal): Promise<unknown>;
  close(): Promise<void>;
}

const OPEN_STATES = ['waiting', 'active', 'delayed', 'prioritized'] as const;

async function openJobs(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts(...OPEN_STATES);
  return OPEN_STATES.reduce((n, s) => n + (counts[s] ?? 0), 0);
}

function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => undefined);
}

/** The next run to serve: the named one, else the oldest of this kind with open jobs. */
async function pickRun(redis: Redis, o: WorkerOptions, refused: Set<string>): Promise<QueueRun | null> {
  if (o.runId !== undefined) return getRun(redis, o.runId);
  for (const run of await listRuns(redis)) {
    if (run.kind !== o.kind || refused.has(run.id)) continue;
    const queue = openQueue(run.queue, redis);
    try {
      if ((await openJobs(queue)) > 0) return run;
    } finally {
      await queue.close();
    }
  }
  return null;
}

/**
 * Closes a worker after its jobs in hand are done. After a Redis restart BullMQ's orderly close can
 * wait for good on its blocking connection (seen in test/queue/annotate-queue.test.ts), and a second
 * `close(true)` only returns the first call's promise; so once no job is in hand and a grace period
 * has passed, the connections are dropped, which loses nothing and lets the orderly close finish.
 */
async function closeWorker(worker: Worker, inHand: () => number, graceMs = 5000): Promise<void> {
  const closing = worker.close().then(() => true);
  for (let idleFor = 0; idleFor < graceMs; idleFor = inHand() === 0 ? idleFor + 250 : 0) {
    if (await Promise.race([closing, sleep(250, false)])) return;
  }
  await Promise.race([worker.disconnect().catch(() => undefined), sleep(graceMs)]);
  await Promise.race([closing, sleep(graceMs)]);
}

/** Serves runs until `signal` aborts (or `idleExitMs` passes with nothing to do). Returns jobs done. */
export async function serveQueue(o: WorkerOptions, processorFor: (run: QueueRun) => Promise<JobProcessor>): Promise<number> {
  const connection = redisOptions(o.url);
  const redis = openRedis(o.url);
  const pollMs = o.pollMs ?? 1000;
  const lockMs = o.lockMs ?? 30_000;
  // Hard stop (a second SIGTERM): in-flight requests are cancelled; their jobs are handed out again.
  const hard = new AbortController();
  let done = 0;
  let idleSince = Date.now();
  const refused = new Set<string>();
  try {
    while (!o.signal.aborted) {
      const run = await pickRun(redis, o, refused);
      if (run === null) {
        if (o.idleExitMs !== undefined && Date.now() - idleSince >= o.idleExitMs) break;
        await abortable(pollMs, o.signal);
        continue;
      }
      let processor: JobProcessor;
      try {
        processor = await processorFor(run);
      } catch (err) {
        // This worker cannot serve the run (e.g. its API key variable is not set here): say so once, leave it to others.
        if (o.runId !== undefined) throw err;
        refused.add(run.id);
        o.onEvent?.({ type: 'refused', run: run.id, error: errorMessage(err) });
        continue;
      }
      let jobs = 0;
      let inHand = 0;
      const worker = new Worker(
        run.queue,
        async (job: Job) => {
          inHand++;
          try {
            const result = await processor.process(job, hard.signal);
            jobs++;
            return result;
          } finally {
            inHand--;
          }
        },
        { connection: connection as ConnectionOptions, prefix: KEY_PREFIX, concurrency: o.concurrency, lockDuration: lockMs, stalledInterval: Math.max(1000, Math.round(lockMs / 2)), maxStalledCount: 10 },
      );
      worker.on('failed', (job, err) => o.onEvent?.({ type: 'job-failed', run: run.id, job: job?.id ?? '?', error: err.message }));
      worker.on('error', () => undefined); // connection errors: ioredis reconnects with backoff (connection.ts)
      o.onEvent?.({ type: 'attached', run: run.id, queue: run.queue });
      const queue = openQueue(run.queue, redis);
      try {
        let idlePolls = 0;
        while (!o.signal.aborted && idlePolls < 2) {
          await abortable(pollMs, o.signal);
          if (o.signal.aborted) break;
          const gone = o.runId === undefined && (await getRun(redis, run.id)) === null;
          idlePolls = gone || (await openJobs(queue)) === 0 ? idlePolls + 1 : 0;
        }
      } finally {
        await closeWorker(worker, () => inHand);
        await queue.close();
        await processor.close();
      }
      done += jobs;
      idleSince = Date.now();
      o.onEvent?.({ type: 'detached', run: run.id, jobs });
    }
  } finally {
    hard.abort();
    redis.disconnect();
  }
  return done;
}
