import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyRefinement, namedObjects, parseRefineSettings, readRefineReply, refinePrompts, refineText, type RefineSettings } from '../../../src/benchmarks/et-plan/refine.js';
import type { EtPlanAnalysis } from '../../../src/benchmarks/et-plan/report.js';
import { parseEtPlanItem, type EtPlanItem } from '../../../src/benchmarks/et-plan/task.js';
import type { RefineAnswer } from '../../../src/benchmarks/types.js';
import { readBenchItems } from '../../../src/formats/bench-item.js';
import { runBenchPipeline } from '../../../src/pipeline/bench.js';
import { startFakeServer } from '../../mllm/fake-server.js';
import { fixtureItems } from './fixture-items.js';

const BOTH: RefineSettings = parseRefineSettings({});
const byId = (id: string) => fixtureItems().find((i) => i.id === id)!;
const ok = (output: string): RefineAnswer => ({ status: 'ok', output, error: null });

describe('the refine prompt', () => {
  it('holds the task, its criteria in words, the constraint and the objects a rewording must name', () => {
    const item = byId('man-mug-microwave');
    expect(namedObjects(item)).toEqual(['mug', 'microwave']);
    const text = refineText(item, BOTH);
    expect(text).toContain('Task: Put the mug into the microwave.');
    expect(text).toContain('the mug is inside the microwave, and the robot is next to the microwave');
    expect(text).toContain('Name each of: mug, microwave.');
    expect(text).toContain('"sensible": would a person ask for this');
    const temporal = refineText(byId('temporal-apple-plate-sofa'), BOTH);
    expect(temporal).toMatch(/Done when, in this order:\n {2}1\. the apple is inside the plate\n {2}2\. the plate is on the sofa/);
    expect(refineText(byId('nav-fridge-apple'), BOTH)).toContain('The apple meant is the one in the fridge.');
    const filterOnly = refineText(item, parseRefineSettings({ rephrase: false }));
    expect(filterOnly).not.toContain('Name each of');
    expect(filterOnly).toContain('"instruction": "".');
  });

  it('keys cover the text and the settings: the same for the same, new when a setting changes', () => {
    const items = fixtureItems();
    const a = refinePrompts(items, BOTH);
    expect(a).toHaveLength(items.length);
    expect(new Set(a.map((p) => p.key)).size).toBe(items.length);
    expect(refinePrompts(items, BOTH).map((p) => p.key)).toEqual(a.map((p) => p.key));
    const b = refinePrompts(items, parseRefineSettings({ filter: false }));
    expect(b.every((p, i) => p.key !== a[i].key)).toBe(true);
    // `unreadable` decides what is done with a reply, not what is asked.
    expect(refinePrompts(items, parseRefineSettings({ unreadable: 'drop' })).map((p) => p.key)).toEqual(a.map((p) => p.key));
    expect(a[0]).toMatchObject({ benchmark: 'et-plan', variant: 'refine', response_format: { name: 'et_plan_refine' } });
  });

  it('settings are checked with one-line errors', () => {
    expect(() => parseRefineSettings({ filter: false, rephrase: false })).toThrow(/et-plan refine: .*both off/);
    expect(() => parseRefineSettings({ filter: 'yes' })).toThrow(/et-plan refine: filter:/);
    expect(() => parseRefineSettings({ model: 'x' })).toThrow(/et-plan refine: .*model/);
  });
});

