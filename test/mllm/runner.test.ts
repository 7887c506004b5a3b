import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiAnswerer, exportResponses, RunStore, runPrompts, type Answerer, type RunOptions } from '../../src/mllm/index.js';
import { LOCAL_CONCURRENCY } from '../../src/mllm/runner.js';
import { fakeAnswer, startFakeServer, type Fault, type FakeServer } from './fake-server.js';
import { IMAGE_BYTES, seededRandom, writePrompts } from './prompt-fixtures.js';
import { scaled } from '../helpers/cli.js';

const servers: FakeServer[] = [];
const stores: RunStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  for (const s of servers.splice(0)) await s.close();
});

async function setup(n: number, serverOpts: Parameters<typeof startFakeServer>[0] = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-run-'));
  const server = await startFakeServer(serverOpts);
  servers.push(server);
  const store = RunStore.open(join(dir, 'runs.sqlite'));
  stores.push(store);
  const { path, prompts } = writePrompts(dir, n);
  const run = (extra: Partial<RunOptions> = {}) =>
    runPrompts({
      prompts: path, store, answerer: createOpenAiAnswerer({ model: 'm1', baseUrl: server.url, temperature: 0, maxTokens: 16 }),
      settings: { answerer: 'openai', model: 'm1', temperature: 0, max_tokens: 16 }, concurrency: 4, timeoutMs: 5_000,
      retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 }, ...extra,
    });
  return { dir, server, store, prompts, path, run };
}

