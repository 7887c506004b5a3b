/**
 * `gsr annotate run --queue` against a real redis-server, with worker processes: the output equals a
 * local run's (COCO, journal records, depth PNGs) after a worker is SIGKILLed mid-run and restarted,
 * Redis is SIGKILLed and restarted, the other worker is stopped with SIGTERM, and the submitter is
 * SIGKILLed and re-attached with --resume.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annotate, targetsFromManifest } from '../../src/annotate/index.js';
import { synthesizeDataset } from '../../src/datasets/index.js';
import { FIXTURE_ANNOTATOR, writeFixtureModels } from '../helpers/annotator-fixtures.js';
import { cocoWithoutInfo, journalRecords } from '../helpers/queue-compare.js';
import { redisUnavailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { exitOf, gsr, killAll, waitFor, type Proc } from './procs.js';

const skip = redisUnavailable();
if (skip) console.warn(`queue tests skipped: ${skip}`);
/**
 * GSR_QUEUE_ACCEPTANCE=1 runs the acceptance size (500 images); npm test runs 144. Records
 * commit in target order, so after the worker's kill they wait for its shard's lock (2 s) and then
 * come in one burst: with 48 images a quiet machine finished them all in that burst, before the
 * Redis and submitter faults could land mid-run.
 */
const ACCEPTANCE = process.env.GSR_QUEUE_ACCEPTANCE === '1';
const IMAGES = ACCEPTANCE ? 500 : 144;
/** Waits that depend on the number of images last this many times longer at the acceptance size. */
const SCALE = ACCEPTANCE ? 10 : 1;

