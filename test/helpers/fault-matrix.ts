/**
 * The network fault matrix: queued runs (`gsr annotate run --queue`, `gsr run --queue`) with `gsr
 * worker` processes, the links between them, Redis and the endpoint going through fault proxies
 * (test/helpers/fault-proxy.ts). Each scenario returns what it measured; test/queue/faults.test.ts
 * runs them small and checks them, bench/faults.bench.ts runs them at the acceptance size.
 *
 * Every scenario checks the same three things: each image or prompt ends exactly once (one journal
 * record per image, one store row per prompt), the outputs equal a local run's byte for byte
 * (test/helpers/queue-compare.ts), and every process ends within its bound (a hang fails the wait).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { annotate, targetsFromManifest } from '../../src/annotate/index.js';
import { synthesizeDataset } from '../../src/datasets/index.js';
import { createOpenAiAnswerer, RunStore, runPrompts } from '../../src/mllm/index.js';
import { FIXTURE_ANNOTATOR, writeFixtureModels } from './annotator-fixtures.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { cocoWithoutInfo, depthFiles, journalRecords, storeRows } from './queue-compare.js';
import { startRedis, type TestRedis } from './redis.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';
import { writePrompts } from '../mllm/prompt-fixtures.js';
import { exitOf, gsr, killAll, waitFor, type Proc } from '../queue/procs.js';

/** What every scenario reports. */
export interface FaultFigures {
  scenario: string;
  /** Images or prompts in the run. */
  items: number;
  /** Items that ended more than once, or never (must both be 0). */
  duplicated: number;
  lost: number;
  /** Outputs equal to the local run's, byte for byte. */
  identical: boolean;
  /** Seconds from the submitter's start to its exit. */
  seconds: number;
  [figure: string]: unknown;
}

/** Bounds a scenario waits for (a process still running past one is a hang). */
export interface Bounds {
  /** The submitter's whole run. */
  runMs: number;
  /** A worker's exit after SIGTERM (the jobs in hand finished). */
  stopMs: number;
}

/** Step markers with times, so that a stall shows where it is. */
const t00 = Date.now();
const step = (what: string) => console.log(`fault matrix ${((Date.now() - t00) / 1000).toFixed(1)} s: ${what}`);

const cleanups: Array<() => Promise<void>> = [];
async function cleanup(): Promise<void> {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
}

async function redisServer(options?: { replicaOf?: number }): Promise<TestRedis> {
  const r = await startRedis(options);
  cleanups.push(() => r.stop());
  return r;
}
async function proxyTo(port: number): Promise<FaultProxy> {
  const p = await startFaultProxy(port);
  cleanups.push(() => p.close());
  return p;
}
async function fakeEndpoint(latencyMs: number): Promise<FakeServer> {
  const s = await startFakeServer({ latencyMs });
  cleanups.push(() => s.close());
  return s;
}
const portOf = (url: string) => Number(new URL(url).port);
/** The `--json` summary in a process's output (stdout and stderr interleaved). */
function summaryOf<T>(p: Proc): T {
  const text = p.output();
  const start = text.indexOf('{\n');
  return JSON.parse(text.slice(start, text.indexOf('\n}', start) + 2)) as T;
}

/** SIGTERMs the workers; each must exit 0 within the bound. Returns the jobs each says it did. */
async function stopWorkers(workers: Proc[], bounds: Bounds): Promise<number[]> {
  for (const w of workers) w.child.kill('SIGTERM');
  const jobs = [];
  for (const w of workers) {
    const code = await exitOf(w, 'a worker after SIGTERM', bounds.stopMs);
    if (code !== 0) throw new Error(`a worker exited ${code}: ${w.output()}`);
    jobs.push(Number(/stopped after (\d+) jobs/.exec(w.output())?.[1] ?? NaN));
  }
  return jobs;
}

// ---- annotation -------------------------------------------------------------------------------

interface AnnotateSetup {
  manifest: string;
  models: string;
  local: string;
}

/** Synthetic images, the fixture annotator's models, and the local run every queued run must equal. */
async function annotateSetup(dir: string, images: number): Promise<AnnotateSetup> {
  const models = join(dir, 'models');
  writeFixtureModels(models);
  await synthesizeDataset({ out: join(dir, 'syn'), count: images, seed: 5, width: 160, height: 120, format: 'png', workers: 0 });
  const manifest = join(dir, 'syn', 'manifest.jsonl');
  const local = join(dir, 'local');
  // --flush-denormals travels to every worker in the run's spec; the local run matches it.
  await annotate({ targets: await targetsFromManifest(manifest), outDir: local, ...FIXTURE_ANNOTATOR, modelsDir: models, device: 'cpu', session: { denormalAsZero: true } });
  return { manifest, models, local };
}