describe('runner against a real local HTTP server', () => {
  it('answers every prompt, sends the image as a base64 data URL, and resumes without re-asking', async () => {
    const { server, store, prompts, run, dir } = await setup(12);
    const s = await run();
    expect(s).toMatchObject({ prompts: 12, ok: 12, failed: 0, cached: 0, requests: 12, interrupted: false });
    const body = server.bodies[0] as { model: string; temperature: number; max_tokens: number; messages: Array<{ content: Array<{ type: string; image_url?: { url: string } }> }> };
    expect(body).toMatchObject({ model: 'm1', temperature: 0, max_tokens: 16 });
    const url = body.messages[0].content.find((c) => c.type === 'image_url')!.image_url!.url;
    expect(url).toBe(`data:image/png;base64,${IMAGE_BYTES.toString('base64')}`);
    const out = join(dir, 'responses.jsonl');
    await exportResponses(store, { out, model: 'm1' });
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(12);
    const byKey = new Map(lines.map((l) => [l.key, l]));
    for (const p of prompts) {
      expect(byKey.get(p.key)).toMatchObject({ model: 'm1', status: 'ok', output: fakeAnswer(p.text), error: null, attempts: 1, item: p.item, permutation: p.permutation, rotation: p.rotation });
      expect(byKey.get(p.key).latency_ms).toBeGreaterThanOrEqual(0);
    }
    const again = await run();
    expect(again).toMatchObject({ prompts: 12, ok: 0, cached: 12, requests: 0 });
    expect(server.totalRequests()).toBe(12);
    // Other generation settings are another response set.
    const hot = await run({ settings: { answerer: 'openai', model: 'm1', temperature: 0.7, max_tokens: 16 } });
    expect(hot.ok).toBe(12);
  });

  it.each<[Fault, Partial<RunOptions>, Parameters<typeof startFakeServer>[0]]>([
    ['500', {}, {}],
    ['429', {}, {}],
    ['hang', { timeoutMs: 500 }, {}],
    ['malformed', {}, {}],
    ['empty', {}, {}],
    ['reset', {}, {}],
    ['trickle', { timeoutMs: 500 }, { trickleMs: 3_000 }],
  ])('retries a %s and then gets the answer', async (fault, runOpts, serverOpts) => {
    const { server, run, store } = await setup(4, { ...serverOpts, fault: (_t, before) => (before === 0 ? fault : 'ok') });
    const s = await run(runOpts);
    expect(s).toMatchObject({ ok: 4, failed: 0, requests: 8 });
    for (const n of server.requests.values()) expect(n).toBe(2);
    expect([...store.responses()].every((r) => r.status === 'ok' && r.attempts === 2)).toBe(true);
  });

  it('records an unreachable endpoint as a connection error after the retry budget', async () => {
    const { server, run, store } = await setup(2);
    const url = server.url;
    await server.close();
    servers.splice(0);
    const s = await run({ answerer: createOpenAiAnswerer({ model: 'm1', baseUrl: url }), retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 2 } });
    expect(s).toMatchObject({ ok: 0, failed: 2, requests: 4, failures: { 'connection error': 2 } });
    expect([...store.responses()][0].error).toBe('connection error: ECONNREFUSED (gave up after 2 attempts)');
  });

  it('reads a slow trickle that ends within the timeout', async () => {
    const { run } = await setup(2, { fault: () => 'trickle', trickleMs: 200 });
    expect(await run({ timeoutMs: 5_000 })).toMatchObject({ ok: 2, requests: 2 });
  });

  it('does not retry other 4xx or a reply without content, and records why', async () => {
    const { server, run, store } = await setup(2, { fault: (t) => (t.startsWith('prompt #0') ? '400' : 'null-content') });
    const s = await run();
    expect(s).toMatchObject({ ok: 0, failed: 2, requests: 2 });
    expect(server.totalRequests()).toBe(2);
    const rows = [...store.responses()].sort((a, b) => a.key.localeCompare(b.key));
    expect(rows[0]).toMatchObject({ status: 'failed', attempts: 1, output: '', error: 'HTTP 400: {"error":"bad request"}' });
    expect(rows[1].error).toMatch(/no message content \(finish_reason content_filter\)/);
  });

  it('gives up after the retry budget with the reason, and asks failed prompts again on the next run', async () => {
    let healthy = false;
    const { server, run, store } = await setup(3, { fault: () => (healthy ? 'ok' : '500') });
    const s = await run({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    expect(s).toMatchObject({ ok: 0, failed: 3, requests: 9, failures: { 'HTTP 500': 3 } });
    expect([...store.responses()][0].error).toBe('HTTP 500: {"error":"boom"} (gave up after 3 attempts)');
    expect(await run({ retryFailed: false })).toMatchObject({ cached: 3, requests: 0 });
    healthy = true;
    expect(await run()).toMatchObject({ ok: 3, requests: 3 });
    expect(server.totalRequests()).toBe(12);
    expect([...store.responses()].map((r) => [r.status, r.attempts])).toEqual([['ok', 4], ['ok', 4], ['ok', 4]]);
  });

  it("honours retry-after", async () => {
    const { server, run } = await setup(1, { fault: (_t, before) => (before === 0 ? '429' : 'ok'), retryAfter: '1' });
    expect(await run({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 } })).toMatchObject({ ok: 1 });
    const [t0, t1] = [...server.times.values()][0];
    expect(t1 - t0).toBeGreaterThanOrEqual(950);
  });

  it('keeps concurrency bounded', async () => {
    const { server, run } = await setup(40, { latencyMs: 30 });
    expect(await run({ concurrency: 5 })).toMatchObject({ ok: 40 });
    expect(server.maxInFlight()).toBe(5);
  });

  it('asks a local answerer (the baselines) at least LOCAL_CONCURRENCY prompts at a time, whatever concurrency says', async () => {
    const { run } = await setup(100);
    const counting = (local: boolean) => {
      const seen = { inFlight: 0, max: 0 };
      const answerer: Answerer = {
        name: 'counting',
        local,
        async answer() {
          seen.max = Math.max(seen.max, ++seen.inFlight);
          await new Promise((r) => setImmediate(r));
          seen.inFlight--;
          return 'A';
        },
      };
      return { answerer, seen };
    };
    const local = counting(true);
    expect(await run({ answerer: local.answerer, settings: { answerer: 'counting', model: 'local' }, concurrency: 2 })).toMatchObject({ ok: 100 });
    expect(local.seen.max).toBe(LOCAL_CONCURRENCY);
    const remote = counting(false);
    expect(await run({ answerer: remote.answerer, settings: { answerer: 'counting', model: 'remote' }, concurrency: 2 })).toMatchObject({ ok: 100 });
    expect(remote.seen.max).toBe(2);
  });

  it('sends the API key from the named env var only, and never stores or reports it', async () => {
    const secret = 'sk-test-SECRET-1234567890';
    const { server, run, dir, store } = await setup(2, { fault: (t) => (t.startsWith('prompt #0') ? 'ok' : '400') });
    const answerer = createOpenAiAnswerer({ model: 'm1', baseUrl: server.url, apiKeyEnv: 'MY_KEY', env: { MY_KEY: secret } });
    await run({ answerer });
    expect([...server.authorization]).toEqual([`Bearer ${secret}`]);
    store.close();
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(secret)).toBe(false);
    expect(() => createOpenAiAnswerer({ model: 'm1', baseUrl: server.url, apiKeyEnv: 'MY_KEY', env: {} })).toThrow(/environment variable MY_KEY .* is not set/);
  });

  it('stops on abort (Ctrl-C), keeps what is committed, releases claims, and the next run finishes', async () => {
    const { server, run, store } = await setup(40, { latencyMs: 20 });
    const controller = new AbortController();
    let seen = 0;
    const s = await run({ concurrency: 4, signal: controller.signal, onResult: () => ++seen === 10 && controller.abort() });
    expect(s.interrupted).toBe(true);
    expect(s.ok).toBeGreaterThanOrEqual(10);
    expect(s.ok + s.not_sent).toBe(40);
    const rest = await run({ concurrency: 4 });
    expect(rest).toMatchObject({ cached: s.ok, ok: 40 - s.ok, busy: 0 });
    expect([...store.responses()].filter((r) => r.status === 'ok')).toHaveLength(40);
    expect(server.answered.size).toBe(40);
  });

  it('sends at most --limit prompts', async () => {
    const { run } = await setup(10);
    expect(await run({ limit: 3 })).toMatchObject({ ok: 3, not_sent: 7 });
    expect(await run()).toMatchObject({ ok: 7, cached: 3 });
  });

  it('records invalid prompt lines with file and line, and runs the rest', async () => {
    const { path, run } = await setup(3);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, '{"key": "k", "item": 3}\n');
    const s = await run();
    expect(s).toMatchObject({ ok: 3, invalid: 1 });
    expect(s.invalid_lines[0]).toMatch(/prompts\.jsonl:record 4: item: /);
  });

  it('fault mix (20% 500 / 10% 429 / 5% hang / 5% malformed), 400 prompts at concurrency 16 (bench runs 2,000)', async () => {
    const rand = seededRandom(42);
    const fault = (): Fault => {
      const r = rand();
      return r < 0.2 ? '500' : r < 0.3 ? '429' : r < 0.35 ? 'hang' : r < 0.4 ? 'malformed' : 'ok';
    };
    const { server, run, store } = await setup(400, { fault });
    const s = await run({ concurrency: 16, timeoutMs: 1_000, retry: { maxRetries: 5, baseDelayMs: 2, maxDelayMs: 20 } });
    expect(s.ok + s.failed).toBe(400);
    const rows = [...store.responses()];
    expect(rows).toHaveLength(400);
    for (const r of rows) {
      const text = `prompt #${Number(r.key.slice(4))}: which caption?`;
      if (r.status === 'ok') expect(r.output).toBe(fakeAnswer(text));
      else expect(r.error).toMatch(/gave up after 6 attempts/);
      // No request outside the retry loop (an attempt aborted before it reached the server is not seen there).
      expect(server.requests.get(text) ?? 0).toBeLessThanOrEqual(r.attempts);
      if (r.status === 'ok') expect(server.requests.get(text)).toBeGreaterThanOrEqual(1);
    }
    expect(server.totalRequests()).toBeLessThanOrEqual(s.requests);
    // Re-running asks only what failed: nothing with a committed answer is sent again.
    const before = new Map(server.requests);
    const again = await run({ concurrency: 16, timeoutMs: 1_000, retry: { maxRetries: 5, baseDelayMs: 2, maxDelayMs: 20 } });
    expect(again.cached).toBe(s.ok);
    for (const r of rows) {
      const text = `prompt #${Number(r.key.slice(4))}: which caption?`;
      if (r.status === 'ok') expect(server.requests.get(text)).toBe(before.get(text));
    }
  }, scaled(150_000));
});
