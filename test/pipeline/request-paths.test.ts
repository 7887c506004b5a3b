/**
 * One experiment, one request (issue 36): the same prompts asked through every path — `gsr run`, the
 * What'sUp pipeline, a plug-in pipeline (What'sUp as a plug-in), `gsr run --benchmark` and a queue
 * worker — reach a logging endpoint as the same request bodies, byte for byte, with the shared
 * defaults of src/mllm/request.ts. `gsr run` then `gsr pipeline run` on one store: the pipeline takes
 * every answer from the store, and `--force` asks them all again.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_DEFAULTS } from '../../src/mllm/request.js';
import { runCliInProcess as gsr, scaled } from '../helpers/cli.js';
import { redisUnavailable, startRedis } from '../helpers/redis.js';
import { fakeAnswer, startFakeServer, type FakeServer } from '../mllm/fake-server.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-request-paths-'));
const out = join(work, 'out');
const MODEL = 'fake-vlm';
let server: FakeServer;

beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, text);
  return path;
}

const whatsupPipeline = (extra = '') => file(`whatsup${extra ? '-prompts' : ''}`, `name: paths
out: ${out}
dataset: { synthetic: { count: 3, seed: 7 } }
annotations: { source: exact, compare_models: false }
prompts: { tasks: [tg] }
models:
  - { name: ${MODEL}, kind: openai, base_url: ${server.url}, concurrency: 2 }
${extra}`);

/** The bodies the endpoint received while `fn` ran, sorted (paths ask in different orders). */
async function bodiesOf(fn: () => Promise<unknown>): Promise<string[]> {
  const from = server.rawBodies.length;
  await fn();
  return server.rawBodies.slice(from).sort();
}

/** `gsr ...` in this process, expected to succeed. */
async function ok(args: string[]) {
  const r = await gsr(args);
  expect(r.status, r.stderr).toBe(0);
  return r;
}

describe('the same prompts through every path', () => {
  let viaRun: string[];
  let prompts: number;

  it('gsr run sends the shared defaults; gsr pipeline run then takes every answer from the store, and --force asks them all again, byte for byte', async () => {
    await ok(['pipeline', 'run', whatsupPipeline('stop_after: prompts')]);
    const promptFile = join(out, 'prompts', 'tg.jsonl');
    prompts = readFileSync(promptFile, 'utf8').trim().split('\n').length;
    let run!: Awaited<ReturnType<typeof ok>>;
    viaRun = await bodiesOf(async () => (run = await ok(['run', '--prompts', promptFile, '--model', MODEL, '--base-url', server.url, '--store', join(out, '.state', 'answer', 'store.sqlite'), '--json'])));
    expect(viaRun).toHaveLength(prompts);
    for (const body of viaRun) expect(JSON.parse(body)).toMatchObject({ model: MODEL, temperature: REQUEST_DEFAULTS.temperature, max_tokens: REQUEST_DEFAULTS.max_tokens });
    const settings = JSON.parse(run.stdout).settings;
    expect(settings).toMatchObject({ answerer: 'openai', model: MODEL, endpoint_model: MODEL, ...REQUEST_DEFAULTS });

    // The pipeline on the same prompts and model: nothing is sent, every answer comes from the store.
    const pipeline = whatsupPipeline();
    let second!: Awaited<ReturnType<typeof ok>>;
    expect(await bodiesOf(async () => (second = await ok(['pipeline', 'run', pipeline])))).toEqual([]);
    expect(second.stderr).toContain(`${MODEL}: ${prompts} answers taken from the run store, asked by an earlier run (\`gsr pipeline run --force\` asks again)`);
    const responses = readFileSync(join(out, 'answer', MODEL, 'responses.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(responses).toHaveLength(prompts);
    expect(responses.every((r) => r.status === 'ok' && r.output.startsWith(fakeAnswer('')))).toBe(true);
    // The settings the answers were asked under are recorded beside them and beside their scores, as the store and gsr run have them.
    for (const stage of ['answer', 'score']) expect(JSON.parse(readFileSync(join(out, stage, MODEL, 'settings.json'), 'utf8'))).toEqual({ id: responses[0].settings, settings });

    // --force starts over: the stored answers are dropped and every prompt is asked again, as gsr run asked it.
    let forced!: Awaited<ReturnType<typeof ok>>;
    expect(await bodiesOf(async () => (forced = await ok(['pipeline', 'run', pipeline, '--force'])))).toEqual(viaRun);
    expect(forced.stderr).toContain(`${MODEL}: --force: ${prompts} stored answers dropped; asking again`);
    expect(forced.stderr).not.toContain('taken from the run store');
  }, scaled(180_000));

  it('a plug-in pipeline and gsr run --benchmark send the same bodies', async () => {
    const plugin = file('plugin', `name: plugin
out: ${join(work, 'plugin')}
benchmark: { name: whatsup, root: ${join(out, 'dataset')}, prompts: { task: tg } }
models:
  - { name: ${MODEL}, kind: openai, base_url: ${server.url}, concurrency: 2 }
`);
    expect(await bodiesOf(() => ok(['pipeline', 'run', plugin]))).toEqual(viaRun);
    const promptFile = join(work, 'plugin', 'prompts', 'prompts.jsonl');
    expect(await bodiesOf(() => ok(['run', '--benchmark', 'whatsup', '--items', join(out, 'dataset'), '--prompts', promptFile, '--model', MODEL, '--base-url', server.url, '--store', join(work, 'bench.sqlite')]))).toEqual(viaRun);
  }, scaled(180_000));

  it.skipIf(redisUnavailable() !== null)('a queue worker sends the same bodies', async () => {
    const redis = await startRedis();
    const { serveQueue, promptProcessor } = await import('../../src/queue/index.js');
    const stop = new AbortController();
    const worker = serveQueue({ url: redis.url, kind: 'run', concurrency: 2, pollMs: 100, signal: stop.signal }, (run) => promptProcessor(run));
    try {
      const promptFile = join(out, 'prompts', 'tg.jsonl');
      expect(await bodiesOf(() => ok(['run', '--prompts', promptFile, '--model', MODEL, '--base-url', server.url, '--store', join(work, 'queue.sqlite'), '--queue', redis.url]))).toEqual(viaRun);
    } finally {
      stop.abort();
      await worker;
      await redis.stop();
    }
  }, scaled(180_000));
});
