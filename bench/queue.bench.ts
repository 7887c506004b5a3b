/**
 * The job queue's cost (`npm run bench -- queue`), side by side with a local run of the same work:
 *  - annotation with the fixture annotator (docs/annotate.md): local, then queued to 1 and 2 workers;
 *  - the shard size: boxes-only FastestDet (the random-weight file with the real model's contract,
 *    test/fixtures/perception/fastestdet; cheap per image, so the per-job cost shows) at 1-64 images
 *    per job over 2 workers;
 *  - prompts: a local run against a fake endpoint, then queued to 1 and 3 workers; and prompts to the
 *    instant `random` baseline, where the queue is nearly all that is measured.
 * Annotation is timed over the whole run (fresh workers: start and model loading included); the
 * submitter's own ceiling is timed collecting shards the workers already finished. Prompt rates are
 * steady-state: results per second between the first and the last commit. Redis's own
 * CPU time per job is read from /proc: Redis runs commands on one thread, so 1 / (CPU per job) is its
 * ceiling in jobs per second per core. Workers are `gsr worker` processes; the submitter runs here.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { annotate, targetsFromManifest, type AnnotateOptions } from '../src/annotate/index.js';
import { synthesizeDataset } from '../src/datasets/index.js';
import { answerers, RunStore, runPrompts } from '../src/mllm/index.js';
import { Queue } from 'bullmq';
import { KEY_PREFIX, queueAnnotateExecutor, queueDispatch, RUN_FILE } from '../src/queue/index.js';
import { FIXTURE_ANNOTATOR, writeFixtureModels } from '../test/helpers/annotator-fixtures.js';
import { startRedis, type TestRedis } from '../test/helpers/redis.js';
import { writePrompts } from '../test/mllm/prompt-fixtures.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..');
const r3 = (v: number) => Math.round(v * 1000) / 1000;

/** Redis's CPU seconds so far (utime + stime from /proc). */
function redisCpu(redis: TestRedis): number {
  const f = readFileSync(`/proc/${redis.pid()}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function startWorkers(kind: 'annotate' | 'run', n: number, url: string, extra: string[]): ChildProcess[] {
  return Array.from({ length: n }, () =>
    spawn(process.execPath, ['--import', 'tsx', join(repo, 'src/cli/main.ts'), 'worker', kind, '--queue', url, ...extra], { cwd: repo, stdio: 'ignore', env: { ...process.env, GSR_PROGRESS: '0' } }),
  );
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : (w.once('exit', r), w.kill('SIGTERM'))))));
}

/** Steady-state rate and time to first result from commit times (ms since start). */
function rates(times: number[]) {
  const n = times.length;
  const steady = n > 1 ? ((n - 1) * 1000) / (times[n - 1] - times[0]) : 0;
  return { results: n, per_second: r3(steady), ms_per_result: r3(1000 / steady), seconds_to_first: r3(times[0] / 1000), seconds_total: r3(times[n - 1] / 1000) };
}

function cycledManifest(synthDir: string, count: number, path: string): string {
  const scenes = readFileSync(join(synthDir, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  writeFileSync(path, Array.from({ length: count }, (_, i) => JSON.stringify({ ...scenes[i % scenes.length], id: `q-${String(i).padStart(5, '0')}`, root: synthDir })).join('\n') + '\n');
  return path;
}

interface AnnotateBenchOptions {
  manifest: string;
  out: string;
  models: string;
  shardSize: number;
  annotator: Record<string, string | null>;
}

function annotateOnce(opts: AnnotateBenchOptions, executor: AnnotateOptions['executor'], signal?: AbortSignal, onTick?: () => void) {
  return targetsFromManifest(opts.manifest).then((targets) =>
    annotate({
      targets, outDir: opts.out, detector: opts.annotator.detector!, segmenter: opts.annotator.segmenter, depth: opts.annotator.depth, modelsDir: opts.models, device: 'cpu',
      progress: { tick: () => onTick?.(), stop() {} }, executor, signal,
    }),
  );
}

/** Bytes of result files (depth PNGs) per image in an output folder: what travels back through Redis (x4/3 in base64). */
function resultBytesPerImage(out: string, images: number): number {
  const dir = join(out, 'depth');
  return existsSync(dir) ? Math.round(readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0) / images) : 0;
}

/** Wall time of a whole run, local or queued to `workers` fresh worker processes (their start and model loading included). */
async function annotateRun(redis: TestRedis | null, workers: number, opts: AnnotateBenchOptions) {
  const pool = redis ? startWorkers('annotate', workers, redis.url, ['--models-dir', opts.models, '--device', 'cpu']) : [];
  const t0 = performance.now();
  let first = 0;
  try {
    const s = await annotateOnce(opts, redis ? queueAnnotateExecutor({ url: redis.url, shardSize: opts.shardSize }) : undefined, undefined, () => (first ||= performance.now()));
    const seconds = (performance.now() - t0) / 1000;
    return { images: s.images_total, seconds: r3(seconds), seconds_to_first_result: r3((first - t0) / 1000), images_per_second: r3(s.images_total / seconds), result_bytes_per_image: resultBytesPerImage(opts.out, s.images_total) };
  } finally {
    await stopWorkers(pool);
  }
}

/**
 * The submitter's own ceiling: every shard is finished by the workers first (the submitter enqueues
 * and detaches), then a re-attached submitter only collects, writes the files and journals.
 */
async function submitterCollectRate(redis: TestRedis, workers: number, opts: AnnotateBenchOptions) {
  const detach = new AbortController();
  await annotateOnce(opts, queueAnnotateExecutor({ url: redis.url, shardSize: opts.shardSize, onRun: () => detach.abort() }), detach.signal);
  const pool = startWorkers('annotate', workers, redis.url, ['--models-dir', opts.models, '--device', 'cpu']);
  const jobs = Math.ceil((await targetsFromManifest(opts.manifest)).length / opts.shardSize);
  const recorded = JSON.parse(readFileSync(join(opts.out, RUN_FILE), 'utf8')) as { queue: string };
  const queue = new Queue(recorded.queue, { connection: { host: '127.0.0.1', port: redis.port }, prefix: KEY_PREFIX });
  while ((await queue.getCompletedCount()) < jobs) await new Promise((r) => setTimeout(r, 200));
  await queue.close();
  await stopWorkers(pool);
  const t0 = performance.now();
  const s = await annotateOnce(opts, queueAnnotateExecutor({ url: redis.url, shardSize: opts.shardSize, resume: true }));
  const seconds = (performance.now() - t0) / 1000;
  return { images: s.images_processed, seconds: r3(seconds), images_per_second: r3(s.images_processed / seconds) };
}

async function promptRun(redis: TestRedis | null, workers: number, opts: { prompts: string; store: string; kind: string; baseUrl?: string; concurrency: number }) {
  const store = RunStore.open(opts.store);
  const settings = { answerer: opts.kind, model: 'bench' };
  const options = { model: 'bench', baseUrl: opts.baseUrl, seed: 1 };
  const answerer = await answerers.get(opts.kind)(options);
  const times: number[] = [];
  const pool = redis ? startWorkers('run', workers, redis.url, ['--concurrency', String(opts.concurrency)]) : [];
  const cpu0 = redis ? redisCpu(redis) : 0;
  const t0 = performance.now();
  let n = 0;
  try {
    const s = await runPrompts({
      prompts: opts.prompts, store, answerer, settings, concurrency: opts.concurrency, timeoutMs: 30_000,
      onResult: () => times.push(performance.now() - t0),
      dispatch: redis
        ? queueDispatch({ url: redis.url, store, model: 'bench', settingsId: store.registerSettings(settings), concurrency: opts.concurrency * Math.max(1, workers), spec: { answerer: opts.kind, options, timeoutMs: 30_000, retry: {} } })
        : undefined,
    });
    n = s.ok;
  } finally {
    await stopWorkers(pool);
    await answerer.close?.();
    store.close();
  }
  return { ...rates(times), ok: n, ...(redis ? { redis_cpu_ms_per_job: r3(((redisCpu(redis) - cpu0) * 1000) / n) } : {}) };
}

async function startEndpoint(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'runner-endpoint.ts'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', () => reject(new Error('endpoint exited')));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

export default async function bench() {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-queue-bench-'));
  const redis = await startRedis();
  const endpoint = await startEndpoint();
  const load = [loadavg()[0]];
  try {
    const models = join(dir, 'models');
    writeFixtureModels(models);
    const synthDir = join(dir, 'syn');
    await synthesizeDataset({ out: synthDir, count: 50, seed: 7, width: 320, height: 240, format: 'png' });
    const log = (s: string) => process.stderr.write(`  ${s}\n`);

    log('annotate: fixture annotator, 64 images');
    const full = cycledManifest(synthDir, 64, join(dir, 'm64.jsonl'));
    const fullOpts = (out: string, shardSize = 16): AnnotateBenchOptions => ({ manifest: full, out: join(dir, out), models, shardSize, annotator: FIXTURE_ANNOTATOR });
    const annotateSide = {
      local: await annotateRun(null, 0, fullOpts('a-local')),
      queue_1_worker: await annotateRun(redis, 1, fullOpts('a-q1')),
      queue_2_workers: await annotateRun(redis, 2, fullOpts('a-q2')),
      submitter_collect_only: await submitterCollectRate(redis, 2, fullOpts('a-collect')),
    };
    load.push(loadavg()[0]);

    log('annotate: FastestDet boxes only, 128 images, shard sizes');
    const boxes = cycledManifest(synthDir, 128, join(dir, 'm128.jsonl'));
    const boxAnnotator = { detector: 'fastestdet', segmenter: null, depth: null };
    const shardSweep: Record<string, { seconds: number }> = { local: await annotateRun(null, 0, { manifest: boxes, out: join(dir, 'b-local'), models, shardSize: 1, annotator: boxAnnotator }) };
    for (const size of [1, 4, 16, 64]) {
      shardSweep[`queue_2_workers_shard_${size}`] = await annotateRun(redis, 2, { manifest: boxes, out: join(dir, `b-${size}`), models, shardSize: size, annotator: boxAnnotator });
    }
    load.push(loadavg()[0]);

    log('prompts: 3,000 against a fake endpoint (no latency), and to the random baseline');
    const { path } = writePrompts(dir, 3000);
    const p = (name: string) => ({ prompts: path, store: join(dir, `${name}.sqlite`), concurrency: 16 });
    const promptSide = {
      endpoint_local: await promptRun(null, 0, { ...p('e-local'), kind: 'openai', baseUrl: endpoint.url }),
      endpoint_queue_1_worker: await promptRun(redis, 1, { ...p('e-q1'), kind: 'openai', baseUrl: endpoint.url }),
      endpoint_queue_3_workers: await promptRun(redis, 3, { ...p('e-q3'), kind: 'openai', baseUrl: endpoint.url }),
      random_local: await promptRun(null, 0, { ...p('r-local'), kind: 'random' }),
      random_queue_1_worker: await promptRun(redis, 1, { ...p('r-q1'), kind: 'random' }),
      random_queue_3_workers: await promptRun(redis, 3, { ...p('r-q3'), kind: 'random' }),
    };
    load.push(loadavg()[0]);

    const perResult = (q: { ms_per_result: number }, l: { ms_per_result: number }) => r3(q.ms_per_result - l.ms_per_result);
    const perImage = (q: { seconds: number }, l: { seconds: number }, n: number) => r3(((q.seconds - l.seconds) * 1000) / n);
    return {
      note:
        'one run each on a shared 2-core machine (workers, submitter, Redis and endpoint share the cores); annotate: whole-run wall time, worker start and model loading included; prompts: steady-state rate between the first and last commit; Redis CPU from /proc (10 ms ticks) over the run, polling included',
      load_average_1min: load.map((v) => Math.round(v * 10) / 10),
      annotate_fixture_64_images: annotateSide,
      annotate_boxes_128_images_shard_sweep: shardSweep,
      prompts_3000: promptSide,
      overhead: {
        annotate_fixture_ms_per_image_1_worker_whole_run: perImage(annotateSide.queue_1_worker, annotateSide.local, 64),
        annotate_boxes_ms_per_image_shard_16_whole_run: perImage(shardSweep.queue_2_workers_shard_16, shardSweep.local, 128),
        prompt_ms_per_prompt_endpoint_1_worker: perResult(promptSide.endpoint_queue_1_worker, promptSide.endpoint_local),
        prompt_ms_per_prompt_random_1_worker: perResult(promptSide.random_queue_1_worker, promptSide.random_local),
      },
    };
  } finally {
    endpoint.stop();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
