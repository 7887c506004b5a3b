import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchmarks, scoreModels, writeBenchPromptFile } from '../../src/benchmarks/index.js';
import { fromManifestItem, toWhatsupRecord, type WhatsupItem } from '../../src/benchmarks/whatsup/index.js';
import { readBenchPrompts } from '../../src/formats/chat-prompt.js';
import { readManifest } from '../../src/formats/manifest.js';
import { optionLetter, promptParts, writePromptFile, type PromptRecord } from '../../src/formats/prompts.js';
import type { ResponseRecord } from '../../src/formats/responses.js';
import { synthesizeDataset } from '../../src/datasets/index.js';
import { buildPromptFile } from '../../src/prompts/index.js';
import { scoreReasoning } from '../../src/scoring/index.js';
import { readJsonlAll } from '../../src/util/jsonl.js';
import { runBenchPipeline } from '../../src/pipeline/bench.js';
import { scaled } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gsr-whatsup-plugin-'));
const manifest = join(dir, 'scenes', 'manifest.jsonl');
let items: WhatsupItem[];
beforeAll(async () => {
  await synthesizeDataset({ out: join(dir, 'scenes'), count: 12, seed: 5, width: 160, height: 120, workers: 0 });
  items = [];
  for await (const m of readManifest(manifest)) items.push(fromManifestItem(m, manifest));
}, scaled(120_000));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Answers that exercise every outcome: right, wrong, unreadable, chosen by the prompt's position. */
function output(p: PromptRecord, i: number): string {
  const right = p.task === 'mc' ? p.expected! : p.expected!;
  const wrong = p.task === 'mc' ? optionLetter((p.answer_index! + 1) % p.options.length) : p.options[(p.answer_index! + 1) % p.options.length];
  return [right, right, wrong, 'no idea', `The answer is ${right}.`][i % 5];
}

describe("What'sUp as a plug-in", () => {
  const whatsup = () => benchmarks.get('whatsup');

  for (const task of ['tg', 'mc'] as const) {
    it(`${task}: writes the same prompt file as gsr prompts build, byte for byte, and sends the same parts`, async () => {
      const existing = join(dir, `${task}-existing.jsonl`);
      await buildPromptFile({ manifest, task, out: existing });
      const benchFile = join(dir, `${task}-plugin.jsonl`);
      const s = await writeBenchPromptFile(whatsup(), items, { task }, null, benchFile);
      expect(s.skipped).toEqual([]);
      const benchPrompts = await readBenchPrompts(benchFile);
      const rebuilt = join(dir, `${task}-rebuilt.jsonl`);
      await writePromptFile(rebuilt, benchPrompts.map(toWhatsupRecord));
      expect(readFileSync(rebuilt, 'utf8')).toBe(readFileSync(existing, 'utf8'));
      const records = await readJsonlAll<PromptRecord>(existing);
      expect(records.length).toBeGreaterThan(20);
      // The request body is built from the parts: the plug-in's are the record's, image first.
      benchPrompts.forEach((bp, i) => expect(bp.parts.map((p) => (p.type === 'image' ? { type: 'image', image: p.image } : p))).toEqual(promptParts(records[i]).map((p) => (p.type === 'image' ? { type: 'image', image: p.image } : p))));
    });

    it(`${task}: scores as scoreReasoning does, CircularEval and VanillaEval per split`, async () => {
      const records = await readJsonlAll<PromptRecord>(join(dir, `${task}-existing.jsonl`));
      const benchPrompts = await readBenchPrompts(join(dir, `${task}-plugin.jsonl`));
      const responses: ResponseRecord[] = records.map((p, i) => ({ key: p.key, model: 'm', output: output(p, i), status: 'ok', error: null, item: p.item }));
      const { result } = scoreReasoning(records, responses, { model: 'm' });
      const { cells } = scoreModels(whatsup(), new Map(items.map((i) => [i.id, i])), benchPrompts, new Map([['m', benchPrompts.map((p, i) => ({ key: p.key, model: 'm', output: responses[i].output, status: 'ok' as const }))]]));
      const splits = Object.keys(result.splits);
      expect(splits.length).toBeGreaterThan(0);
      for (const s of splits) {
        const cell = (mode: string) => cells.find((c) => c.mode === mode && c.level === s)!;
        expect(cell('circular').accuracy).toBe(result.splits[s].circular);
        expect(cell('circular').n).toBe(result.splits[s].n);
        expect(cell('vanilla').accuracy).toBe(result.splits[s].vanilla);
        expect(cell('vanilla').n).toBe(result.splits[s].prompts);
        expect(cell('vanilla').invalid).toBe(result.splits[s].unparsed);
      }
      expect(result.splits[splits[0]].vanilla).toBeGreaterThan(0);
      expect(result.splits[splits[0]].vanilla).toBeLessThan(1);
      const table = whatsup().tables(cells)[0];
      expect(table.rows.find((r) => r[2] === 'circular')!.at(-1)).toBe(Math.round(result.total_average.circular! * 1000) / 10);
    });
  }

  it('runs in a benchmark pipeline on a manifest folder: the oracle scores 100% in both modes', async () => {
    const file = join(dir, 'whatsup.yaml');
    writeFileSync(file, `name: w\nout: ${join(dir, 'run')}\nbenchmark: { name: whatsup, root: ${join(dir, 'scenes')}, prompts: { task: mc } }\nmodels:\n  - { name: oracle, kind: oracle }\n  - { name: random, kind: random, seed: 2 }\n`);
    const r = await runBenchPipeline(file, { env: {} });
    expect(r.tables![0]).toMatch(/^oracle +mc +circular +100 +100$/m);
    expect(r.tables![0]).toMatch(/^oracle +mc +vanilla +100 +100$/m);
    expect(r.tables![0]).toMatch(/^random +mc +vanilla /m);
  }, scaled(60_000));
});
