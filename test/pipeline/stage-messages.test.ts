import { describe, expect, it } from 'vitest';
import { parsePipeline } from '../../src/formats/pipeline-file.js';
import { regressionMetrics, regressionUnavailable } from '../../src/pipeline/stages/analyze.js';
import { skippedNotice } from '../../src/pipeline/stages/prompts.js';

const pipeline = (tasks: string) => parsePipeline(`name: t\nout: o\ndataset:\n  synthetic:\n    count: 4\nprompts:\n  tasks: [${tasks}]\nmodels:\n  - name: geometric\n    kind: geometric\n`, '/tmp/p.yaml', {}).config;

describe('stage messages say why', () => {
  it('a regression on a metric the pipeline never asks for is not fitted, for that one reason', () => {
    const ablation = pipeline('mc, tg, dap');
    const { y, x } = regressionMetrics(ablation, ['whatsup-b']);
    expect(regressionUnavailable(ablation, y, x)).toBe(
      'this pipeline asks no grounding prompts (prompts.tasks: mc, tg, dap), so no model has grounding:whatsup-b/subject; add grounding to prompts.tasks to fit it',
    );
    expect(regressionUnavailable(pipeline('grounding'), y, x)).toBe('this pipeline asks no tg or mc prompts (prompts.tasks: grounding), so no model has reasoning:whatsup-b:circular; add tg to prompts.tasks to fit it');
    expect(regressionUnavailable(pipeline('tg, grounding'), y, x)).toBeNull();
  });

  it('a prompt file names every reason it skipped items for, with the items, out of how many', () => {
    const skipped = [
      { item: 'b/mug_behind_plate', reason: 'subject not annotated (no box for it, so no depth)' },
      { item: 'b/mug_left_of_plate', reason: 'subject not annotated (no box for it, so no depth)' },
      { item: 'b/cup_front_of_box', reason: 'object not annotated (no box for it, so no depth)' },
    ];
    expect(skippedNotice('dap.jsonl', { items: 1, skipped })).toBe(
      'dap.jsonl: 3 of 4 items skipped (subject not annotated (no box for it, so no depth): b/mug_behind_plate, b/mug_left_of_plate; object not annotated (no box for it, so no depth): b/cup_front_of_box)',
    );
    const many = Array.from({ length: 5 }, (_, i) => ({ item: `i${i}`, reason: 'one-object item (DAP needs a subject and an object)' }));
    expect(skippedNotice('dap.jsonl', { items: 0, skipped: many })).toBe('dap.jsonl: 5 of 5 items skipped (one-object item (DAP needs a subject and an object): i0, i1, i2 and 2 more)');
  });
});