const doneCount = (dir: string) => journalRecords(dir).length;
const t0 = Date.now();
/** Step markers with times, so a timeout shows where it stopped. */
const step = (what: string, out: string) => console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s: ${what} (${doneCount(out)} committed)`);

describe.skipIf(skip !== null)('annotation on the job queue', () => {
  let redis: TestRedis;
  let dir: string;
  beforeAll(async () => {
    redis = await startRedis();
    dir = mkdtempSync(join(tmpdir(), 'gsr-qa-'));
  });
  afterAll(async () => {
    await killAll();
    await redis?.stop();
  });

  it('equals a local run after a worker kill -9, a Redis restart and a submitter kill -9 + --resume', async () => {
    const models = join(dir, 'models');
    writeFixtureModels(models);
    await synthesizeDataset({ out: join(dir, 'syn'), count: IMAGES, seed: 3, width: 160, height: 120, format: 'png' });
    const manifest = join(dir, 'syn', 'manifest.jsonl');
    const local = join(dir, 'local');
    // --flush-denormals and the decoding rules travel in the run's spec to every worker: the info compared below records them.
    const decode = { alpha: 'white', grey16: 'high-byte', icc: 'convert' } as const;
    await annotate({ targets: await targetsFromManifest(manifest), outDir: local, ...FIXTURE_ANNOTATOR, modelsDir: models, device: 'cpu', session: { denormalAsZero: true }, decode });

    const out = join(dir, 'queued');
    const workerArgs = ['worker', 'annotate', '--queue', redis.url, '--models-dir', models, '--device', 'cpu', '--lock-ms', '2000'];
    const workers: Proc[] = [gsr(workerArgs), gsr(workerArgs)];
    const submitArgs = ['annotate', 'run', '--manifest', manifest, '--out', out, '--detector', FIXTURE_ANNOTATOR.detector, '--segmenter', FIXTURE_ANNOTATOR.segmenter,
      '--depth', FIXTURE_ANNOTATOR.depth, '--models-dir', models, '--flush-denormals', '--decode-alpha', decode.alpha, '--decode-grey16', decode.grey16, '--decode-icc', decode.icc, '--queue', redis.url, '--shard-size', '4', '--json'];
    let submitter = gsr(submitArgs);

    // A worker dies at a random point early on and comes back.
    const killAt = Math.round(IMAGES * (0.1 + 0.2 * Math.random()));
    console.log(`queue annotate: ${IMAGES} images, worker SIGKILLed after ${killAt} committed, Redis and the submitter at ${Math.round(IMAGES * 0.45)}`);
    await waitFor('the first shards', () => doneCount(out) >= killAt, 150_000 * SCALE, [submitter, ...workers]);
    step('worker 0 SIGKILL', out);
    workers[0].child.kill('SIGKILL');
    await exitOf(workers[0], 'worker 0 (SIGKILL)', 30_000);
    workers[0] = gsr(workerArgs);
    // Redis dies (SIGKILL; AOF with fsync per write) and comes back on the same port.
    await waitFor('more shards', () => doneCount(out) >= Math.round(IMAGES * 0.45), 150_000 * SCALE, [submitter, ...workers]);
    step('Redis restart', out);
    await redis.restart();
    // The submitter dies and is re-attached. Killed while it is still reconnecting: once back, it
    // commits what the workers did meanwhile in one burst, and could finish before a later kill.
    step('submitter SIGKILL', out);
    submitter.child.kill('SIGKILL');
    expect(await exitOf(submitter, 'the submitter (SIGKILL)', 30_000)).toBe('SIGKILL');
    const before = doneCount(out);
    expect(before).toBeLessThan(IMAGES);
    // SIGTERM mid-run: the worker finishes its shard in hand and exits 0.
    step('worker 1 SIGTERM', out);
    workers[1].child.kill('SIGTERM');
    expect(await exitOf(workers[1], 'worker 1 (SIGTERM)', 120_000), workers[1].output()).toBe(0);
    expect(workers[1].output()).toMatch(/stopping: finishing the jobs in hand[\s\S]*stopped after \d+ jobs/);
    workers[1] = gsr(workerArgs);
    step('submit without --resume', out);
    const refused = gsr(submitArgs); // without --resume: refused, the run left alone
    expect(await exitOf(refused, 'the refused submit', 60_000)).toBe(1);
    expect(refused.output()).toMatch(/has a queued run .* pass --resume/);
    step('submit --resume', out);
    submitter = gsr([...submitArgs, '--resume']);
    expect(await exitOf(submitter, 'the resumed submitter', 180_000 * SCALE), submitter.output()).toBe(0);
    const summary = JSON.parse(submitter.output().slice(submitter.output().indexOf('{\n')));
    expect(summary).toMatchObject({ images_total: IMAGES, images_done: IMAGES, images_failed: 0, images_skipped: before });

    expect(journalRecords(out)).toEqual(journalRecords(local));
    expect(cocoWithoutInfo(out)).toEqual(cocoWithoutInfo(local));
    const depth = readdirSync(join(local, 'depth')).sort();
    expect(depth).toHaveLength(IMAGES);
    // A SIGKILL can leave an atomic writer's temporary file behind (never a partial PNG); the resumed
    // submitter removes it when it takes the folder's lock.
    expect(readdirSync(join(out, 'depth')).sort()).toEqual(depth);
    for (const f of depth) expect(readFileSync(join(out, 'depth', f)).equals(readFileSync(join(local, 'depth', f))), f).toBe(true);
    // The finished run is gone from Redis and from the output folder.
    expect(existsSync(join(out, '.gsr-queue.json'))).toBe(false);
    step('queue status', out);
    const status = gsr(['queue', 'status', '--queue', redis.url, '--json']);
    expect(await exitOf(status, 'queue status', 60_000)).toBe(0);
    expect(JSON.parse(status.output())).toEqual([]);

    step('workers SIGTERM', out);
    for (const w of workers) w.child.kill('SIGTERM');
    for (const w of workers) expect(await exitOf(w, 'a worker (SIGTERM)', 60_000)).toBe(0);
  }, ACCEPTANCE ? 3_600_000 : 480_000);
});
