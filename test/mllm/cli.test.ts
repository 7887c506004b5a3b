import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiAnswerer, RunStore, runPrompts } from '../../src/mllm/index.js';
import { fakeAnswer, startFakeServer, type FakeServer } from './fake-server.js';
import { writePrompts } from './prompt-fixtures.js';
import { spawnCli, waitFor } from './spawn.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function textOf(key: string): string {
  return `prompt #${Number(key.slice(4))}: which caption?`;
}

function okKeys(storePath: string, model = 'm1'): Set<string> {
  const store = RunStore.open(storePath, { create: false });
  try {
    return new Set([...store.responses({ model })].filter((r) => r.status === 'ok').map((r) => r.key));
  } finally {
    store.close();
  }
}

// Each test spawns the CLI from source (tsx); on a loaded 2-core machine one start can take tens of seconds.
const SPAWN_TEST_TIMEOUT = 150_000;

describe('gsr run (CLI) crash safety', () => {
  it('after kill -9 mid-run, the re-run completes the rest and asks nothing committed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-kill-'));
    const server = await startFakeServer({ latencyMs: 15 });
    servers.push(server);
    const { path, prompts } = writePrompts(dir, 300);
    const store = join(dir, 'runs.sqlite');
    const concurrency = 8;
    const args = ['run', '--prompts', path, '--model', 'm1', '--base-url', server.url, '--store', store, '--concurrency', String(concurrency), '--json'];
    const first = spawnCli(args);
    const killAt = 40 + Math.floor(Math.random() * 160);
    await waitFor(() => server.totalRequests() >= killAt, 110_000);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const committed = okKeys(store);
    const askedAtKill = new Map(server.requests);
    expect(committed.size).toBeGreaterThan(0);
    expect(committed.size).toBeLessThan(300);

    const second = await spawnCli(args).done;
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary.cached).toBe(committed.size);
    expect(summary.ok).toBe(300 - committed.size);
    expect(okKeys(store).size).toBe(300);
    // Nothing committed before the kill was asked again; only requests in flight at the kill were repeated.
    for (const key of committed) expect(server.requests.get(textOf(key))).toBe(askedAtKill.get(textOf(key)));
    const repeated = prompts.filter((p) => (server.requests.get(p.text) ?? 0) > 1);
    expect(repeated.length).toBeLessThanOrEqual(concurrency);
    for (const p of prompts) expect(server.requests.get(p.text)).toBeGreaterThanOrEqual(1);
  }, SPAWN_TEST_TIMEOUT);

  it('two runners on one store never ask the same prompt twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-two-'));
    // The gate holds all answers until 5 requests are open at once: more than one runner's
    // concurrency (4), so both runners are provably working the store at the same time.
    const server = await startFakeServer({ latencyMs: 10, gate: 5 });
    servers.push(server);
    const { path, prompts } = writePrompts(dir, 200);
    const store = join(dir, 'runs.sqlite');
    const args = ['run', '--prompts', path, '--model', 'm1', '--base-url', server.url, '--store', store, '--concurrency', '4', '--json'];
    const [a, b] = await Promise.all([spawnCli(args).done, spawnCli(args).done]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const [sa, sb] = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    expect(sa.ok + sb.ok).toBe(200);
    expect(sa.ok).toBeGreaterThan(0);
    expect(sb.ok).toBeGreaterThan(0);
    expect(sa.failed + sb.failed).toBe(0);
    expect(server.totalRequests()).toBe(200);
    for (const p of prompts) expect(server.requests.get(p.text)).toBe(1);
    expect(okKeys(store).size).toBe(200);
  }, SPAWN_TEST_TIMEOUT);
});

