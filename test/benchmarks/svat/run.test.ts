import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { benchAnswerer, generateBenchmark, loadItemSet, scoreModels, writeBenchPromptFile } from '../../../src/benchmarks/index.js';
import { readAnswer } from '../../../src/benchmarks/svat/judge.js';
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
  it('reads yes/no from JSON or plain text, and nothing from a mixed answer', () => {
    expect(readAnswer('{"answer": "Yes"}')).toBe('yes');
    expect(readAnswer('```json\n{"answer":"no"}\n```')).toBe('no');
    expect(readAnswer('No, it is not.')).toBe('no');
    expect(readAnswer('yes or no?')).toBeNull();
    expect(readAnswer('{"answer": "maybe"}')).toBeNull();
    expect(readAnswer('')).toBeNull();
  });

  it('sends K + 1 images in item order to an OpenAI-compatible endpoint; the baselines score near 100% and 50%', async () => {
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
        expect(content.filter((c) => c.type === 'text').slice(1, 5).map((c) => c.text)).toEqual(item.demos.map((d, k) => `Example ${k + 1}. ${item.question} Answer: ${d.answer === 'yes' ? 'Yes' : 'No'}`));
        expect(content.at(-1)!.type).toBe('text');
        expect(content.at(-2)!.type).toBe('image_url');
        expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'svat_answer' } });
      }
      expect(seen.size).toBe(48);
    } finally {
      await server.close();
    }

    const responses = new Map([['nearest', await answerAll('nearest', items, promptFile)], ['always-yes', await answerAll('always-yes', items, promptFile)]]);
    const { cells } = scoreModels(set.benchmark, items, prompts, responses);
    const acc = (m: string) => cells.filter((c) => c.model === m).reduce((s, c) => s + c.correct, 0) / 48;
    const nearestRight = [...items.values()].filter((i) => nearestAnswer(i) === i.query.answer).length / 48;
    expect(acc('nearest')).toBe(nearestRight);
    expect(acc('nearest')).toBeGreaterThan(0.85);
    expect(acc('always-yes')).toBe(0.5);
    const tables = set.benchmark.tables(cells, set.benchmark.analyze!(cells));
    const overall = tables.find((t) => t.id === 'svat-accuracy')!;
    expect(overall.rows.find((r) => r[0] === 'always-yes')).toEqual(['always-yes', 'exact', 'all', 48, 50, 0, '1']);
    expect(tables.find((t) => t.id === 'svat-phi')!.rows.filter((r) => r[0] === 'nearest').map((r) => r[2])).toEqual(['phi=I1/shape/M1/none', 'phi=I1/shape/M3/none', 'phi=I3/shape/M1/none', 'phi=I3/shape/M3/none']);
  }, 60_000);
});