describe('reading a refine reply', () => {
  const item = byId('man-mug-microwave');
  it('reads JSON whole, fenced or inside prose; sensible as a boolean or yes/no', () => {
    expect(readRefineReply(item, '{"sensible": true, "reason": "", "instruction": "Please put the mug in the microwave."}', BOTH)).toEqual({ sensible: true, instruction: 'Please put the mug in the microwave.' });
    expect(readRefineReply(item, 'Sure.\n```json\n{"sensible": "No", "reason": "odd", "instruction": "x"}\n```', BOTH)).toEqual({ sensible: false, instruction: null });
    expect(readRefineReply(item, 'Here: {"sensible": "yes", "instruction": "  The  Mug goes into the MICROWAVE.  "} done', BOTH)).toEqual({ sensible: true, instruction: 'The Mug goes into the MICROWAVE.' });
  });

  it('a reply it cannot read is unreadable, with why; a rewording that drops an object or spans lines is rejected', () => {
    expect(readRefineReply(item, 'I think this task is fine.', BOTH)).toEqual({ unreadable: 'no JSON value in the text' });
    expect(readRefineReply(item, '[true]', BOTH)).toEqual({ unreadable: 'the JSON value is not an object' });
    expect(readRefineReply(item, '{"sensible": "maybe", "instruction": "Put the mug into the microwave."}', BOTH)).toEqual({ unreadable: '"sensible" is not true or false' });
    expect(readRefineReply(item, '{"sensible": true}', BOTH)).toEqual({ unreadable: '"instruction" is missing or empty' });
    expect(readRefineReply(item, '{"sensible": true, "instruction": "Heat it up in the microwave."}', BOTH)).toEqual({ sensible: true, rejected: 'the instruction does not name mug' });
    expect(readRefineReply(item, '{"sensible": true, "instruction": "Take the mug.\\nPut it in the microwave."}', BOTH)).toEqual({ sensible: true, rejected: 'the instruction spans several lines' });
    expect(readRefineReply(item, `{"sensible": true, "instruction": "mug microwave ${'a'.repeat(400)}"}`, BOTH)).toMatchObject({ rejected: /longer than 400/ });
  });

  it('filter only ignores the instruction; rephrase only ignores sensible', () => {
    expect(readRefineReply(item, '{"sensible": true, "instruction": ""}', parseRefineSettings({ rephrase: false }))).toEqual({ sensible: true, instruction: null });
    expect(readRefineReply(item, '{"sensible": false, "instruction": "Move the mug into the microwave."}', parseRefineSettings({ filter: false }))).toEqual({ sensible: true, instruction: 'Move the mug into the microwave.' });
  });
});

describe('applying the answers', () => {
  it('drops what is not sensible, rewords, keeps the rest with a clear count, re-tags occlusion subsets and records the run in the context', () => {
    const items = fixtureItems();
    const answers = new Map<string, RefineAnswer>([
      ['nav-book', ok('{"sensible": true, "instruction": "Could you go and stand by the book?"}')],
      ['nav-fridge-apple', ok('{"sensible": false, "reason": "nobody keeps apples there", "instruction": ""}')],
      ['nav-spatial-apple', ok('no idea')],
      ['man-mug-microwave', ok('{"sensible": true, "instruction": "Heat it."}')],
      ['temporal-apple-plate-sofa', { status: 'failed', output: '', error: 'http 400: bad request' }],
      // multi-one-arm has no answer at all; multi-two-arm is reworded.
      ['multi-two-arm', ok('{"sensible": true, "instruction": "Carry the book and the pillow to the bed at once and put both on it."}')],
    ]);
    const before = JSON.stringify(items);
    const r = applyRefinement({ items, context: { benchmark: 'et-plan', occlusion: { percentiles: { size: 20, distance: 80 }, thresholds: {} } } }, answers, BOTH, 'judge');
    expect(JSON.stringify(items)).toBe(before);
    expect(r.summary).toEqual({ items: 7, kept: 6, passed: 0, rephrased: 2, unreadable: 1, 'rephrase-rejected': 1, failed: 2, dropped: 1 });
    expect(r.set.items.map((i) => i.id)).toEqual(['nav-book', 'nav-spatial-apple', 'man-mug-microwave', 'temporal-apple-plate-sofa', 'multi-one-arm', 'multi-two-arm']);
    const kept = new Map(r.set.items.map((i) => [i.id, i]));
    expect(kept.get('nav-book')).toMatchObject({ instruction: 'Could you go and stand by the book?', refined: { model: 'judge', outcome: 'rephrased', template: 'Find the book.' } });
    expect(kept.get('nav-spatial-apple')).toMatchObject({ instruction: 'Find the apple on the kitchen table.', refined: { outcome: 'unreadable', problem: 'no JSON value in the text' } });
    expect(kept.get('man-mug-microwave')!.refined).toMatchObject({ outcome: 'rephrase-rejected', problem: 'the instruction does not name mug, microwave' });
    expect(kept.get('temporal-apple-plate-sofa')!.refined).toMatchObject({ outcome: 'failed', problem: 'http 400: bad request' });
    expect(kept.get('multi-one-arm')!.refined).toMatchObject({ outcome: 'failed', problem: 'no answer' });
    for (const i of r.set.items) expect(parseEtPlanItem(JSON.parse(JSON.stringify(i)))).toEqual(i);
    expect(r.problems).toHaveLength(4);
    expect(r.problems[0]).toBe('nav-spatial-apple: unreadable: no JSON value in the text');
    // Subsets over the tasks kept: the only other navigation task is now alone in its family.
    expect(kept.get('nav-book')!.subsets).toEqual([]);
    const ctx = r.set.context as { refine: unknown; occlusion: { thresholds: Record<string, unknown>; percentiles: unknown } };
    expect(ctx.refine).toEqual({ model: 'judge', settings: BOTH, summary: r.summary });
    expect(ctx.occlusion.percentiles).toEqual({ size: 20, distance: 80 });
    expect(Object.keys(ctx.occlusion.thresholds)).toContain('navigation');
  });

  it('unreadable: drop drops unreadable replies, still counted; filter only keeps the instruction', () => {
    const items = fixtureItems().slice(0, 2);
    const answers = new Map([[items[0].id, ok('???')], [items[1].id, ok('{"sensible": true}')]]);
    // With rephrasing on, a reply without an instruction is unreadable too.
    expect(applyRefinement({ items }, answers, BOTH, 'm').summary).toMatchObject({ items: 2, kept: 2, unreadable: 2 });
    const dropped = applyRefinement({ items }, answers, parseRefineSettings({ unreadable: 'drop' }), 'm');
    expect(dropped.summary).toMatchObject({ items: 2, kept: 0, unreadable: 2, dropped: 0 });
    expect(dropped.set.items).toEqual([]);
    const filterOnly = applyRefinement({ items }, answers, parseRefineSettings({ rephrase: false }), 'm');
    expect(filterOnly.summary).toMatchObject({ kept: 2, passed: 1, unreadable: 1 });
    expect(filterOnly.set.items.find((i) => i.id === items[1].id)).toMatchObject({ instruction: items[1].instruction, refined: { outcome: 'passed' } });
  });
});

