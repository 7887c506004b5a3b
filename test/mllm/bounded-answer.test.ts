/**
 * Bounded answers (docs/mllm.md, "Bounded answers"): a loopback endpoint that answers every prompt with
 * 60 MB of text. The reply is read as a stream and cut off at the cap, the answer is a failed one with
 * its own reason (not retried), memory stays flat and the run store stays small.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiAnswerer, RunStore, runPrompts } from '../../src/mllm/index.js';
import { DEFAULT_MAX_ANSWER_BYTES } from '../../src/mllm/http-post.js';
import { writePrompts } from './prompt-fixtures.js';
import { runCliInProcess, scaled } from '../helpers/cli.js';

const HUGE = 60 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 'a');

/** An endpoint whose every answer is `HUGE` bytes of JSON (one content string), sent in 1 MB chunks without a content-length. */
async function hugeServer(): Promise<{ url: string; sent: number[]; close: () => Promise<void>; server: Server }> {
  const sent: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      let bytes = 0;
      const at = sent.push(0) - 1;
      res.write('{"choices":[{"message":{"content":"');
      const pump = () => {
        while (bytes < HUGE) {
          bytes += CHUNK.length;
          sent[at] = bytes;
          if (!res.write(CHUNK)) return void res.once('drain', pump);
        }
        res.end('"}}]}');
      };
      res.on('close', () => (bytes = HUGE + 1)); // the client hung up: stop sending
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, sent, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe('bounded answers', () => {
  it('a 60 MB answer is cut off at the cap: a failed answer with its own reason, not retried, the store stays small', async () => {
    const server = await hugeServer();
    closers.push(() => server.server.closeAllConnections(), server.close);
    const dir = mkdtempSync(join(tmpdir(), 'gsr-bounded-'));
    const { path } = writePrompts(dir, 6);
    const store = RunStore.open(join(dir, 'runs.sqlite'));
    closers.push(() => store.close());
    const rssBefore = process.memoryUsage().rss;
    const s = await runPrompts({
      prompts: path, store, answerer: createOpenAiAnswerer({ model: 'm', baseUrl: server.url }), settings: { answerer: 'openai', model: 'm' },
      concurrency: 3, timeoutMs: 60_000, retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5 },
    });
    expect(s).toMatchObject({ prompts: 6, ok: 0, failed: 6, requests: 6 }); // one request each: not retried
    const rows = [...store.responses({ model: 'm' })];
    expect(rows.map((r) => r.error)).toEqual(Array(6).fill(`answer too large: the reply passed the cap of ${DEFAULT_MAX_ANSWER_BYTES} bytes (max_answer_bytes) and was cut off unread`));
    expect(rows.every((r) => r.output === '')).toBe(true);
    // The endpoint was cut off long before its 60 MB (socket buffers let a few MB through).
    expect(Math.max(...server.sent)).toBeLessThan(HUGE / 2);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
    store.close();
    const bytes = ['', '-wal'].reduce((n, suffix) => n + (statSync(join(dir, 'runs.sqlite') + suffix, { throwIfNoEntry: false })?.size ?? 0), 0);
    expect(bytes).toBeLessThan(1024 * 1024);
  }, scaled(60_000));

  it('gsr run --max-answer-bytes: a smaller cap, a content-length past it refused before the body', async () => {
    const server = createServer((req, res) => {
      req.resume();
      const body = JSON.stringify({ choices: [{ message: { content: 'x'.repeat(5000) } }] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const dir = mkdtempSync(join(tmpdir(), 'gsr-bounded-'));
    const { path } = writePrompts(dir, 2);
    const base = ['run', '--prompts', path, '--model', 'm', '--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, '--store', join(dir, 's.sqlite'), '--json'];
    const capped = await runCliInProcess([...base, '--max-answer-bytes', '1000']);
    expect(capped.status).toBe(1); // not one answer succeeded
    expect(JSON.parse(capped.stdout)).toMatchObject({ ok: 0, failed: 2 });
    expect(capped.stderr).toContain('2 x answer too large');
    const store = RunStore.open(join(dir, 's.sqlite'), { create: false });
    expect([...store.responses()].map((r) => r.error)).toEqual(Array(2).fill('answer too large: the reply passed the cap of 1000 bytes (max_answer_bytes) and was cut off unread'));
    store.close();
    // The default cap takes them (failed answers are asked again by default).
    const ok = await runCliInProcess(base);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: 2, failed: 0 });
  }, scaled(30_000));
});