const annotateWorker = (s: AnnotateSetup, url: string, lockMs: number) => gsr(['worker', 'annotate', '--queue', url, '--models-dir', s.models, '--device', 'cpu', '--lock-ms', String(lockMs)]);
const annotateSubmit = (s: AnnotateSetup, url: string, out: string, shard: number) =>
  gsr(['annotate', 'run', '--manifest', s.manifest, '--out', out, '--detector', FIXTURE_ANNOTATOR.detector, '--segmenter', FIXTURE_ANNOTATOR.segmenter, '--depth', FIXTURE_ANNOTATOR.depth,
    '--models-dir', s.models, '--flush-denormals', '--queue', url, '--shard-size', String(shard), '--json']);

/** Exactly once and equal to the local run: journal records, annotations.json, depth PNGs. */
function compareAnnotations(s: AnnotateSetup, out: string, images: number) {
  const records = journalRecords(out);
  const ids = records.map((l) => (JSON.parse(l) as { item_id: string }).item_id);
  const unique = new Set(ids).size;
  const same = JSON.stringify(records) === JSON.stringify(journalRecords(s.local));
  const coco = JSON.stringify(cocoWithoutInfo(out)) === JSON.stringify(cocoWithoutInfo(s.local));
  const depth = depthFiles(out);
  const localDepth = depthFiles(s.local);
  const depthSame = depth.size === localDepth.size && [...localDepth].every(([f, b]) => depth.get(f) === b);
  return { duplicated: ids.length - unique, lost: images - unique, identical: same && coco && depthSame && localDepth.size === images };
}

/**
 * A worker cut off from Redis for longer than the job lock, mid-run: its job is handed out again
 * to the other worker after the lock lapses, and its own late result is refused. The partition
 * holds every byte both ways; on healing, the connections are reset (`cut`, as after a partition
 * that outlived TCP) or delivered late.
 */
export async function workerPartition(dir: string, o: { images: number; shard: number; lockMs: number; partitionMs: number; cut: boolean; bounds: Bounds }): Promise<FaultFigures> {
  try {
    mkdirSync(dir, { recursive: true });
    const s = await annotateSetup(dir, o.images);
    const redis = await redisServer();
    const link = await proxyTo(redis.port);
    const workers = [annotateWorker(s, link.url('redis'), o.lockMs), annotateWorker(s, redis.url, o.lockMs)];
    const out = join(dir, 'queued');
    const t0 = Date.now();
    const submitter = annotateSubmit(s, redis.url, out, o.shard);
    await waitFor('the first shard', () => journalRecords(out).length >= o.shard, o.bounds.runMs, [submitter, ...workers]);
    link.partition();
    const doneAtPartition = journalRecords(out).length;
    await sleep(o.partitionMs);
    link.heal({ cut: o.cut });
    const code = await exitOf(submitter, 'the submitter', Math.max(1000, o.bounds.runMs - (Date.now() - t0)));
    if (code !== 0) throw new Error(`submitter exited ${code}: ${submitter.output()}`);
    const seconds = (Date.now() - t0) / 1000;
    const jobs = await stopWorkers(workers, o.bounds);
    return {
      scenario: `worker partitioned from Redis for ${o.partitionMs} ms (job lock ${o.lockMs} ms), then ${o.cut ? 'its connections reset' : 'delivered late'}`,
      items: o.images, ...compareAnnotations(s, out, o.images), seconds,
      committed_at_partition: doneAtPartition, shards: Math.ceil(o.images / o.shard), jobs_processed_by_workers: jobs,
    };
  } finally {
    await cleanup();
  }
}

/**
 * A slow link (one-way latency and a bandwidth limit) between Redis and both the worker and the
 * submitter, while depth PNGs travel in the job results.
 */
