/**
 * A pipeline with `queue:` sends its annotate stage and its endpoint model to queue workers, and its
 * outputs equal those of the same pipeline run without it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipeline/index.js';
import { FIXTURE_ANNOTATOR, writeFixtureModels } from '../helpers/annotator-fixtures.js';
import { redisUnavailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';
import { gsr, killAll } from './procs.js';
import { scaled } from '../helpers/cli.js';

const skip = redisUnavailable();

const pipeline = (out: string, models: string, baseUrl: string, queue: string) => `name: q
out: ${out}
dataset: { synthetic: { count: 6, seed: 2 } }
annotations:
  source: models
  models: { detector: ${FIXTURE_ANNOTATOR.detector}, segmenter: ${FIXTURE_ANNOTATOR.segmenter}, depth: ${FIXTURE_ANNOTATOR.depth}, device: cpu, models_dir: ${models} }
prompts: { tasks: [tg] }
models:
  - { name: endpoint, kind: openai, base_url: ${baseUrl}, model: m1, rate_limit: 50 }
  - { name: geometric, kind: geometric }
${queue}stop_after: answer
`;

/**
 * Responses without what differs between any two runs: times, latency, and the settings id (for the
 * geometric baseline it holds the annotation file's sha256, whose info.date_created differs).
 */
function responses(out: string, model: string): unknown[] {
  return readFileSync(join(out, 'answer', model, 'responses.jsonl'), 'utf8').trim().split('\n').map((l) => {
    const { latency_ms: _l, started_at: _s, finished_at: _f, settings: _i, ...rest } = JSON.parse(l) as Record<string, unknown>;
    return rest;
  });
}

function coco(out: string): unknown {
  const c = JSON.parse(readFileSync(join(out, 'annotate', 'annotations.json'), 'utf8')) as { info: Record<string, unknown> };
  const { date_created: _d, ...info } = c.info;
  return { ...c, info };
}

describe.skipIf(skip !== null)('a pipeline with queue:', () => {
  let redis: TestRedis;
  let server: FakeServer;
  beforeAll(async () => {
    redis = await startRedis();
    server = await startFakeServer();
  });
  afterAll(async () => {
    await killAll();
    await server?.close();
    await redis?.stop();
  });

  it('annotates and asks through the workers, with the outputs of a local run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-qp-'));
    const models = join(dir, 'models');
    writeFixtureModels(models);
    const localFile = join(dir, 'local.yaml');
    writeFileSync(localFile, pipeline(join(dir, 'local'), models, server.url, ''));
    await runPipeline(localFile, { log: () => {} });
    const asked = server.totalRequests();
    expect(asked).toBeGreaterThan(0);

    const workers = [
      gsr(['worker', 'annotate', '--queue', redis.url, '--models-dir', models, '--device', 'cpu']),
      gsr(['worker', 'run', '--queue', redis.url]),
    ];
    const queuedFile = join(dir, 'queued.yaml');
    writeFileSync(queuedFile, pipeline(join(dir, 'queued'), models, server.url, `queue: { url: "${redis.url}", shard_size: 2 }\n`));
    await runPipeline(queuedFile, { log: () => {} });
    expect(server.totalRequests()).toBe(2 * asked);
    expect(coco(join(dir, 'queued'))).toEqual(coco(join(dir, 'local')));
    expect(responses(join(dir, 'queued'), 'endpoint')).toEqual(responses(join(dir, 'local'), 'endpoint'));
    expect(responses(join(dir, 'queued'), 'geometric')).toEqual(responses(join(dir, 'local'), 'geometric'));
    // Both workers did the work: each served a run.
    for (const w of workers) w.child.kill('SIGTERM');
    for (const w of workers) expect(await w.exited).toBe(0);
    expect(workers[0].output()).toMatch(/stopped after [1-9]\d* jobs/);
    expect(workers[1].output()).toMatch(/stopped after [1-9]\d* jobs/);
  }, scaled(300_000));
});
