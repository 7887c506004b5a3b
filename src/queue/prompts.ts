/**
 * `gsr run --queue`: each prompt to send is one job (its id a hash of the prompt key, so enqueuing
 * again after `--resume` adds nothing twice). Workers answer with the local runner's request code
 * (answerPrompt); the submitter collects finished jobs in batches, commits them to its run store
 * through the runner's own commit path (one ok row per prompt: an ok row is never overwritten), and
 * only then removes them. Concurrency and the request rate are BullMQ's queue-global settings, so
 * they hold across all workers together.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, Queue } from 'bullmq';
import type { AnyPrompt } from '../formats/prompts.js';
import type { AnswererOptions } from '../mllm/registry.js';
import { answerers } from '../mllm/index.js'; // registers the openai client and the baselines
import { answerPrompt, type AnswerResult, type RunOptions } from '../mllm/runner.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../mllm/retry.js';
import type { RunStore } from '../mllm/store.js';
import type { Answerer } from '../mllm/types.js';
import { GsrError } from '../util/errors.js';
import { sha256Hex } from '../util/hash.js';
import { openQueue, openRedis } from './connection.js';
import { attachRun, dropRun, progressPoller, type QueueSubmitOptions } from './annotate.js';
import { newRunId, queueNameOf, registerRun, type QueueRun } from './runs.js';
import type { JobProcessor } from './worker.js';

/** What a prompt worker needs: how to build the answerer and how to ask. */
export interface PromptSpec {
  answerer: string;
  /** The answerer factory's options; an API key travels only as the name of its variable. */
  options: AnswererOptions;
  timeoutMs: number;
  retry: Partial<RetryPolicy>;
}

export interface QueueRunOptions extends QueueSubmitOptions {
  store: RunStore;
  model: string;
  settingsId: string;
  spec: PromptSpec;
  /** Requests in flight across all workers. */
  concurrency: number;
  /** Requests per second across all workers (default: no limit). */
  rateLimit?: number;
}

/** Jobs collected per round trip. */
const BATCH = 500;

async function openJobCount(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed');
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

export function promptJobId(key: string): string {
  return `p-${sha256Hex(key).slice(0, 32)}`;
}

/**
 * BullMQ's limiter admits `max` jobs per `duration` ms. A window of about 100 ms keeps the bursts
 * small, so the rate over any few seconds stays within a few percent of `perSecond`.
 */
export function limiterFor(perSecond: number): { max: number; duration: number } {
  const max = Math.max(1, Math.round(perSecond / 10));
  return { max, duration: Math.max(1, Math.round((max * 1000) / perSecond)) };
}

/** The runner's dispatch option that sends prompts to queue workers (see the file comment). */
export function queueDispatch(q: QueueRunOptions): NonNullable<RunOptions['dispatch']> {
  return async (prompts, settle, signal) => {
    const redis = openRedis(q.url);
    const metaName = `queue_run:${q.model}:${q.settingsId}`;
    let queue: Queue | undefined;
    try {
      const attached = await attachRun(redis, q.store.getMeta(metaName) ?? undefined, { resume: q.resume, url: q.url, what: `${q.store.path} (model ${q.model})` });
      const id = attached.id || newRunId(`${q.store.path}\n${q.model}\n${q.settingsId}`);
      const run: QueueRun<PromptSpec> = (attached.existing as QueueRun<PromptSpec> | null) ?? {
        id, kind: 'run', queue: queueNameOf('run', id), created: new Date().toISOString(), out: q.store.path, spec: q.spec,
      };
      await registerRun(redis, run);
      q.store.setMeta(metaName, id);
      q.onRun?.({ id, queue: run.queue, resumed: attached.existing !== null });
      queue = openQueue(run.queue, redis);
      await queue.setGlobalConcurrency(q.concurrency);
      if (q.rateLimit !== undefined) {
        const { max, duration } = limiterFor(q.rateLimit);
        await queue.setGlobalRateLimit(max, duration);
      } else await queue.removeGlobalRateLimit();

      const pending = new Set<string>();
      let batch: Array<{ name: string; data: AnyPrompt; opts: { jobId: string; attempts: number; removeOnComplete: false; removeOnFail: false } }> = [];
      const flush = async () => {
        if (batch.length > 0) await queue!.addBulk(batch);
        batch = [];
      };
      for await (const p of prompts) {
        const jobId = promptJobId(p.key);
        pending.add(jobId);
        batch.push({ name: 'prompt', data: p, opts: { jobId, attempts: 3, removeOnComplete: false, removeOnFail: false } });
        if (batch.length >= BATCH) await flush();
      }
      await flush();

      const poll = progressPoller(queue, q.onProgress);
      let lastProgress = Date.now();
      while (pending.size > 0) {
        if (signal.aborted) return;
        await poll();
        const failed = (await queue.getJobs(['failed'], 0, 0)) as Job<AnyPrompt>[];
        if (failed.length > 0) throw new GsrError(`prompt ${failed[0].data.key} failed on the workers after ${failed[0].attemptsMade} attempts: ${failed[0].failedReason}; run again with --resume to retry it`);
        const jobs = (await queue.getJobs(['completed'], 0, BATCH - 1, true)) as Job<AnyPrompt, AnswerResult>[];
        if (jobs.length === 0) {
          if (Date.now() - lastProgress > 10_000 && (await openJobCount(queue)) === 0) {
            throw new GsrError(`${pending.size} prompt jobs are gone from Redis (restarted without persistence, or cleaned?); run again with --resume to enqueue them again`);
          }
          await sleep(q.pollMs ?? 100);
          continue;
        }
        lastProgress = Date.now();
        // Settled together: the runner's batcher commits them in one transaction.
        await Promise.all(jobs.filter((j) => pending.has(j.id!)).map((j) => settle(j.data, j.returnvalue)));
        for (const j of jobs) pending.delete(j.id!);
        await Promise.all(jobs.map((j) => j.remove()));
      }
      await dropRun(redis, queue, id);
      q.store.setMeta(metaName, null);
    } finally {
      await queue?.close();
      redis.disconnect();
    }
  };
}

/** A worker's processor for one prompt run: one answerer, the local runner's request code. */
export async function promptProcessor(run: QueueRun): Promise<JobProcessor> {
  const spec = run.spec as PromptSpec;
  const answerer: Answerer = await answerers.get(spec.answerer)(spec.options);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...spec.retry };
  return {
    async process(job: Job, signal: AbortSignal): Promise<AnswerResult> {
      const r = await answerPrompt(job.data as AnyPrompt, answerer, { timeoutMs: spec.timeoutMs, policy, signal });
      if (r === null) throw new Error('worker stopped');
      return r;
    },
    async close() {
      await answerer.close?.();
    },
  };
}
