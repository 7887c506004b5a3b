import { describe, expect, it } from 'vitest';
import { indexPrompts, scoreReasoning } from '../../src/scoring/index.js';
import { GsrError } from '../../src/util/errors.js';
import { FOUR, TWO, answerAll, itemPrompts, letterOf, response } from './fixtures.js';

const subsetA = [...itemPrompts('a1', 'whatsup-a', 'on', FOUR, 0), ...itemPrompts('a2', 'whatsup-a', 'left', FOUR, 2)];

describe('CircularEval / VanillaEval', () => {
  it('an always-"A" model scores 0% circular and 25% vanilla on 4-option items', () => {
    const { result } = scoreReasoning(subsetA, answerAll(subsetA, () => 'A'));
    expect(result.splits['whatsup-a']).toMatchObject({ n: 2, prompts: 8, circular: 0, vanilla: 0.25, unparsed: 0 });
    expect(result.position_bias.chosen).toEqual({ A: 1, B: 0, C: 0, D: 0 });
    expect(result.position_bias.correct).toEqual({ A: 0.25, B: 0.25, C: 0.25, D: 0.25 });
  });
  it('a model right on 3 of 4 rotations scores 0% circular', () => {
    const { result } = scoreReasoning(subsetA, answerAll(subsetA, (p) => letterOf(p.rotation === 3 ? (p.answer_index! + 1) % 4 : p.answer_index!)));
    expect(result.splits['whatsup-a']).toMatchObject({ circular: 0, vanilla: 0.75 });
  });
  it('a perfect model scores 100% both ways', () => {
    const { result, items } = scoreReasoning(subsetA, answerAll(subsetA, (p) => `(${letterOf(p.answer_index!)})`));
    expect(result.splits['whatsup-a']).toMatchObject({ circular: 1, vanilla: 1, vanilla_first: 1 });
    expect(items.every((i) => i.correct && i.status === 'ok')).toBe(true);
  });
  it('always-"A" on two-option items: 0% circular, 50% vanilla', () => {
    const p = itemPrompts('c1', 'coco-one', 'left', TWO, 0);
    expect(scoreReasoning(p, answerAll(p, () => 'A')).result.splits['coco-one']).toMatchObject({ circular: 0, vanilla: 0.5 });
  });
  it('a missing or failed rotation makes the item wrong and is counted', () => {
    const rs = answerAll(subsetA, (p) => letterOf(p.answer_index!));
    rs.splice(1, 1); // a1 rotation 1 has no response
    rs[4] = { ...rs[4], status: 'failed', output: '', error: 'HTTP 500' }; // a2 rotation 1 failed
    const { result, items } = scoreReasoning(subsetA, rs);
    expect(result.splits['whatsup-a']).toMatchObject({ circular: 0, vanilla: 6 / 8, unparsed: 2, missing: 2 });
    expect(items.find((i) => i.key === 'a1#mc#1')).toMatchObject({ status: 'missing', correct: false });
    expect(items.find((i) => i.key === 'a2#mc#1')).toMatchObject({ status: 'failed', reason: 'HTTP 500' });
  });
  it('unreadable answers are unparsed and wrong', () => {
    const rs = answerAll(subsetA, (p) => (p.rotation === 0 ? 'I cannot tell.' : letterOf(p.answer_index!)));
    const { result } = scoreReasoning(subsetA, rs);
    expect(result.splits['whatsup-a']).toMatchObject({ circular: 0, vanilla: 0.75, unparsed: 2, missing: 0 });
    expect(result.unparsed_reasons).toEqual({ refusal: 2 });
  });
  it('Total Average is the mean of the split accuracies, not pooled', () => {
    const b = itemPrompts('b1', 'whatsup-b', 'behind', FOUR, 1);
    const prompts = [...subsetA, ...b];
    const { result } = scoreReasoning(prompts, answerAll(prompts, (p) => letterOf(p.split === 'whatsup-a' ? p.answer_index! : (p.answer_index! + 1) % 4)));
    expect(result.splits['whatsup-a'].circular).toBe(1);
    expect(result.splits['whatsup-b'].circular).toBe(0);
    expect(result.total_average.circular).toBe(0.5); // pooled would be 2/3
    expect(Object.keys(result.splits)).toEqual(['whatsup-a', 'whatsup-b']);
  });
  it('per-relation and split/relation breakdowns', () => {
    const { result } = scoreReasoning(subsetA, answerAll(subsetA, (p) => letterOf(p.item === 'a1' ? p.answer_index! : 0)));
    expect(result.relations.on).toMatchObject({ n: 1, circular: 1, vanilla: 1 });
    expect(result.relations.left).toMatchObject({ n: 1, circular: 0, vanilla: 0.25 });
    expect(result.split_relations['whatsup-a/left']).toMatchObject({ n: 1, circular: 0 });
  });
  it('mode limits what is computed', () => {
    const rs = answerAll(subsetA, () => 'A');
    expect(scoreReasoning(subsetA, rs, { mode: 'circular' }).result.splits['whatsup-a'].vanilla).toBeNull();
    expect(scoreReasoning(subsetA, rs, { mode: 'vanilla' }).result.splits['whatsup-a'].circular).toBeNull();
  });
});

