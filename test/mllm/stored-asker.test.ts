import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchPrompt } from '../../src/formats/chat-prompt.js';
import { AnswerError, RunStore, StoredAsker } from '../../src/mllm/index.js';
import type { Answerer } from '../../src/mllm/types.js';
import { useTempDirs } from '../helpers/temp.js';

const temp = useTempDirs('gsr-stored-asker-');
const prompt = (key: string): BenchPrompt => ({ key, benchmark: 'et-plan', item: 'i', task: 'navigation', level: '', variant: 'step', parts: [{ type: 'text', text: key }] });
const settings = { answerer: 'test', model: 'm', temperature: 0 };
const signal = new AbortController().signal;

describe('StoredAsker', () => {
  it('asks once, commits, then replays from the store', async () => {
    const store = RunStore.open(join(await temp(), 's.sqlite'));
    let calls = 0;
    const answerer: Answerer = { name: 'a', answer: async (p) => `reply ${++calls} to ${p.key}` };
    const asker = new StoredAsker({ store, answerer, settings });
    expect(await asker.ask(prompt('k1'), signal)).toMatchObject({ status: 'ok', output: 'reply 1 to k1', cached: false, requests: 1 });
    expect(await asker.ask(prompt('k1'), signal)).toMatchObject({ status: 'ok', output: 'reply 1 to k1', cached: true, requests: 0 });
    expect(store.response('k1', 'm', asker.sid)).toMatchObject({ status: 'ok', output: 'reply 1 to k1', item: 'i', task: 'navigation' });
    store.close();
  });

  it('a failed answer is stored as failed and asked again next time', async () => {
    const store = RunStore.open(join(await temp(), 's.sqlite'));
    let fail = true;
    const answerer: Answerer = {
      name: 'a',
      answer: async () => {
        if (fail) throw new AnswerError('bad request', false);
        return 'fine';
      },
    };
    const asker = new StoredAsker({ store, answerer, settings });
    expect(await asker.ask(prompt('k'), signal)).toMatchObject({ status: 'failed', cached: false });
    fail = false;
    expect(await asker.ask(prompt('k'), signal)).toMatchObject({ status: 'ok', output: 'fine', cached: false });
    store.close();
  });

  it('waits while another live runner holds the prompt, then takes its answer without asking', async () => {
    const path = join(await temp(), 's.sqlite');
    const a = RunStore.open(path);
    const b = RunStore.open(path);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: Answerer = { name: 'slow', answer: async () => (await gate, 'from a') };
    let bCalls = 0;
    const other: Answerer = { name: 'b', answer: async () => (bCalls++, 'from b') };
    const first = new StoredAsker({ store: a, answerer: slow, settings }).ask(prompt('k'), signal);
    await new Promise((r) => setTimeout(r, 50));
    const second = new StoredAsker({ store: b, answerer: other, settings, pollMs: 20 }).ask(prompt('k'), signal);
    await new Promise((r) => setTimeout(r, 100));
    release();
    expect(await first).toMatchObject({ output: 'from a', cached: false });
    expect(await second).toMatchObject({ output: 'from a', cached: true });
    expect(bCalls).toBe(0);
    a.close();
    b.close();
  });

  it('returns null when aborted, commits nothing and releases its claim', async () => {
    const path = join(await temp(), 's.sqlite');
    const store = RunStore.open(path);
    const never: Answerer = { name: 'n', answer: (_p, s) => new Promise((_r, reject) => s.addEventListener('abort', () => reject(new Error('aborted')))) };
    const ac = new AbortController();
    const asker = new StoredAsker({ store, answerer: never, settings });
    const pending = asker.ask(prompt('k'), ac.signal);
    setTimeout(() => ac.abort(), 30);
    expect(await pending).toBeNull();
    expect(store.response('k', 'm', asker.sid)).toBeUndefined();
    // Another runner (another owner in this live process) can claim it at once.
    const other = RunStore.open(path);
    expect(other.claim('k', 'm', asker.sid, 1000)).toBe('claimed');
    other.close();
    store.close();
  });
});
