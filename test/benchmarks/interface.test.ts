import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchPromptKey, benchmarks, registerBenchmark, scoreCells, scoreResponses, writeBenchPromptFile, type Benchmark } from '../../src/benchmarks/index.js';
import type { BenchItem } from '../../src/formats/bench-item.js';
import { readBenchPrompts } from '../../src/formats/chat-prompt.js';
import { GsrError } from '../../src/util/errors.js';

type ToyItem = BenchItem & { image: string; answer: string };

/** A two-image toy benchmark: shows a reference and the item image, expects a word after "Answer:". */
function toy(ref: string): Benchmark<ToyItem> {
  return {
    name: 'toy-interface-test',
    title: 'Toy',
    parseItem(raw) {
      const r = raw as ToyItem;
      if (typeof r.answer !== 'string') throw new GsrError('answer missing');
      return r;
    },
    buildPrompts(item, settings) {
      if (item.image.endsWith('broken.png')) throw new GsrError('cannot build');
      const variants = settings.text ? ['image', 'text'] : ['image'];
      return variants.map((variant) => ({
        item: item.id, task: item.task, level: item.level, variant,
        parts: variant === 'image'
          ? [{ type: 'text', text: 'Reference:' }, { type: 'image', image: ref }, { type: 'text', text: 'Item:' }, { type: 'image', image: item.image }]
          : [{ type: 'text', text: `Item ${item.id} as text.` }],
      }));
    },
    modes: ['lenient', 'exact'],
    judge(item, _p, output, mode) {
      const m = /Answer:\s*(.*)$/m.exec(output);
      if (!m) return { valid: false, correct: false, reason: 'no marker' };
      const got = mode === 'lenient' ? m[1].trim().toLowerCase() : m[1];
      return { valid: true, correct: got === item.answer, extracted: got };
    },
    baselines: {},
    tables: (cells) => [{ id: 'acc', title: 'Accuracy', columns: ['model', 'mode', 'accuracy'], rows: cells.map((c) => [c.model, c.mode, c.accuracy]) }],
  };
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('benchmark plug-in interface', () => {
  it('registers by name and refuses unknown names with the list', () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-bench-'));
    registerBenchmark(toy('/x.png'));
    expect(benchmarks.get('toy-interface-test').title).toBe('Toy');
    expect(() => benchmarks.get('nope')).toThrow(/unknown benchmark "nope" \(available: .*toy-interface-test/);
  });

  it('builds a keyed prompt file (images hashed by content), skips a bad item, and scores per mode', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-bench-'));
    const ref = join(dir, 'ref.png');
    writeFileSync(ref, 'ref');
    const items: ToyItem[] = ['a', 'b', 'broken'].map((id) => ({ id, benchmark: 'toy', task: 't1', level: '1', image: join(dir, `${id}.png`), answer: 'yes' }));
    for (const i of items.slice(0, 2)) writeFileSync(i.image, i.id);
    const b = toy(ref);
    const out = join(dir, 'prompts.jsonl');
    const s = await writeBenchPromptFile(b, items, { text: true }, undefined, out);
    expect(s).toMatchObject({ items: 2, prompts: 4, images: 4, skipped: [{ item: 'broken', reason: 'cannot build' }] });
    const prompts = await readBenchPrompts(out);
    expect(prompts.map((p) => `${p.item}/${p.variant}`)).toEqual(['a/image', 'a/text', 'b/image', 'b/text']);
    for (const p of prompts) {
      const { key, ...rest } = p;
      expect(key).toBe(benchPromptKey(rest));
      for (const part of p.parts) if (part.type === 'image') expect(part.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // Same content elsewhere keeps the key; different content changes it.
    writeFileSync(join(dir, 'a.png'), 'changed');
    await writeBenchPromptFile(b, items.slice(0, 1), {}, undefined, out);
    expect((await readBenchPrompts(out))[0].key).not.toBe(prompts[0].key);
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);

    // An item with a dataset root: an image that resolves outside it (a symbolic link) is never read.
    mkdirSync(join(dir, 'root'));
    writeFileSync(join(dir, 'root', 'ref.png'), 'ref');
    writeFileSync(join(dir, 'secret.png'), 'secret');
    symlinkSync(join(dir, 'secret.png'), join(dir, 'root', 'link.png'));
    writeFileSync(join(dir, 'root', 'in.png'), 'in');
    const rooted: ToyItem[] = ['in', 'link'].map((id) => ({ id, benchmark: 'toy', task: 't1', level: '1', image: join(dir, 'root', `${id}.png`), answer: 'yes', root: join(dir, 'root') }));
    const r = await writeBenchPromptFile(toy(join(dir, 'root', 'ref.png')), rooted, {}, undefined, out);
    expect(r).toMatchObject({ items: 1, prompts: 1 });
    expect(r.skipped).toEqual([{ item: 'link', reason: expect.stringMatching(/link\.png resolves to .*secret\.png, outside its root/) }]);

    const map = new Map(items.map((i) => [i.id, i]));
    const responses = [
      { key: prompts[0].key, model: 'm', output: 'Answer: YES', status: 'ok' as const },
      { key: prompts[1].key, model: 'm', output: 'Answer: yes', status: 'ok' as const },
      { key: prompts[2].key, model: 'm', output: 'no marker', status: 'ok' as const },
      { key: prompts[3].key, model: 'other', output: 'Answer: yes', status: 'ok' as const },
    ];
    const scored = scoreResponses(b, map, prompts, 'm', responses);
    expect(scored.filter((r) => r.mode === 'lenient').map((r) => [r.correct, r.valid, r.status])).toEqual([[true, true, 'ok'], [true, true, 'ok'], [false, false, 'ok'], [false, false, 'missing']]);
    expect(scored.filter((r) => r.mode === 'exact').map((r) => r.correct)).toEqual([false, true, false, false]);
    const cells = scoreCells(scored);
    expect(cells.find((c) => c.mode === 'lenient' && c.variant === 'image')).toMatchObject({ n: 2, correct: 1, invalid: 1, failed: 0, accuracy: 0.5 });
    expect(cells.find((c) => c.mode === 'lenient' && c.variant === 'text')).toMatchObject({ n: 2, correct: 1, invalid: 0, failed: 1 });
  });

  it('keeps a judge\'s scriptInvalid per response and sums it per cell only where it is given', () => {
    const row = (mode: string, status: 'ok' | 'failed', scriptInvalid?: boolean) => ({
      key: `k${mode}${status}${scriptInvalid}`, item: 'i', task: 't', level: '1', variant: 'image', model: 'm', mode, status, valid: true, correct: false, credit: 0,
      ...(scriptInvalid === undefined ? {} : { scriptInvalid }),
    });
    const cells = scoreCells([row('official', 'ok', true), row('official', 'ok', false), row('official', 'failed', true), row('strict', 'ok')]);
    expect(cells.find((c) => c.mode === 'official')).toMatchObject({ n: 3, invalid: 0, failed: 1, scriptInvalid: 1 });
    expect(cells.find((c) => c.mode === 'strict')).not.toHaveProperty('scriptInvalid');
  });
});