describe('tasks and records', () => {
  it('TG: the caption is matched back to the shown option', () => {
    const p = itemPrompts('t1', 'whatsup-a', 'under', FOUR, 1, 'tg');
    const { result, items } = scoreReasoning(p, answerAll(p, () => 'The mug is under the table.'));
    expect(result.splits['whatsup-a']).toMatchObject({ circular: 1, vanilla: 1 });
    expect(items[2]).toMatchObject({ extracted: 'A mug under a table', correct: true, task: 'tg', rule: 'normalized' });
    expect(result.task).toBe('tg');
  });
  it('DAP with an MC base reads letters', () => {
    const p = itemPrompts('d1', 'whatsup-b', 'behind', FOUR, 0, 'dap');
    const { result } = scoreReasoning(p, answerAll(p, (q) => `Answer: ${letterOf(q.answer_index!)}`));
    expect(result).toMatchObject({ task: 'dap', splits: { 'whatsup-b': { circular: 1 } } });
  });
  it('items carry the fields the report reads', () => {
    const { items } = scoreReasoning(subsetA, answerAll(subsetA, () => 'B'));
    expect(items[0]).toMatchObject({ key: 'a1#mc#0', item: 'a1', split: 'whatsup-a', relation: 'on', task: 'mc', permutation: [0, 1, 2, 3], output: 'B', extracted: 'B', correct: false, status: 'ok' });
  });
  it('several models need a choice; the choice filters', () => {
    const rs = [...answerAll(subsetA, () => 'A', 'm1'), ...answerAll(subsetA, (p) => letterOf(p.answer_index!), 'm2')];
    expect(() => scoreReasoning(subsetA, rs)).toThrow(GsrError);
    expect(scoreReasoning(subsetA, rs, { model: 'm2' }).result).toMatchObject({ model: 'm2', total_average: { circular: 1 } });
  });
  it('a failed retry does not hide an earlier ok response; unknown keys are counted', () => {
    const rs = answerAll(subsetA, (p) => letterOf(p.answer_index!));
    rs.push(response('a1#mc#0', '', { status: 'failed', error: 'timeout' }), response('zzz', 'A'));
    const { result } = scoreReasoning(subsetA, rs);
    expect(result.splits['whatsup-a'].circular).toBe(1);
    expect(result.unmatched_responses).toBe(1);
  });
  it('no responses at all: everything wrong and missing, nothing NaN', () => {
    const { result } = scoreReasoning(subsetA, []);
    expect(result.splits['whatsup-a']).toMatchObject({ circular: 0, vanilla: 0, unparsed: 8, missing: 8 });
    expect(result.model).toBe('unknown');
    expect(JSON.stringify(result)).not.toMatch(/NaN|null,"vanilla":null/);
  });
  it('grounding prompts are left to G-Score', () => {
    const g = { ...subsetA[0], key: 'g', task: 'grounding' as const, permutation: [], options: [] };
    expect(scoreReasoning([g], []).items).toEqual([]);
  });
  it('a prompt list scored again after it changed is read as it is now', () => {
    const prompts = [...subsetA];
    const answers = answerAll(subsetA, (p) => letterOf(p.answer_index!));
    expect(scoreReasoning(prompts, answers).result.splits['whatsup-a']).toMatchObject({ n: 2, prompts: 8, circular: 1 });
    prompts.push(...itemPrompts('a3', 'whatsup-a', 'on', FOUR, 1)); // grown: a3 has no answers
    expect(scoreReasoning(prompts, answers).result.splits['whatsup-a']).toMatchObject({ n: 3, prompts: 12, circular: 2 / 3, missing: 4 });
    prompts.length = 8;
    prompts[0] = { ...prompts[0], key: 'renamed' }; // same length, one record replaced
    const again = scoreReasoning(prompts, answers).result;
    expect(again.splits['whatsup-a']).toMatchObject({ n: 2, circular: 0.5, missing: 1 });
    expect(again.unmatched_responses).toBe(1);
  });
  it('a record edited in place is read as it is now (no hidden cache)', () => {
    const prompts = subsetA.map((p) => ({ ...p }));
    const answers = answerAll(subsetA, (p) => letterOf(p.answer_index!));
    expect(scoreReasoning(prompts, answers).result.splits['whatsup-a'].circular).toBe(1);
    prompts[0].key = 'renamed'; // same list, same record, new key: its answer no longer matches
    const { result } = scoreReasoning(prompts, answers);
    expect(result.splits['whatsup-a']).toMatchObject({ circular: 0.5, missing: 1 });
    expect(result.unmatched_responses).toBe(1);
  });
  it('an explicit index scores several models like the list does', () => {
    const index = indexPrompts(subsetA);
    for (const pick of [() => 'A', (p: (typeof subsetA)[number]) => letterOf(p.answer_index!)]) {
      const answers = answerAll(subsetA, pick);
      expect(scoreReasoning(index, answers)).toEqual(scoreReasoning(subsetA, answers));
    }
  });
});
