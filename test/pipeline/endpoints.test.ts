/**
 * A model's base_url in a pipeline: one endpoint root, or a list of endpoints (each a URL or
 * {url, concurrency, rate_limit}) served by the balancer, as `gsr run --base-url A --base-url B`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { endpointsOf, endpointUrls } from '../../src/formats/pipeline.js';
import { parsePipeline } from '../../src/formats/pipeline-file.js';
import { runBenchPipeline } from '../../src/pipeline/bench.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';

const servers: FakeServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

const pipeline = (baseUrl: string) => `name: t
out: out/t
dataset:
  synthetic:
    count: 8
models:
  - name: m
    kind: openai
    base_url: ${baseUrl}
`;

describe('base_url: a string or a list of endpoints', () => {
  it('reads a string, a list of URLs, and entries with their own limits; an unknown key names its line', () => {
    const one = parsePipeline(pipeline('http://a/v1'), 'p.yaml', {}).config.models[0].base_url;
    expect(endpointsOf(one)).toEqual([{ url: 'http://a/v1' }]);
    expect(endpointUrls(one)).toBe('http://a/v1');
    const list = parsePipeline(pipeline('["http://a/v1", {url: "http://b/v1", concurrency: 2, rate_limit: 5}]'), 'p.yaml', {}).config.models[0].base_url;
    expect(endpointsOf(list)).toEqual([{ url: 'http://a/v1' }, { url: 'http://b/v1', concurrency: 2, rateLimit: 5 }]);
    expect(endpointUrls(list)).toEqual(['http://a/v1', 'http://b/v1']);
    expect(() => parsePipeline(pipeline('[{url: "http://b/v1", colour: red}]'), 'p.yaml', {})).toThrow(/^p\.yaml:9:37: unknown key "colour" in models\[0\]\.base_url\[0\]$/);
    expect(() => parsePipeline(pipeline('[]'), 'p.yaml', {})).toThrow(/models\[0\]\.base_url/);
    // ${VAR} fills list entries too.
    const env = parsePipeline(pipeline('["${A}", "${B}"]'), 'p.yaml', { A: 'http://a/v1', B: 'http://b/v1' }).config.models[0].base_url;
    expect(endpointUrls(env)).toEqual(['http://a/v1', 'http://b/v1']);
  });

  it('a benchmark pipeline spreads one model over its endpoints, each under its limit; limits do not make the answers stale', async () => {
    const a = await startFakeServer({ latencyMs: 15 });
    const b = await startFakeServer({ latencyMs: 15 });
    servers.push(a, b);
    const dir = mkdtempSync(join(tmpdir(), 'gsr-endpoints-'));
    const file = join(dir, 'p.yaml');
    const write = (concurrency: number) =>
      writeFileSync(file, stringify({
        name: 'endpoints', out: join(dir, 'out'),
        benchmark: { name: 'vsp', generate: { seed: 1, items: 2, examples: 2 }, prompts: { tasks: ['maze-t1', 'maze-t3'] } },
        models: [{ name: 'm', kind: 'openai', concurrency: 8, base_url: [{ url: a.url, concurrency }, b.url] }],
      }));
    write(1);
    const first = await runBenchPipeline(file, { log: () => {} });
    expect(first.stages.map((s) => s.status)).toEqual(['ran', 'ran', 'ran', 'ran', 'ran']);
    const prompts = readFileSync(join(dir, 'out', 'prompts', 'prompts.jsonl'), 'utf8').trim().split('\n').length;
    expect(a.totalRequests() + b.totalRequests()).toBe(prompts);
    expect(a.totalRequests()).toBeGreaterThan(0);
    expect(a.maxInFlight()).toBe(1);
    expect(b.maxInFlight()).toBeGreaterThan(1);
    write(3);
    const again = await runBenchPipeline(file, { log: () => {} });
    expect(again.stages.map((s) => s.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
  }, 60_000);
});
