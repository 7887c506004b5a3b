/**
 * `gsr annotate --queue`: the images go to workers in shards, and the records come back into the
 * run's own journal, in target order, so annotations.json is the one a local run writes.
 *
 * Submitter: the shard plan cuts the full target list into fixed shards (shard i = targets
 * [i*S, (i+1)*S)); each shard's unfinished images are one job, whose id names the shard and its ids,
 * so re-enqueuing after `--resume` adds nothing twice. Results are taken in shard order: the next
 * shard's job is read when it is complete, its depth and overlay files are written, its records
 * appended (an image already in the journal is skipped), and only then is the job removed. A
 * finished job waits in Redis until then, so a killed submitter loses nothing.
 *
 * Worker: loads the run's models once per concurrent slot, runs the same per-image step as a local
 * run (annotateTarget) into a scratch folder, and returns the records with the files they name.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Job, Queue } from 'bullmq';
import {
  annotateTarget,
  buildInfo,
  disposeModels,
  imageOutputOptions,
  loadModels,
  readTargetImage,
  type AnnotateExecutor,
  type ModelSettings,
} from '../annotate/run.js';
import type { AnnotateTarget } from '../annotate/targets.js';
import type { JournalEntry } from '../annotate/journal.js';
import type { PerceptionModels } from '../annotate/annotate-image.js';
import type { AnnotationInfo } from '../formats/coco.js';
import type { Device } from '../perception/types.js';
import { decodeSettings } from '../perception/image.js';
import { GsrError } from '../util/errors.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/fs.js';
import { readJsonFile } from '../util/jsonl.js';
import { sha256Hex } from '../util/hash.js';
import { openQueue, openRedis, safeQueueUrl } from './connection.js';
import { getRun, newRunId, queueNameOf, registerRun, unregisterRun, type QueueRun } from './runs.js';
import type { JobProcessor } from './worker.js';

/** Images per shard unless told otherwise (docs/scale-out.md says how it was chosen). */
export const DEFAULT_SHARD_SIZE = 16;
/** The file in the output folder that names the queued run, for `--resume`. */
export const RUN_FILE = '.gsr-queue.json';

/** What an annotate worker needs: the models and what to write, as the submitter was asked. */
export interface AnnotateSpec {
  detector: string;
  segmenter: string | null;
  depth: string | null;
  params: Record<string, number | string>;
  files?: ModelSettings['files'];
  /** Model file variant; absent means fp32 (runs queued before it was recorded). */
  precision?: ModelSettings['precision'];
  /** onnxruntime session settings every worker uses (`--flush-denormals`); absent means the defaults. */
  session?: ModelSettings['session'];
  /** Image decoding rules every worker uses (`--decode-alpha`, `--decode-grey16`, `--decode-icc`); absent means the reference's. */
  decode?: ModelSettings['decode'];
  overlays: boolean;
  maxRunnersUp: number;
  shardSize: number;
}

export interface ShardJobData {
  shard: number;
  targets: AnnotateTarget[];
}

export interface ShardResult {
  info: AnnotationInfo;
  records: Array<{ entry: JournalEntry; files: Record<string, string> }>;
}

/** Where a submitter's queue stands, for its progress line. */
export interface QueueProgress {
  workers: number;
  /** Jobs being worked on now. */
  active: number;
  /** Jobs not yet picked up. */
  waiting: number;
  /** Jobs finished on a worker, not yet collected. */
  completed: number;
}

/** The progress bar's status text for a queued run. */
export function formatQueueProgress(p: QueueProgress, unit: string): string {
  return `workers ${p.workers} | ${unit} in flight ${p.active} | waiting ${p.waiting}`;
}

export interface QueueSubmitOptions {
  url: string;
  /** Re-attach to the run recorded for this output instead of refusing. */
  resume?: boolean;
  /** How often the submitter looks for results (default 100 ms). */
  pollMs?: number;
  onProgress?: (p: QueueProgress) => void;
  /** Says which run this is (new or re-attached), once. */
  onRun?: (run: { id: string; queue: string; resumed: boolean }) => void;
}

export interface QueueAnnotateOptions extends QueueSubmitOptions {
  shardSize?: number;
}

/** Tries of one shard before the run stops with its error (model load failures and the like). */
const JOB_ATTEMPTS = 3;