describe('gsr responses export/import (CLI)', () => {
  it('exports one line per prompt and imports another harness\'s predictions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-io-'));
    const server = await startFakeServer({ fault: (t) => (t.startsWith('prompt #3') ? '400' : 'ok') });
    servers.push(server);
    const { path, prompts } = writePrompts(dir, 4);
    const store = join(dir, 'runs.sqlite');
    // The run itself goes through the library here (the CLI run is covered above) to keep spawns few.
    const runStore = RunStore.open(store);
    const summary = await runPrompts({
      prompts: path, store: runStore, answerer: createOpenAiAnswerer({ model: 'm1', baseUrl: server.url }), settings: { answerer: 'openai', model: 'm1' },
    });
    runStore.close();
    expect(summary).toMatchObject({ ok: 3, failed: 1 });

    const foreign = join(dir, 'foreign.jsonl');
    writeFileSync(foreign, [
      JSON.stringify({ key: prompts[0].key, output: 'B' }),
      JSON.stringify({ item: prompts[1].item, rotation: prompts[1].rotation, output: 'C' }),
      JSON.stringify({ key: 'unknown', output: 'D' }),
      '{"output": 5}',
    ].join('\n') + '\n');
    const imp = await spawnCli(['responses', 'import', foreign, '--model', 'other', '--store', store, '--prompts', path, '--json']).done;
    // Records were left out: exit 3, each named on stderr (docs/interop.md).
    expect(imp.code).toBe(3);
    expect(JSON.parse(imp.stdout)).toMatchObject({ records: 4, matched: 2, imported: 2, unmatched: 1, invalid: 1, missing: 2 });
    expect(imp.stderr).toMatch(/foreign\.jsonl:3: unmatched: key unknown is not in/);
    expect(imp.stderr).toMatch(/foreign\.jsonl:4: invalid: output: /);

    const out = join(dir, 'all.jsonl');
    const exp = await spawnCli(['responses', 'export', '--store', store, '--out', out]).done;
    expect(exp.code).toBe(0);
    type Exported = { key: string; model: string; output: string; status: string; item: string; permutation: number };
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Exported);
    expect(lines).toHaveLength(6);
    const m1 = lines.filter((l) => l.model === 'm1');
    expect(m1.map((l) => l.status).sort()).toEqual(['failed', 'ok', 'ok', 'ok']);
    for (const l of m1) {
      expect(Object.keys(l)).toEqual(expect.arrayContaining(['key', 'model', 'output', 'status', 'error', 'attempts', 'latency_ms', 'item', 'permutation']));
      if (l.status === 'ok') expect(l.output).toBe(fakeAnswer(textOf(l.key)));
    }
    // The export is in key order.
    const byKey = (a: [string, ...unknown[]], b: [string, ...unknown[]]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    expect(lines.filter((l) => l.model === 'other').map((l) => [l.key, l.output, l.item, l.permutation])).toEqual(
      ([[prompts[0].key, 'B', prompts[0].item, prompts[0].permutation], [prompts[1].key, 'C', prompts[1].item, prompts[1].permutation]] as Array<[string, ...unknown[]]>).sort(byKey),
    );
  }, SPAWN_TEST_TIMEOUT);

  it('fails in one line on a missing store, unknown answerer, or unset key variable, and never prints the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-err-'));
    const { path } = writePrompts(dir, 1);
    const [noStore, unknown, noKey] = await Promise.all([
      spawnCli(['responses', 'export', '--store', join(dir, 'none.sqlite'), '--out', join(dir, 'o.jsonl')]).done,
      spawnCli(['run', '--prompts', path, '--model', 'm', '--answerer', 'nope', '--store', join(dir, 's.sqlite')]).done,
      spawnCli(['run', '--prompts', path, '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1', '--api-key-env', 'GSR_TEST_UNSET_KEY', '--store', join(dir, 's.sqlite')], { GSR_TEST_UNSET_KEY: '' }).done,
    ]);
    expect(noStore.stderr.trim()).toBe(`gsr: error: run store not found: ${join(dir, 'none.sqlite')}`);
    expect(unknown.stderr.trim()).toMatch(/^gsr: error: option '--answerer <kind>' argument 'nope' is invalid\. Allowed choices are .*openai/);
    expect(unknown.code).toBe(2);
    expect(noKey.stderr.trim()).toBe('gsr: error: environment variable GSR_TEST_UNSET_KEY (named by --api-key-env) is not set');
    for (const r of [noStore, unknown, noKey]) expect(r.code).not.toBe(0);
  }, SPAWN_TEST_TIMEOUT);
});
