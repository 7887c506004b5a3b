/**
 * Regression exclusions: a model whose answers on the regression's x (grounding) or y (TG or MC
 * reasoning) are mostly unreadable is left out, with why, whichever side it is.
 */
import { describe, expect, it } from 'vitest';
import { tableFromResults, unreadableReasons, parseMetric } from '../../src/analysis/index.js';
import type { ModelResults } from '../../src/analysis/results-types.js';

/** A model with one split's CircularEval (`unparsed` of 40 prompts unreadable, `missing` of them never answered) and a subject G-Score over 20 objects. */
function model(name: string, o: { circular: number; unparsed?: number; missing?: number; task?: string; g: number; noBox?: number }): ModelResults {
  const split = { n: 10, prompts: 40, circular: o.circular, vanilla: o.circular, unparsed: o.unparsed ?? 0, missing: o.missing ?? 0 };
  const summary = { model: name, task: o.task ?? 'tg', splits: { 'whatsup-a': split }, total_average: { circular: o.circular, vanilla: o.circular } };
  return {
    model: name,
    dir: `/results/${name}`,
    // The pipeline's layout: the primary task at the root, each task in its subfolder.
    reasoning: [{ variant: '', summary, items: null }, ...['tg', 'mc'].map((variant) => ({ variant, summary: { ...summary, task: variant }, items: null }))],
    grounding: { model: name, columns: { 'whatsup-a/subject': { n: 20, accuracy: o.g, unparsed: o.noBox ?? 0, missing: 0 } }, avg_g_score: o.g },
    groundingOutcomes: null,
    warnings: [],
  };
}

const Y = 'reasoning:whatsup-a:circular';
const X = 'grounding:whatsup-a/subject';

describe('regression exclusions for unreadable answers, x or y', () => {
  const readable = [model('m1', { circular: 0.2, g: 0.1 }), model('m2', { circular: 0.5, g: 0.4 }), model('m3', { circular: 0.9, g: 0.8 })];

  it('an endpoint that answers "A" to every TG prompt (all unparsed, 0%) is left out, named with why', () => {
    const a = model('always-A', { circular: 0, unparsed: 40, g: 0.7 });
    const t = tableFromResults([...readable, a], Y, [X]);
    expect(t.labels).toEqual(['m1', 'm2', 'm3']);
    expect(t.skipped).toEqual([{ label: 'always-A', reason: 'no option read from 40 of 40 TG answers (40 unparsed, 0 missing)' }]);
  });

  it('MC answers too, on a variant, and missing answers count as unreadable', () => {
    const mc = model('mc-silent', { circular: 0, unparsed: 30, missing: 25, task: 'mc', g: 0.5 });
    const t = tableFromResults([...readable, mc], `${Y}:mc`, [X]);
    expect(t.skipped).toEqual([{ label: 'mc-silent', reason: 'no option read from 30 of 40 MC answers (5 unparsed, 25 missing)' }]);
  });

  it('both sides unreadable: both reasons, x first; grounding alone as before', () => {
    const both = model('gibberish', { circular: 0, unparsed: 40, g: 0, noBox: 20 });
    expect(unreadableReasons(both, [parseMetric(X), parseMetric(Y)])).toBe('no box read from 20 of 20 grounding answers (20 unparsed, 0 missing); no option read from 40 of 40 TG answers (40 unparsed, 0 missing)');
    const boxes = model('no-boxes', { circular: 0.4, g: 0, noBox: 15 });
    expect(tableFromResults([...readable, boxes], Y, [X]).skipped).toEqual([{ label: 'no-boxes', reason: 'no box read from 15 of 20 grounding answers (15 unparsed, 0 missing)' }]);
  });

  it('half unreadable is still a measurement (more than half is not)', () => {
    expect(tableFromResults([...readable, model('half', { circular: 0.1, unparsed: 20, g: 0.3 })], Y, [X]).skipped).toEqual([]);
    expect(tableFromResults([...readable, model('more', { circular: 0.1, unparsed: 21, g: 0.3 })], `reasoning:total:circular`, [X]).skipped.map((s) => s.label)).toEqual(['more']);
  });
});
