/** `gsr queue status|drain|clean`: what the registered runs are doing, and cleaning up after them. */
import type { Redis } from 'ioredis';
import type { Queue } from 'bullmq';
import { GsrError } from '../util/errors.js';
import { openQueue, openRedis, safeQueueUrl } from './connection.js';
import { getRun, listRuns, unregisterRun, type QueueRun } from './runs.js';

export interface RunStatus {
  id: string;
  kind: QueueRun['kind'];
  queue: string;
  created: string;
  out: string;
  workers: number;
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
}

async function withRuns<T>(url: string, runId: string | undefined, fn: (redis: Redis, runs: QueueRun[]) => Promise<T>): Promise<T> {
  // Housekeeping fails fast instead of waiting for Redis: a few retries, then the command's error.
  const redis = openRedis(url, { maxRetriesPerRequest: 3, retryStrategy: (times: number) => (times > 5 ? null : 200 * times) });
  try {
    await redis.ping().catch(() => {
      throw new GsrError(`cannot reach Redis at ${safeQueueUrl(url)}`);
    });
    let runs: QueueRun[];
    if (runId !== undefined) {
      const run = await getRun(redis, runId);
      if (run === null) throw new GsrError(`no queued run ${runId} on this Redis (\`gsr queue status\` lists them)`);
      runs = [run];
    } else runs = await listRuns(redis);
    return await fn(redis, runs);
  } finally {
    redis.disconnect();
  }
}

async function eachQueue<T>(redis: Redis, runs: QueueRun[], fn: (queue: Queue, run: QueueRun) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const run of runs) {
    const queue = openQueue(run.queue, redis);
    try {
      out.push(await fn(queue, run));
    } finally {
      await queue.close();
    }
  }
  return out;
}

/** Every registered run (or one) with its job counts and attached workers. */
export function queueStatus(url: string, runId?: string): Promise<RunStatus[]> {
  return withRuns(url, runId, (redis, runs) =>
    eachQueue(redis, runs, async (queue, run) => {
      const c = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'completed', 'failed');
      return {
        id: run.id, kind: run.kind, queue: run.queue, created: run.created, out: run.out, workers: await queue.getWorkersCount(),
        waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, completed: c.completed ?? 0, failed: c.failed ?? 0,
      };
    }),
  );
}

/**
 * Stops a run (or every run) from handing out more work: its jobs not yet started are removed and the
 * run leaves the registry, so workers move on once their jobs in hand are done. Its finished jobs stay
 * until `clean`. Returns the jobs removed per run.
 */
export function drainQueue(url: string, runId?: string): Promise<Array<{ id: string; removed: number }>> {
  return withRuns(url, runId, (redis, runs) =>
    eachQueue(redis, runs, async (queue, run) => {
      const before = await queue.count();
      await queue.drain(true);
      await unregisterRun(redis, run.id);
      return { id: run.id, removed: before };
    }),
  );
}

/** Deletes a run (or every run) and all its jobs, finished or not. A submitter still attached stops with a message. */
export function cleanQueue(url: string, runId?: string): Promise<string[]> {
  return withRuns(url, runId, (redis, runs) =>
    eachQueue(redis, runs, async (queue, run) => {
      await queue.obliterate({ force: true });
      await unregisterRun(redis, run.id);
      return run.id;
    }),
  );
}
