import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answerers, RunStore, runPrompts, type EndpointOption } from '../../src/mllm/index.js';
import { startFakeServer, type FakeServer } from './fake-server.js';
import { writePrompts } from './prompt-fixtures.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function runOver(urls: string[], n: number, endpoints?: EndpointOption[], concurrency = 4) {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-balance-'));
  const { path } = writePrompts(dir, n);
  const store = RunStore.open(join(dir, 'runs.sqlite'));
  // Through the registry, as `gsr run --base-url A --base-url B` (or a pipeline's base_url list) builds it.
  const answerer = await answerers.get('openai')({ model: 'm1', baseUrl: urls[0], baseUrls: urls, endpoints, temperature: 0, maxTokens: 16 });
  try {
    return await runPrompts({
      prompts: path, store, answerer, settings: { answerer: 'openai', model: 'm1' }, concurrency, timeoutMs: 5000,
      retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
    });
  } finally {
    await answerer.close?.();
    store.close();
  }
}

/** A URL on which nothing listens: a server started and closed again. */
async function deadUrl(): Promise<string> {
  const s = await startFakeServer();
  await s.close();
  return s.url;
}

describe('several endpoints for one model', () => {
  it('spreads the prompts over live endpoints', async () => {
    const a = await startFakeServer({ latencyMs: 5 });
    const b = await startFakeServer({ latencyMs: 5 });
    servers.push(a, b);
    const s = await runOver([a.url, b.url], 80);
    expect(s).toMatchObject({ ok: 80, failed: 0, requests: 80 });
    expect(a.totalRequests() + b.totalRequests()).toBe(80);
    expect(a.totalRequests()).toBeGreaterThanOrEqual(20);
    expect(b.totalRequests()).toBeGreaterThanOrEqual(20);
  });

  it('takes a dead endpoint out of rotation: every prompt is answered by the live one, after a few probes', async () => {
    const live = await startFakeServer({ latencyMs: 5 });
    servers.push(live);
    const s = await runOver([await deadUrl(), live.url], 80);
    expect(s).toMatchObject({ ok: 80, failed: 0 });
    expect(live.totalRequests()).toBe(80);
    // Each request to the dead endpoint is one retried attempt; its cool-down keeps them few.
    const wasted = s.requests - 80;
    expect(wasted).toBeGreaterThanOrEqual(1);
    expect(wasted).toBeLessThanOrEqual(8);
  });

  it('fails cleanly when every endpoint is dead (retryable, then given up)', async () => {
    const s = await runOver([await deadUrl(), await deadUrl()], 2);
    expect(s).toMatchObject({ ok: 0, failed: 2 });
    expect(Object.keys(s.failures)[0]).toMatch(/^connection error/);
  });

  it('keeps each endpoint under its own concurrency, whatever the run allows', async () => {
    const a = await startFakeServer({ latencyMs: 20 });
    const b = await startFakeServer({ latencyMs: 20 });
    servers.push(a, b);
    const s = await runOver([], 60, [{ url: a.url, concurrency: 1 }, { url: b.url, concurrency: 3 }], 16);
    expect(s).toMatchObject({ ok: 60, failed: 0, requests: 60 });
    expect(a.maxInFlight()).toBe(1);
    expect(b.maxInFlight()).toBe(3);
    expect(b.totalRequests()).toBeGreaterThan(a.totalRequests());
  });

  it('spaces the requests of a rate-limited endpoint', async () => {
    const a = await startFakeServer();
    servers.push(a);
    const started = Date.now();
    const s = await runOver([], 11, [{ url: a.url, rateLimit: 50 }], 8);
    expect(s).toMatchObject({ ok: 11, requests: 11 });
    // 11 starts 20 ms apart: the last at 200 ms at the earliest.
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });
});
