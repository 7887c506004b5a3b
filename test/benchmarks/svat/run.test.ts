import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchAnswerer, generateBenchmark, loadItemSet, scoreModels, writeBenchPromptFile } from '../../../src/benchmarks/index.js';
import { readFirstWord, readLenient } from '../../../src/benchmarks/svat/judge.js';
import { buildSvatPrompts, SVAT_INSTRUCTION } from '../../../src/benchmarks/svat/prompts.js';
import { nearestAnswer } from '../../../src/benchmarks/svat/baselines.js';
import type { SvatItem } from '../../../src/benchmarks/svat/spec.js';
import { readBenchPrompts } from '../../../src/formats/chat-prompt.js';
import { RunStore, runPrompts, toResponseRecord } from '../../../src/mllm/index.js';
import { startFakeServer } from '../../mllm/fake-server.js';

const dir = mkdtempSync(join(tmpdir(), 'gsr-svat-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function answerAll(kind: string, items: Map<string, SvatItem>, promptFile: string, baseUrl?: string) {
  const set = await loadItemSet(join(dir, 'set'));
  const store = RunStore.open(join(dir, `${kind}.sqlite`));
  try {
    const answerer = await benchAnswerer(set.benchmark, items, kind, { model: kind, baseUrl, seed: 1 });
    const settings = { answerer: kind, model: kind };
    await runPrompts({ prompts: promptFile, store, answerer, settings, concurrency: 2 });
    return [...store.responses({ model: kind, settings: store.registerSettings(settings) })].map(toResponseRecord);
  } finally {
    store.close();
  }
}

describe('SVAT prompts, answers and scores', () => {
  it('exact mode reads the first word only; lenient mode reads JSON or the one yes/no word', () => {
    expect(readFirstWord('Yes')).toBe('yes');
    expect(readFirstWord('  no.\n')).toBe('no');
    expect(readFirstWord('YES!')).toBe('yes');
    expect(readFirstWord('No, it is not.')).toBe('no');
    expect(readFirstWord('{"answer": "yes"}')).toBeNull();
    expect(readFirstWord('The answer is yes')).toBeNull();
    expect(readFirstWord('Yesterday')).toBeNull();
    expect(readFirstWord('')).toBeNull();
    expect(readLenient('{"answer": "Yes"}')).toBe('yes');
    expect(readLenient('```json\n{"answer":"no"}\n```')).toBe('no');
    expect(readLenient('No, it is not.')).toBe('no');
    expect(readLenient('The answer is yes')).toBe('yes');
    expect(readLenient('yes or no?')).toBeNull();
    expect(readLenient('{"answer": "maybe"}')).toBeNull();
    expect(readLenient('')).toBeNull();
  });

  it("sends Table 3's prompt with K + 1 images in item order to an OpenAI-compatible endpoint; the baselines score near 100% and 50%", async () => {
    await generateBenchmark('svat', { background: ['I1', 'I3'], distractors: [1, 3], shots: 4, count: 12, seed: 2, width: 48, height: 48 }, join(dir, 'set'));
    const set = await loadItemSet(join(dir, 'set'));
    const items = set.items as Map<string, SvatItem>;
    const promptFile = join(dir, 'prompts.jsonl');
    await writeBenchPromptFile(set.benchmark, items.values(), {}, set.context, promptFile);
    const prompts = await readBenchPrompts(promptFile);
    expect(prompts).toHaveLength(48);

    const server = await startFakeServer();
    try {
      await answerAll('openai', items, promptFile, server.url);
      expect(server.bodies).toHaveLength(48);
      const url = (i: SvatItem, s: SvatItem['query']) => `data:image/png;base64,${readFileSync(join(i.root!, s.image)).toString('base64')}`;
      const byQuery = new Map([...items.values()].map((i) => [url(i, i.query), i]));
      const seen = new Set<string>();
      for (const body of server.bodies as Array<{ messages: Array<{ content: Array<{ type: string; text?: string; image_url?: { url: string } }> }>; response_format?: unknown }>) {
        const content = body.messages[0].content;
        const images = content.filter((c) => c.type === 'image_url').map((c) => c.image_url!.url);
        expect(images).toHaveLength(5);
        // The last image is the query; the four before it are that item's demonstrations, in order.
        const item = byQuery.get(images[4])!;
        seen.add(item.id);
        expect(images).toEqual([...item.demos, item.query].map((s) => url(item, s)));
        // Table 3, laid out around the images.
        const text = content.map((c) => (c.type === 'text' ? c.text : '<image>')).join('');
        const yesNo = (a: string) => (a === 'yes' ? 'Yes' : 'No');
        expect(text).toBe(`${SVAT_INSTRUCTION}\n\n${item.demos.map((d, k) => `Example ${k + 1}:\n<image>\nQuestion: ${item.question}\nAnswer: ${yesNo(d.answer)}\n\n`).join('')}Query:\n<image>\nQuestion: ${item.question}\nAnswer:`);
        expect(body.response_format).toBeUndefined();
      }
      expect(seen.size).toBe(48);
    } finally {
      await server.close();
    }

    const responses = new Map([['nearest', await answerAll('nearest', items, promptFile)], ['always-yes', await answerAll('always-yes', items, promptFile)]]);
    const { cells } = scoreModels(set.benchmark, items, prompts, responses);
    const acc = (m: string) => cells.filter((c) => c.model === m && c.mode === 'exact').reduce((s, c) => s + c.correct, 0) / 48;
    const nearestRight = [...items.values()].filter((i) => nearestAnswer(i) === i.query.answer).length / 48;
    expect(acc('nearest')).toBe(nearestRight);
    expect(acc('nearest')).toBeGreaterThan(0.85);
    expect(acc('always-yes')).toBe(0.5);
    const tables = set.benchmark.tables(cells, set.benchmark.analyze!(cells));
    const overall = tables.find((t) => t.id === 'svat-accuracy')!;
    // 24 of 48 right: the exact binomial test (n below 100), P(X >= 24) under chance.
    expect(overall.columns).toEqual(['model', 'mode', 'group', 'n', 'correct', 'invalid', 'failed', 'accuracy %', 'test', 'z', 'p (one-sided, > 50%)']);
    expect(overall.rows.filter((r) => r[0] === 'always-yes')).toEqual([
      ['always-yes', 'exact', 'all', 48, 24, 0, 0, 50, 'exact', null, '0.557'],
      ['always-yes', 'lenient', 'all', 48, 24, 0, 0, 50, 'exact', null, '0.557'],
    ]);
    expect(tables.find((t) => t.id === 'svat-phi')!.rows.filter((r) => r[0] === 'nearest' && r[1] === 'exact').map((r) => r[2])).toEqual(['phi=I1/shape/M1/none', 'phi=I1/shape/M3/none', 'phi=I3/shape/M1/none', 'phi=I3/shape/M3/none']);
  }, 60_000);

  it('the json format asks for {"answer": ...} with a schema, as a variant of its own', async () => {
    const set = await loadItemSet(join(dir, 'set'));
    const item = [...(set.items as Map<string, SvatItem>).values()][0];
    const [paper] = buildSvatPrompts(item, { format: 'paper' });
    const [json] = buildSvatPrompts(item, { format: 'json' });
    expect(paper).toMatchObject({ variant: 'k4', meta: { shots: 4, format: 'paper' } });
    expect(paper.response_format).toBeUndefined();
    expect(json).toMatchObject({ variant: 'k4-json', response_format: { name: 'svat_answer' } });
    expect(json.parts.slice(0, -1)).toEqual(paper.parts.slice(0, -1));
    expect((json.parts.at(-1) as { text: string }).text).toBe(`\nQuestion: ${item.question}\nAnswer yes or no, as JSON: {"answer": "yes"} or {"answer": "no"}.`);
    expect(() => set.benchmark.buildPrompts(item, { format: 'xml' }, set.context)).toThrow(/^SVAT prompt settings: format: /);
  });
});
