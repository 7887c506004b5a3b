import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiAnswerer, RunStore, runPrompts } from '../../src/mllm/index.js';
import { startFakeServer, type FakeServer } from './fake-server.js';
import { writePrompts } from './prompt-fixtures.js';
import { spawnCli } from './spawn.js';
import { scaled } from '../helpers/cli.js';

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-outcomes-'));

describe('run outcomes', () => {
  it('a response body with invalid UTF-8 is stored ok, flagged on its record', async () => {
    const dir = tmp();
    const server = await startFakeServer({ fault: (text) => (text.startsWith('prompt #1:') ? 'invalid-utf8' : 'ok') });
    servers.push(server);
    const { path } = writePrompts(dir, 3);
    const store = RunStore.open(join(dir, 'runs.sqlite'));
    try {
      await runPrompts({ prompts: path, store, answerer: createOpenAiAnswerer({ model: 'm1', baseUrl: server.url }), settings: { answerer: 'openai', model: 'm1' } });
      const byKey = new Map([...store.responses({ model: 'm1' })].map((r) => [r.key, r]));
      const bad = byKey.get('key-000001')!;
      expect(bad.status).toBe('ok');
      expect(bad.output).toContain('\uFFFD');
      expect(bad.error).toMatch(/^warning: the response body was not valid UTF-8/);
      expect(byKey.get('key-000000')!.error).toBeNull();
    } finally {
      store.close();
    }
  });

  it('gsr run exits 3 with the counts when any prompt failed, 0 when all are ok', async () => {
    const dir = tmp();
    const server = await startFakeServer({ fault: (text) => (text.startsWith('prompt #2:') || text.startsWith('prompt #3:') ? '400' : 'ok') });
    servers.push(server);
    const { path } = writePrompts(dir, 5);
    const args = ['run', '--prompts', path, '--model', 'm1', '--base-url', server.url, '--store', join(dir, 'runs.sqlite')];
    const failed = await spawnCli(args).done;
    expect(failed.code).toBe(3);
    expect(failed.stderr).toContain('2 of 5 prompts failed (ok 3, already done 0); exit code 3');
    const clean = await spawnCli(['run', '--prompts', writePrompts(dir, 2, 'two.jsonl').path, '--model', 'm1', '--base-url', server.url, '--store', join(dir, 'ok.sqlite')]).done;
    expect(clean.code).toBe(0);
  }, scaled(150_000));
});