export async function slowLink(dir: string, o: { images: number; shard: number; latencyMs: number; bytesPerSecond: number; bounds: Bounds }): Promise<FaultFigures> {
  try {
    mkdirSync(dir, { recursive: true });
    const s = await annotateSetup(dir, o.images);
    const redis = await redisServer();
    const workerLink = await proxyTo(redis.port);
    const submitterLink = await proxyTo(redis.port);
    for (const l of [workerLink, submitterLink]) l.shape({ latencyMs: o.latencyMs, bytesPerSecond: o.bytesPerSecond });
    const workers = [annotateWorker(s, workerLink.url('redis'), 30_000)];
    const out = join(dir, 'queued');
    const t0 = Date.now();
    const submitter = annotateSubmit(s, submitterLink.url('redis'), out, o.shard);
    const code = await exitOf(submitter, 'the submitter', o.bounds.runMs);
    if (code !== 0) throw new Error(`submitter exited ${code}: ${submitter.output()}`);
    const seconds = (Date.now() - t0) / 1000;
    await stopWorkers(workers, o.bounds);
    const depthBytes = [...depthFiles(s.local).values()].reduce((n, b) => n + Buffer.from(b, 'base64').length, 0);
    return {
      scenario: `slow links to Redis (${o.latencyMs} ms each way, ${o.bytesPerSecond / 1e6} MB/s) for the worker and the submitter while depth PNGs travel`,
      items: o.images, ...compareAnnotations(s, out, o.images), seconds,
      depth_png_bytes: depthBytes, bytes_worker_to_redis: workerLink.stats().up, bytes_redis_to_submitter: submitterLink.stats().down,
    };
  } finally {
    await cleanup();
  }
}

// ---- prompts ----------------------------------------------------------------------------------

interface PromptSetup {
  prompts: string;
  server: FakeServer;
  localStore: string;
}

async function promptSetup(dir: string, n: number, latencyMs: number): Promise<PromptSetup> {
  const server = await fakeEndpoint(latencyMs);
  const { path } = writePrompts(dir, n);
  const localStore = join(dir, 'local.sqlite');
  const store = RunStore.open(localStore);
  try {
    await runPrompts({ prompts: path, store, answerer: createOpenAiAnswerer({ model: 'm1', baseUrl: server.url }), settings: { answerer: 'openai', model: 'm1' }, concurrency: 16 });
  } finally {
    store.close();
  }
  return { prompts: path, server, localStore };
}

/** Exactly once (one ok row per prompt) and equal to the local run's rows. */
function comparePrompts(p: PromptSetup, store: string, n: number) {
  // The settings id holds the endpoint's URL, which is the proxy's here: compared without it.
  const rows = (path: string) => storeRows(path, 'm1').map(({ settings: _s, ...r }) => r);
  const got = rows(store);
  const want = rows(p.localStore);
  const ok = got.filter((r) => r.status === 'ok').length;
  const s = RunStore.open(store, { create: false });
  const retried = [...s.responses({ model: 'm1' })].filter((r) => r.attempts > 1).length;
  s.close();
  return { duplicated: got.length - new Set(got.map((r) => r.key)).size, lost: n - ok, identical: JSON.stringify(got) === JSON.stringify(want), prompts_retried: retried };
}

const runWorker = (url: string, lockMs: number) => gsr(['worker', 'run', '--queue', url, '--lock-ms', String(lockMs), '--concurrency', '8']);
const runSubmit = (p: PromptSetup, url: string, baseUrl: string, store: string, extra: string[] = []) =>
  gsr(['run', '--prompts', p.prompts, '--model', 'm1', '--base-url', baseUrl, '--store', store, '--queue', url, '--concurrency', '16', '--json', ...extra]);

/**
 * The endpoint stalls mid-run: it accepts connections and never answers, for `stallMs`, then comes
 * back (held connections reset). Requests time out after `timeoutMs` and are retried. Then, with the
 * endpoint stalled for good, a local `gsr run` must end within its documented bound: every attempt
 * times out, (retries + 1) x timeout plus the backoffs, and store the prompts as failed.
 */