/**
 * A stand-in judge for the fake endpoint, from a hash of the prompt text: not sensible, prose without
 * JSON, a rewording that leaves out the objects, a request refused (HTTP 400, not retried), or a good
 * rewording naming them all.
 */
type Kind = 'drop' | 'prose' | 'bad-wording' | 'failed' | 'reword';
function judgeKind(text: string): Kind {
  const h = createHash('sha256').update(text).digest().readUInt32BE(0) % 7;
  return (['drop', 'prose', 'bad-wording', 'failed'] as const)[h] ?? 'reword';
}
function judgeReply(text: string): string {
  const names = /Name each of: (.*)\.$/m.exec(text)?.[1] ?? '';
  const task = /^Task: (.*)$/m.exec(text)![1];
  switch (judgeKind(text)) {
    case 'drop':
      return '{"sensible": false, "reason": "odd", "instruction": ""}';
    case 'prose':
      return 'This looks like a perfectly ordinary chore to me.';
    case 'bad-wording':
      return '{"sensible": true, "reason": "", "instruction": "Do the chore."}';
    default:
      return `{"sensible": true, "reason": "fine", "instruction": "Please see to the ${names.split(', ').join(' and the ')}: ${task}"}`;
  }
}

function refinePipeline(dir: string, url: string, extra = ''): string {
  const file = join(dir, 'et-plan.yaml');
  writeFileSync(file, `name: et-plan-refine
out: ${join(dir, 'out')}
benchmark:
  name: et-plan
  generate: { apartments: 2, count: 2, seed: 5 }
  refine:
    model: { name: judge, kind: openai, model: judge-model, base_url: ${url}, concurrency: 3 }
${extra}models:
  - { name: oracle, kind: oracle }
`);
  return file;
}

