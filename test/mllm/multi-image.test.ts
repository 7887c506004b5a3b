import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchPromptKey } from '../../src/benchmarks/index.js';
import type { BenchPrompt } from '../../src/formats/chat-prompt.js';
import { createOpenAiAnswerer, exportResponses, RunStore, runPrompts } from '../../src/mllm/index.js';
import { startFakeServer, type FakeServer } from './fake-server.js';

type Content = Array<{ type: string; text?: string; image_url?: { url: string } }>;
type Body = { messages: Array<{ role: string; content: Content }>; response_format?: { type: string; json_schema: { name: string; schema: unknown } } };

let dir: string;
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function prompt(item: string, parts: BenchPrompt['parts'], extra: Partial<BenchPrompt> = {}): BenchPrompt {
  const body = { benchmark: 'toy', item, task: 't', level: '1', variant: 'image', parts, ...extra };
  return { key: benchPromptKey(body), ...body };
}

async function run(prompts: BenchPrompt[], answerer = createOpenAiAnswerer({ model: 'm', baseUrl: server!.url })) {
  const file = join(dir, 'prompts.jsonl');
  writeFileSync(file, prompts.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const store = RunStore.open(join(dir, 'runs.sqlite'));
  try {
    const summary = await runPrompts({ prompts: file, store, answerer, settings: { answerer: 'openai', model: 'm' }, concurrency: 1 });
    await exportResponses(store, { out: join(dir, 'responses.jsonl') });
    return summary;
  } finally {
    store.close();
  }
}

describe('benchmark prompts through the runner', () => {
  it('sends several images in one user turn, interleaved with the text in order', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-multi-'));
    const imgs = ['a.png', 'b.jpg', 'c.png'].map((n, i) => {
      const path = join(dir, n);
      writeFileSync(path, Buffer.from([i + 1, i + 2, i + 3]));
      return path;
    });
    server = await startFakeServer();
    const s = await run([prompt('i1', [
      { type: 'text', text: 'Legend:' }, { type: 'image', image: imgs[0] }, { type: 'text', text: 'Example:' }, { type: 'image', image: imgs[1] },
      { type: 'text', text: 'Now:' }, { type: 'image', image: imgs[2] }, { type: 'text', text: 'Answer.' },
    ])]);
    expect(s.ok).toBe(1);
    const body = server.bodies[0] as Body;
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].role).toBe('user');
    const c = body.messages[0].content;
    expect(c.map((p) => p.type)).toEqual(['text', 'image_url', 'text', 'image_url', 'text', 'image_url', 'text']);
    expect(c.filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['Legend:', 'Example:', 'Now:', 'Answer.']);
    expect(c[1].image_url!.url).toBe(`data:image/png;base64,${Buffer.from([1, 2, 3]).toString('base64')}`);
    expect(c[3].image_url!.url).toBe(`data:image/jpeg;base64,${Buffer.from([2, 3, 4]).toString('base64')}`);
    expect(c[5].image_url!.url).toBe(`data:image/png;base64,${Buffer.from([3, 4, 5]).toString('base64')}`);
    expect(body.response_format).toBeUndefined();
  });

  it('sends a text-only prompt with no image', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-multi-'));
    server = await startFakeServer();
    await run([prompt('i1', [{ type: 'text', text: 'A 3x3 map. Plan?' }], { variant: 'text' })]);
    const c = (server.bodies[0] as Body).messages[0].content;
    expect(c).toEqual([{ type: 'text', text: 'A 3x3 map. Plan?' }]);
  });

  const format = { name: 'answer', schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } };

  it('sends response_format as a JSON schema where the endpoint takes it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-multi-'));
    server = await startFakeServer();
    await run([prompt('i1', [{ type: 'text', text: 'json please' }], { response_format: format })]);
    expect((server.bodies[0] as Body).response_format).toEqual({ type: 'json_schema', json_schema: { ...format, strict: true } });
  });

  it('falls back to plain text when the endpoint rejects response_format, and stops sending it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-multi-'));
    server = await startFakeServer({ rejectResponseFormat: true });
    const s = await run([prompt('i1', [{ type: 'text', text: 'first' }], { response_format: format }), prompt('i2', [{ type: 'text', text: 'second' }], { response_format: format })]);
    expect(s.ok).toBe(2);
    const sent = server.bodies.map((b) => (b as Body).response_format !== undefined);
    expect(sent).toEqual([true, false, false]); // rejected once, then never sent again
  });

  it('with structured outputs off, never sends it; with on, fails where the endpoint rejects it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-multi-'));
    server = await startFakeServer({ rejectResponseFormat: true });
    const off = await run([prompt('i1', [{ type: 'text', text: 'x' }], { response_format: format })], createOpenAiAnswerer({ model: 'm', baseUrl: server.url, structuredOutputs: 'off' }));
    expect(off.ok).toBe(1);
    expect((server.bodies[0] as Body).response_format).toBeUndefined();
    rmSync(join(dir, 'runs.sqlite'));
    const on = await run([prompt('i2', [{ type: 'text', text: 'y' }], { response_format: format })], createOpenAiAnswerer({ model: 'm', baseUrl: server.url, structuredOutputs: 'on' }));
    expect(on.failed).toBe(1);
  });
});
