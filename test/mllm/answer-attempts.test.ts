import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchPromptKey } from '../../src/benchmarks/index.js';
import type { BenchPrompt } from '../../src/formats/chat-prompt.js';
import { RunStore, runPrompts, type Answerer } from '../../src/mllm/index.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function prompts(n: number): { file: string; list: BenchPrompt[] } {
  const list = Array.from({ length: n }, (_, i) => {
    const body = { benchmark: 'toy', item: `i${i}`, task: 't', level: '1', variant: 'text', parts: [{ type: 'text' as const, text: `q${i}` }] };
    return { key: benchPromptKey(body), ...body };
  });
  const file = join(dir, 'prompts.jsonl');
  writeFileSync(file, list.map((p) => JSON.stringify(p)).join('\n') + '\n');
  return { file, list };
}

/** Answers "bad" to a prompt until it has been asked `goodAfter` times, then "good". */
function answerer(goodAfter: number, asked: Map<string, number>): Answerer {
  return {
    name: 'toy',
    answer: async (p) => {
      const n = (asked.get(p.key) ?? 0) + 1;
      asked.set(p.key, n);
      return n > goodAfter ? 'good' : 'bad';
    },
  };
}
const validate = (_p: unknown, out: string) => (out === 'good' ? null : 'not good');
const settings = { answerer: 'toy', model: 'toy', answer_attempts: 3 };

describe('answer attempts', () => {
  it('re-asks invalid outputs up to the limit, stores each, and keeps the last', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-attempts-'));
    const { file, list } = prompts(2);
    const store = RunStore.open(join(dir, 'store.sqlite'));
    try {
      const asked = new Map<string, number>();
      const s = await runPrompts({ prompts: file, store, answerer: answerer(5, asked), settings, answerAttempts: 3, validate, concurrency: 2 });
      expect(s).toMatchObject({ ok: 2, answer_attempts: 3, reasked: 4, requests: 6 });
      expect([...asked.values()]).toEqual([3, 3]);
      const sid = store.listSettings('toy')[0].id;
      for (const p of list) {
        expect(store.attempts(p.key, 'toy', sid).map((a) => [a.attempt, a.output, a.reason])).toEqual([[1, 'bad', 'not good'], [2, 'bad', 'not good']]);
      }
      expect([...store.responses()].map((r) => r.output)).toEqual(['bad', 'bad']); // the third and last answer, still invalid
    } finally {
      store.close();
    }
  });

  it('resumes the count after a crash, and asks nothing once answered (exactly once)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-attempts-'));
    const { file, list } = prompts(1);
    const store = RunStore.open(join(dir, 'store.sqlite'));
    try {
      const sid = store.registerSettings(settings);
      // A run that died after storing two invalid answers and before the third.
      for (const attempt of [1, 2]) store.recordAttempt({ key: list[0].key, model: 'toy', settings: sid, attempt, output: 'bad', reason: 'not good', finished_at: 'then' });
      const asked = new Map<string, number>();
      const s = await runPrompts({ prompts: file, store, answerer: answerer(5, asked), settings, answerAttempts: 3, validate });
      expect(s).toMatchObject({ ok: 1, reasked: 0, requests: 1 });
      expect(asked.get(list[0].key)).toBe(1);
      const again = await runPrompts({ prompts: file, store, answerer: answerer(0, asked), settings, answerAttempts: 3, validate });
      expect(again).toMatchObject({ ok: 0, cached: 1, requests: 0 });
      expect(store.attempts(list[0].key, 'toy', sid)).toHaveLength(2);
    } finally {
      store.close();
    }
  });

  it('a valid first answer is not asked again; with one attempt, validate is never consulted', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-attempts-'));
    const { file } = prompts(3);
    const store = RunStore.open(join(dir, 'store.sqlite'));
    try {
      const asked = new Map<string, number>();
      const s = await runPrompts({ prompts: file, store, answerer: answerer(0, asked), settings, answerAttempts: 3, validate });
      expect(s).toMatchObject({ ok: 3, reasked: 0, requests: 3 });
      let consulted = 0;
      const once = await runPrompts({ prompts: file, store, answerer: answerer(9, new Map()), settings: { answerer: 'toy', model: 'toy' }, validate: () => (consulted++, 'no') });
      expect(once).toMatchObject({ ok: 3, requests: 3 });
      expect(once).not.toHaveProperty('answer_attempts');
      expect(consulted).toBe(0);
    } finally {
      store.close();
    }
  });
});