describe('the refine stage in a pipeline, on a fake endpoint', () => {
  it('asks once per generated task through the run store, applies the replies, the oracle stays at 100%; a changed setting re-applies from the store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-etplan-refine-'));
    const server = await startFakeServer({ reply: (text) => judgeReply(text), fault: (text) => (judgeKind(text) === 'failed' ? '400' : 'ok') });
    try {
      const file = refinePipeline(dir, server.url);
      const r = await runBenchPipeline(file, { env: {} });
      expect(r.stages.map((s) => [s.name, s.status])).toEqual([['dataset', 'ran'], ['refine', 'ran'], ['episodes', 'ran'], ['score', 'ran'], ['report', 'ran']]);
      const out = join(dir, 'out');
      const generated = (await readBenchItems(join(out, 'dataset', 'items.jsonl'))) as EtPlanItem[];
      const refined = (await readBenchItems(join(out, 'refine', 'items.jsonl'))) as EtPlanItem[];
      expect(server.totalRequests()).toBe(generated.length);
      // What each task should become, from the judge's rule on its own prompt.
      const prompts = readFileSync(join(out, 'refine', 'prompts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { item: string; parts: { text: string }[] });
      const expected = new Map(prompts.map((p) => [p.item, judgeKind(p.parts[0].text)]));
      const count = (k: string) => [...expected.values()].filter((v) => v === k).length;
      expect(count('drop')).toBeGreaterThan(0);
      expect(count('prose')).toBeGreaterThan(0);
      expect(count('reword')).toBeGreaterThan(0);
      expect(count('failed')).toBeGreaterThan(0);
      expect(refined.map((i) => i.id)).toEqual(generated.filter((i) => expected.get(i.id) !== 'drop').map((i) => i.id));
      const outcome = { prose: 'unreadable', 'bad-wording': 'rephrase-rejected', reword: 'rephrased', failed: 'failed' } as Record<string, string>;
      for (const i of refined) {
        const was = generated.find((g) => g.id === i.id)!;
        expect(i.refined).toMatchObject({ model: 'judge', outcome: outcome[expected.get(i.id)!], template: was.instruction });
        if (i.refined!.outcome === 'rephrased') expect(i.instruction).toBe(`Please see to the ${namedObjects(was).join(' and the ')}: ${was.instruction}`);
        else expect(i.instruction).toBe(was.instruction);
      }
      const record = JSON.parse(readFileSync(join(out, 'refine', '.stage.json'), 'utf8')) as { summary: Record<string, number> };
      expect(record.summary).toMatchObject({ items: generated.length, kept: refined.length, dropped: count('drop'), unreadable: count('prose'), 'rephrase-rejected': count('bad-wording'), rephrased: count('reword'), failed: count('failed'), requests: generated.length });
      const analysis = JSON.parse(readFileSync(join(out, 'score', 'analysis.json'), 'utf8')) as EtPlanAnalysis;
      expect(analysis.rows.find((x) => x.model === 'oracle' && x.task === 'all' && x.subset === 'all')).toMatchObject({ n: refined.length, success_rate: 1 });

      // A rerun skips everything; `unreadable: drop` re-applies the stored replies without a request.
      expect((await runBenchPipeline(file, { env: {} })).stages.every((s) => s.status === 'skipped')).toBe(true);
      writeFileSync(file, readFileSync(file, 'utf8').replace('concurrency: 3 }', 'concurrency: 3 }\n    unreadable: drop'));
      const again = await runBenchPipeline(file, { env: {} });
      expect(again.stages.map((s) => s.status)).toEqual(['skipped', 'ran', 'ran', 'ran', 'ran']);
      // The failed requests (400, not retried) are asked again; the ok answers come from the store.
      expect(server.totalRequests()).toBe(generated.length + count('failed'));
      const fewer = (await readBenchItems(join(out, 'refine', 'items.jsonl'))) as EtPlanItem[];
      expect(fewer).toHaveLength(refined.length - count('prose'));
    } finally {
      await server.close();
    }
  }, 180_000);

  it('an interrupted refine stage resumes from the store and ends with the same item set', async () => {
    const server = await startFakeServer({ latencyMs: 5, reply: (text) => judgeReply(text) });
    try {
      const whole = mkdtempSync(join(tmpdir(), 'gsr-etplan-refine-'));
      await runBenchPipeline(refinePipeline(whole, server.url), { env: {} });
      const asked = server.totalRequests();
      const reference = readFileSync(join(whole, 'out', 'refine', 'items.jsonl'), 'utf8');

      const dir = mkdtempSync(join(tmpdir(), 'gsr-etplan-refine-'));
      const file = refinePipeline(dir, server.url);
      const abort = new AbortController();
      const stopAt = server.totalRequests() + 4;
      const timer = setInterval(() => { if (server.totalRequests() >= stopAt) abort.abort(new Error('stop')); }, 2);
      await expect(runBenchPipeline(file, { env: {}, signal: abort.signal })).rejects.toThrow();
      clearInterval(timer);
      const before = server.totalRequests();
      expect(before - asked).toBeLessThan(asked);
      await runBenchPipeline(file, { env: {} });
      // The resumed stage asked only what the interrupted one had not stored (at most 3 in flight again).
      expect(server.totalRequests() - asked).toBeLessThanOrEqual(asked + 3);
      expect(readFileSync(join(dir, 'out', 'refine', 'items.jsonl'), 'utf8')).toBe(reference.replaceAll(join(whole, 'out'), join(dir, 'out')));
    } finally {
      await server.close();
    }
  }, 180_000);

  it('refuses bad refine settings when the file loads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-etplan-refine-'));
    const bad = (extra: string) => runBenchPipeline(refinePipeline(dir, 'http://127.0.0.1:9/v1', extra), { env: {} });
    await expect(bad('    filter: false\n    rephrase: false\n')).rejects.toThrow(/et-plan refine: .*both off/);
    await expect(bad('    wording: casual\n')).rejects.toThrow(/et-plan refine: .*wording/);
    writeFileSync(join(dir, 'oracle.yaml'), readFileSync(refinePipeline(dir, 'x'), 'utf8').replace('kind: openai', 'kind: oracle'));
    await expect(runBenchPipeline(join(dir, 'oracle.yaml'), { env: {} })).rejects.toThrow(/refine.model: unknown answerer kind "oracle"/);
  });
});
