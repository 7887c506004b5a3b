import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AnswerError, classifyError, isRetryableStatus, parseRetryAfter, retryDelayMs, RunStore, settingsId, DEFAULT_RETRY_POLICY } from '../../src/mllm/index.js';

describe('retry rules', () => {
  it('retry 408, 409, 429 and 5xx only', () => {
    expect([408, 409, 429, 500, 502, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });
  it('read retry-after-ms, retry-after seconds and HTTP dates', () => {
    const h = (m: Record<string, string>) => (n: string) => m[n] ?? null;
    expect(parseRetryAfter(h({ 'retry-after': '2' }))).toBe(2000);
    expect(parseRetryAfter(h({ 'retry-after': '0.5', 'retry-after-ms': '120' }))).toBe(120);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(h({}))).toBeUndefined();
  });
  it('back off exponentially with jitter under the cap, and prefer retry-after (capped)', () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
    expect(retryDelayMs(1, p, undefined, () => 0)).toBe(50);
    expect(retryDelayMs(1, p, undefined, () => 1)).toBe(100);
    expect(retryDelayMs(3, p, undefined, () => 1)).toBe(400);
    expect(retryDelayMs(10, p, undefined, () => 1)).toBe(1_000);
    expect(retryDelayMs(10, p, undefined, () => 0)).toBe(500);
    expect(retryDelayMs(1, p, 2_000)).toBe(2_000);
    expect(retryDelayMs(1, p, 60_000)).toBe(5_000);
  });
  it('classify answerer errors', () => {
    expect(classifyError(new AnswerError('HTTP 503', true, 503, 10))).toEqual({ retryable: true, reason: 'HTTP 503', retryAfterMs: 10 });
    expect(classifyError(new TypeError('fetch failed'))).toEqual({ retryable: false, reason: 'fetch failed' });
    expect(classifyError('thrown text')).toEqual({ retryable: false, reason: 'thrown text' });
    expect(classifyError(new Error('geometric: no option'))).toEqual({ retryable: false, reason: 'geometric: no option' });
  });
});

describe('run store', () => {
  const row = (key: string, sid: string, status: 'ok' | 'failed', output = 'x') => ({
    key, model: 'm', settings: sid, status, output, error: status === 'failed' ? 'boom' : null, attempts: 1, latency_ms: 5, started_at: null, finished_at: null,
    item: 'i', split: null, task: null, permutation: [1, 0], role: null, rotation: 1, source: 'run' as const,
  });

  it('keys settings by content and never overwrites an ok response', () => {
    const store = RunStore.open(join(mkdtempSync(join(tmpdir(), 'gsr-store-')), 's.sqlite'));
    expect(settingsId({ answerer: 'openai', model: 'm', temperature: 0 })).toBe(settingsId({ temperature: 0, model: 'm', answerer: 'openai' }));
    const sid = store.registerSettings({ answerer: 'openai', model: 'm' });
    expect(store.commit(row('a', sid, 'failed'))).toBe(true);
    expect(store.commit(row('a', sid, 'ok', 'first'))).toBe(true);
    expect(store.commit(row('a', sid, 'ok', 'second'))).toBe(false);
    const [a] = [...store.responses()];
    expect(a).toMatchObject({ status: 'ok', output: 'first', attempts: 2, permutation: [1, 0] });
    expect(store.doneKeys('m', sid)).toEqual(new Set(['a']));
    expect(store.commit(row('a', sid, 'ok', 'replaced'), true)).toBe(true);
    store.close();
  });

  it('claims: done when answered, busy when a live runner holds it, taken over when its process is gone', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gsr-store-')), 's.sqlite');
    const a = RunStore.open(path);
    const b = RunStore.open(path);
    const sid = a.registerSettings({ answerer: 'openai', model: 'm' });
    expect(a.claim('k1', 'm', sid, 60_000)).toBe('claimed');
    expect(b.claim('k1', 'm', sid, 60_000)).toBe('busy');
    expect(a.claim('k1', 'm', sid, 60_000)).toBe('claimed'); // own claim
    a.commit(row('k1', sid, 'ok'));
    expect(b.claim('k1', 'm', sid, 60_000)).toBe('done');
    // A claim left by a dead process (as after kill -9) is taken over.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const db = new Database(path);
    db.prepare(`INSERT INTO claims VALUES ('k2', 'm', ?, 'ghost', ?, ?, ?)`).run(sid, (a as unknown as { host: string }).host, Number(dead.stdout), Date.now() + 60_000);
    db.prepare(`INSERT INTO claims VALUES ('k3', 'm', ?, 'remote', 'other-host', 1, ?)`).run(sid, Date.now() - 1);
    db.close();
    expect(b.claim('k2', 'm', sid, 60_000)).toBe('claimed');
    expect(b.claim('k3', 'm', sid, 60_000)).toBe('claimed'); // lease ran out
    a.close();
    b.close();
  });
});