/** The run id recorded for an output and whether it is still registered; refuses to attach without `resume`. */
export async function attachRun(
  redis: Redis,
  recorded: string | undefined,
  o: { resume?: boolean; url: string; what: string },
): Promise<{ id: string; existing: QueueRun | null }> {
  if (recorded !== undefined) {
    const existing = await getRun(redis, recorded);
    if (existing !== null) {
      if (!o.resume) {
        throw new GsrError(
          `${o.what} has a queued run ${recorded} on ${safeQueueUrl(o.url)}; pass --resume to re-attach to it, or drop it with \`gsr queue clean --queue URL --run ${recorded}\``,
        );
      }
      return { id: recorded, existing };
    }
  }
  return { id: '', existing: null };
}

/** Polls queue counts for the progress line, at most once a second. */
export function progressPoller(queue: Queue, onProgress?: (p: QueueProgress) => void): () => Promise<void> {
  let last = 0;
  return async () => {
    if (!onProgress || Date.now() - last < 1000) return;
    last = Date.now();
    const [counts, workers] = await Promise.all([queue.getJobCounts('active', 'waiting', 'prioritized', 'delayed', 'completed'), queue.getWorkersCount()]);
    onProgress({ workers, active: counts.active ?? 0, waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0), completed: counts.completed ?? 0 });
  };
}

/** Ends a finished run: its queue, its registry entry. */
export async function dropRun(redis: Redis, queue: Queue, id: string): Promise<void> {
  await queue.obliterate({ force: true });
  await unregisterRun(redis, id);
}

/**
 * A result file's path, accepted only as one the record itself names, in depth/ or overlays/ with a
 * plain name: what comes out of Redis never writes outside the output folder.
 */
export function checkedResultFile(rel: string, entry: JournalEntry): string {
  const named = entry.type === 'done' && (entry.image.depth_file === rel || entry.image.overlay_file === rel);
  if (!named || !/^(depth|overlays)\/[A-Za-z0-9._-]+\.png$/.test(rel) || rel.includes('..')) {
    throw new GsrError(`a queue result for ${entry.item_id} carries a file it does not name, or outside depth/ and overlays/: ${JSON.stringify(rel).slice(0, 80)}`);
  }
  return rel;
}

/** The executor that sends a run's images to queue workers (see the file comment). */
export function queueAnnotateExecutor(q: QueueAnnotateOptions): AnnotateExecutor {
  return async (todo, o, sink) => {
    const redis = openRedis(q.url);
    const runFile = join(o.outDir, RUN_FILE);
    let queue: Queue | undefined;
    try {
      const recorded = existsSync(runFile) ? (await readJsonFile<{ id: string }>(runFile)).id : undefined;
      const attached = await attachRun(redis, recorded, { resume: q.resume, url: q.url, what: o.outDir });
      const id = attached.id || newRunId(o.outDir);
      const spec: AnnotateSpec = (attached.existing?.spec as AnnotateSpec | undefined) ?? {
        detector: o.detector,
        segmenter: o.segmenter ?? null,
        depth: o.depth ?? null,
        params: o.params ?? {},
        ...(o.precision === 'int8' ? { precision: o.precision } : {}),
        ...(o.session?.denormalAsZero ? { session: { denormalAsZero: true } } : {}),
        ...(Object.keys(decodeSettings(o.decode)).length > 0 ? { decode: o.decode } : {}),
        files: o.files,
        overlays: o.overlays ?? false,
        maxRunnersUp: o.maxRunnersUp ?? 5,
        shardSize: q.shardSize ?? DEFAULT_SHARD_SIZE,
      };
      const run: QueueRun<AnnotateSpec> = attached.existing as QueueRun<AnnotateSpec> | null ?? {
        id, kind: 'annotate', queue: queueNameOf('annotate', id), created: new Date().toISOString(), out: o.outDir, spec,
      };
      await registerRun(redis, run);
      await writeJsonAtomic(runFile, { id, queue: run.queue, url: safeQueueUrl(q.url) });
      q.onRun?.({ id, queue: run.queue, resumed: attached.existing !== null });
      queue = openQueue(run.queue, redis);

      // The shard plan over all targets, so a resumed run finds the same shards under the same job ids.
      const open = new Set(todo.map((t) => t.itemId));
      const shards: Array<{ jobId: string; data: ShardJobData }> = [];
      for (let i = 0; i * spec.shardSize < o.targets.length; i++) {
        const all = o.targets.slice(i * spec.shardSize, (i + 1) * spec.shardSize);
        const targets = all.filter((t) => open.has(t.itemId));
        if (targets.length === 0) continue;
        shards.push({ jobId: `s${i}-${sha256Hex(all.map((t) => t.itemId).join('\n')).slice(0, 12)}`, data: { shard: i, targets } });
      }
      const jobOptions = { attempts: JOB_ATTEMPTS, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: false, removeOnFail: false };
      for (let at = 0; at < shards.length; at += 500) {
        await queue.addBulk(shards.slice(at, at + 500).map((s) => ({ name: 'shard', data: s.data, opts: { ...jobOptions, jobId: s.jobId } })));
      }

      const poll = progressPoller(queue, q.onProgress);
      let infoGiven = false;
      for (const shard of shards) {
        for (;;) {
          if (o.signal?.aborted) return { interrupted: true };
          await poll();
          // The state first, then the job: a job read before its state could be read mid-completion.
          const state = await queue.getJobState(shard.jobId);
          if (state === 'unknown') {
            if ((await getRun(redis, id)) === null) throw new GsrError(`queued run ${id} was drained or cleaned (\`gsr queue\`); run again to start a new one`);
            // Lost (a Redis without persistence restarted): hand it out again.
            await queue.add('shard', shard.data, { ...jobOptions, jobId: shard.jobId });
            continue;
          }
          if (state !== 'completed' && state !== 'failed') {
            await sleep(q.pollMs ?? 100);
            continue;
          }
          const job = (await queue.getJob(shard.jobId)) as Job<ShardJobData, ShardResult>;
          if (state === 'failed') {
            throw new GsrError(`shard ${shard.data.shard} failed on the workers after ${job.attemptsMade} attempts: ${job.failedReason}; run again with --resume to retry it`);
          }
          const result = job.returnvalue;
          if (!infoGiven) {
            sink.info(result.info);
            infoGiven = true;
          }
          for (const { entry, files } of result.records) {
            if (!open.delete(entry.item_id)) continue; // committed before (a resumed run)
            for (const [rel, b64] of Object.entries(files)) await writeFileAtomic(join(o.outDir, checkedResultFile(rel, entry)), Buffer.from(b64, 'base64'));
            await sink.entry(entry);
          }
          await job.remove();
          break;
        }
      }
      await dropRun(redis, queue, id);
      await rm(runFile, { force: true });
      return { interrupted: false };
    } finally {
      await queue?.close();
      redis.disconnect();
    }
  };
}