export async function stalledEndpoint(dir: string, o: { prompts: number; stallMs: number; timeoutMs: number; bounds: Bounds }): Promise<FaultFigures> {
  try {
    mkdirSync(dir, { recursive: true });
    const p = await promptSetup(dir, o.prompts, 5);
    const redis = await redisServer();
    const endpoint = await proxyTo(portOf(p.server.url));
    const workers = [runWorker(redis.url, 10_000), runWorker(redis.url, 10_000)];
    const store = join(dir, 'queued.sqlite');
    const before = p.server.totalRequests();
    const t0 = Date.now();
    const retry = ['--timeout-ms', String(o.timeoutMs), '--max-retries', '10', '--retry-base-ms', '100', '--retry-max-ms', '1000'];
    const submitter = runSubmit(p, redis.url, endpoint.url('http'), store, retry);
    await waitFor('a quarter of the answers', () => p.server.totalRequests() - before >= o.prompts / 4, o.bounds.runMs, [submitter, ...workers]);
    endpoint.partition();
    await sleep(o.stallMs);
    endpoint.heal({ cut: true });
    const code = await exitOf(submitter, 'the submitter', Math.max(1000, o.bounds.runMs - (Date.now() - t0)));
    if (code !== 0) throw new Error(`submitter exited ${code}: ${submitter.output()}`);
    const seconds = (Date.now() - t0) / 1000;
    await stopWorkers(workers, o.bounds);
    const summary = summaryOf<{ ok: number; failed: number }>(submitter);

    // For good: a local run (no queue) of a few prompts against the stalled endpoint.
    endpoint.partition();
    const few = writePrompts(dir, 8, 'few.jsonl');
    const retries = 2;
    const stalledTimeout = 1500;
    const local = gsr(['run', '--prompts', few.path, '--model', 'm1', '--base-url', endpoint.url('http'), '--store', join(dir, 'stalled.sqlite'), '--timeout-ms', String(stalledTimeout),
      '--max-retries', String(retries), '--retry-base-ms', '100', '--retry-max-ms', '200', '--json']);
    const localCode = await exitOf(local, 'gsr run against the stalled endpoint', o.bounds.runMs);
    const stalled = summaryOf<{ failed: number; elapsed_ms: number }>(local);
    return {
      scenario: `endpoint stalled for ${o.stallMs} ms mid-run (accepts, never answers), per-attempt timeout ${o.timeoutMs} ms`,
      items: o.prompts, ...comparePrompts(p, store, o.prompts), seconds, submitter_ok: summary.ok, submitter_failed: summary.failed,
      endpoint_requests: p.server.totalRequests() - before,
      stalled_for_good: {
        exit: localCode, prompts: 8, failed: stalled.failed, elapsed_ms: stalled.elapsed_ms, attempts_ms: (retries + 1) * stalledTimeout,
        bound_ms: (retries + 1) * stalledTimeout + 100 + 200,
      },
    };
  } finally {
    await cleanup();
  }
}

/**
 * Redis fails over to its replica while jobs are in flight: every client reaches Redis through one
 * address (the proxy); writes on the primary are paused, the replica catches up and is promoted,
 * the address moves to it, the old connections are reset and the primary is killed. (A failover
 * that does not wait for the replica can lose the last writes; see docs/scale-out.md.)
 */
export async function redisFailover(dir: string, o: { prompts: number; bounds: Bounds }): Promise<FaultFigures> {
  try {
    mkdirSync(dir, { recursive: true });
    const p = await promptSetup(dir, o.prompts, 20);
    const primary = await redisServer();
    const replica = await redisServer({ replicaOf: primary.port });
    const address = await proxyTo(primary.port);
    const admin = [primary.port, replica.port].map((port) => new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 }).on('error', () => {}));
    cleanups.push(async () => void admin.forEach((c) => c.disconnect()));
    await waitFor('the replica to sync', async () => /master_link_status:up/.test(await admin[1].info('replication')), 60_000);
    const workers = [runWorker(address.url('redis'), 10_000), runWorker(address.url('redis'), 10_000)];
    const store = join(dir, 'queued.sqlite');
    const before = p.server.totalRequests();
    const t0 = Date.now();
    const submitter = runSubmit(p, address.url('redis'), p.server.url, store);
    await waitFor('a third of the answers', () => p.server.totalRequests() - before >= o.prompts / 3, o.bounds.runMs, [submitter, ...workers]);
    step('failover: pausing writes on the primary');
    const f0 = Date.now();
    await admin[0].call('CLIENT', 'PAUSE', '30000', 'WRITE');
    const offset = (info: string, key: string) => Number(new RegExp(`${key}:(\\d+)`).exec(info)?.[1] ?? -1);
    await waitFor('the replica to catch up', async () => offset(await admin[1].info('replication'), 'slave_repl_offset') >= offset(await admin[0].info('replication'), 'master_repl_offset'), 30_000);
    step('failover: promoting the replica');
    await admin[1].call('REPLICAOF', 'NO', 'ONE');
    address.setTarget(replica.port);
    address.cut();
    const inFlight = p.server.totalRequests() - before;
    admin[0].disconnect();
    await primary.stop();
    const failoverMs = Date.now() - f0;
    step(`failover: done in ${failoverMs} ms`);
    const code = await exitOf(submitter, 'the submitter', Math.max(1000, o.bounds.runMs - (Date.now() - t0)));
    if (code !== 0) throw new Error(`submitter exited ${code}: ${submitter.output()}`);
    const seconds = (Date.now() - t0) / 1000;
    await stopWorkers(workers, o.bounds);
    return {
      scenario: 'Redis failed over to its replica mid-run (writes paused, replica caught up and promoted, address moved, old connections reset, primary killed)',
      items: o.prompts, ...comparePrompts(p, store, o.prompts), seconds, failover_ms: failoverMs, answered_before_failover: inFlight,
      endpoint_requests: p.server.totalRequests() - before,
    };
  } finally {
    await cleanup();
  }
}
