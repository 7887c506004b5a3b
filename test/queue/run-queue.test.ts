/**
 * `gsr run --queue` against a real redis-server with three worker processes: every prompt answered
 * exactly once in the store (one ok row per key, the fake model's answer), a worker SIGKILLed mid-run
 * notwithstanding, and a global rate limit honoured across the workers as the server's log shows it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../src/mllm/index.js';
import { fakeAnswer, startFakeServer, type FakeServer } from '../mllm/fake-server.js';
import { writePrompts } from '../mllm/prompt-fixtures.js';
import { redisUnavailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { gsr, killAll, waitFor } from './procs.js';

const skip = redisUnavailable();
/** GSR_QUEUE_ACCEPTANCE=1 runs the acceptance size (20,000 prompts); npm test runs 2,000. */
const PROMPTS = process.env.GSR_QUEUE_ACCEPTANCE === '1' ? 20_000 : 2000;

/** Requests per second over the run (first to last arrival) and the most in any `window` ms. */
export function rateOf(times: number[], windowMs: number): { overall: number; peak: number } {
  const t = [...times].sort((a, b) => a - b);
  const overall = ((t.length - 1) * 1000) / (t[t.length - 1] - t[0]);
  let peak = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j] - t[i] >= windowMs) i++;
    peak = Math.max(peak, j - i + 1);
  }
  return { overall, peak: (peak * 1000) / windowMs };
}

describe.skipIf(skip !== null)('prompts on the job queue', () => {
  let redis: TestRedis;
  let server: FakeServer;
  beforeAll(async () => {
    redis = await startRedis();
    server = await startFakeServer({ latencyMs: 5 });
  });
  afterAll(async () => {
    await killAll();
    await server?.close();
    await redis?.stop();
  });

  it(`answers ${PROMPTS} prompts exactly once through 3 workers at a global 100 requests/s, one worker killed`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-qr-'));
    const n = PROMPTS;
    const rate = 100;
    const { path, prompts } = writePrompts(dir, n);
    const store = join(dir, 'runs.sqlite');
    const workerArgs = ['worker', 'run', '--queue', redis.url, '--lock-ms', '2000', '--concurrency', '16'];
    const workers = [gsr(workerArgs), gsr(workerArgs), gsr(workerArgs)];
    const submitter = gsr(['run', '--prompts', path, '--model', 'm1', '--base-url', server.url, '--store', store, '--queue', redis.url, '--rate-limit', String(rate), '--concurrency', '32', '--json']);
    await waitFor('the first answers', () => server.totalRequests() >= n / 5, 600_000);
    workers[1].child.kill('SIGKILL');
    expect(await submitter.exited, submitter.output()).toBe(0);
    const summary = JSON.parse(submitter.output().slice(submitter.output().indexOf('{\n')));
    expect(summary).toMatchObject({ prompts: n, ok: n, failed: 0, cached: 0 });

    const s = RunStore.open(store, { create: false });
    const rows = [...s.responses({ model: 'm1' })];
    s.close();
    expect(rows).toHaveLength(n);
    const byKey = new Map(rows.map((r) => [r.key, r]));
    for (const p of prompts) expect(byKey.get(p.key)).toMatchObject({ status: 'ok', output: fakeAnswer(p.text), item: p.item, rotation: p.rotation });
    // Every prompt reached the server; only the killed worker's jobs in hand may have been sent twice.
    expect(server.answered.size).toBe(n);
    expect(server.totalRequests() - n).toBeLessThanOrEqual(16);

    const times = [...server.times.values()].flat();
    const measured = rateOf(times, 5000);
    console.log(`queue rate limit ${rate}/s: overall ${measured.overall.toFixed(1)}/s, busiest 5 s ${measured.peak.toFixed(1)}/s`);
    expect(measured.peak).toBeLessThanOrEqual(rate * 1.05);
    expect(measured.overall).toBeLessThanOrEqual(rate * 1.05);
    // The busiest stretch runs at the limit, so the limit (not the machine) is what held the rate.
    expect(measured.peak).toBeGreaterThanOrEqual(rate * 0.9);

    for (const w of [workers[0], workers[2]]) w.child.kill('SIGTERM');
    for (const w of [workers[0], workers[2]]) expect(await w.exited).toBe(0);
  }, PROMPTS > 5000 ? 3_600_000 : 480_000);
});