export interface AnnotateWorkerOptions {
  modelsDir: string;
  device: Device;
  threads?: number;
}

/**
 * A worker's processor for one annotate run: up to `concurrency` model sets (one per job in hand,
 * since a segmenter holds its current image), loaded on first use.
 */
export async function annotateProcessor(run: QueueRun, w: AnnotateWorkerOptions): Promise<JobProcessor> {
  const spec = run.spec as AnnotateSpec;
  const settings: ModelSettings = { detector: spec.detector, segmenter: spec.segmenter, depth: spec.depth, params: spec.params, files: spec.files, precision: spec.precision, session: spec.session, decode: spec.decode, modelsDir: w.modelsDir, device: w.device, threads: w.threads };
  const free: Array<{ models: PerceptionModels; info: AnnotationInfo }> = [];
  const all: PerceptionModels[] = [];
  return {
    async process(job: Job, signal: AbortSignal): Promise<ShardResult> {
      let set = free.pop();
      if (set === undefined) {
        const models = await loadModels(settings);
        all.push(models);
        set = { models, info: await buildInfo(settings, '', models) };
      }
      const scratch = await mkdtemp(join(tmpdir(), 'gsr-shard-'));
      try {
        const out = imageOutputOptions({ outDir: scratch, overlays: spec.overlays, maxRunnersUp: spec.maxRunnersUp });
        const records: ShardResult['records'] = [];
        for (const target of (job.data as ShardJobData).targets) {
          if (signal.aborted) throw new Error('worker stopped');
          const entry = await annotateTarget(target, readTargetImage(target, spec.decode), set.models, out);
          const files: Record<string, string> = {};
          if (entry.type === 'done') {
            for (const rel of [entry.image.depth_file, entry.image.overlay_file]) {
              if (rel !== undefined) files[rel] = (await readFile(join(scratch, rel))).toString('base64');
            }
          }
          records.push({ entry, files });
        }
        return { info: set.info, records };
      } finally {
        free.push(set);
        await rm(scratch, { recursive: true, force: true });
      }
    },
    async close() {
      for (const models of all) await disposeModels(models);
    },
  };
}
