import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupMetrics, lcsLength, metricRows, normaliseAction, type EpisodeOutcome } from '../../../src/benchmarks/et-plan/metrics.js';
import { METRIC_QUIRKS, parseMetricSettings, type MetricQuirk } from '../../../src/benchmarks/et-plan/settings.js';

// statsmodels' proportion_confint(method='wilson'), made by fixtures/make-wilson.py.
const wilson = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'wilson-statsmodels.json'), 'utf8')) as { cases: Array<{ hits: number; n: number; low: number; high: number }> };

const W = (n: string, id: number) => `[walk] <${n}> (${id})`;
const episode = (o: Partial<EpisodeOutcome> & Pick<EpisodeOutcome, 'success' | 'actions' | 'groundTruth' | 'distance' | 'stepCap'>): EpisodeOutcome => ({ model: 'm', item: 'i', task: 'navigation', subsets: [], ...o });

/**
 * Four episodes worked by hand (normalised strings in comments):
 * E1 success: walk kitchen, walk apple, grab apple vs gt + walk fridge: LCS 3, ratio 3/4, distance 5.
 * E2 failure: walk bedroom, walk kitchen vs walk kitchen, walk apple: LCS 1, ratio 1/2, distance 7.
 * E3 failure: nothing vs walk kitchen: LCS 0, ratio 0, distance 0, cap 40.
 * E4 success: walk kitchen, grab apple, walk fridge, putin apple fridge vs a 6-line gt: LCS 4, ratio 4/6, distance 10.
 */
const E = [
  episode({ success: true, actions: [W('kitchen', 1), W('apple', 21), '[grab] <apple> (21)'], groundTruth: [W('kitchen', 1), W('apple', 21), '[grab] <apple> (21)', W('fridge', 20)], distance: 5, stepCap: 20 }),
  episode({ success: false, actions: [W('bedroom', 3), W('kitchen', 1)], groundTruth: [W('kitchen', 1), W('apple', 22)], distance: 7, stepCap: 20, subsets: ['occlusion-size'] }),
  episode({ success: false, actions: [], groundTruth: [W('kitchen', 1)], distance: 0, stepCap: 40, task: 'manipulation' }),
  episode({
    success: true, task: 'manipulation', distance: 10, stepCap: 40,
    actions: [W('kitchen', 1), '[grab] <apple> (21)', W('fridge', 20), '[putin] <apple> (21) <fridge> (20)'],
    groundTruth: [W('kitchen', 1), W('apple', 21), '[grab] <apple> (21)', W('fridge', 20), '[open] <fridge> (20)', '[putin] <apple> (21) <fridge> (20)'],
  }),
];
const at = { model: 'm', task: 'all', subset: 'all' };
const q = (...names: MetricQuirk[]) => new Set(names);

describe('action strings and LCS', () => {
  it('normalises to the verb and the names, lower-case, ids and <char0> dropped', () => {
    expect(normaliseAction('[putin] <apple> (21) <fridge> (20)')).toBe('putin apple fridge');
    expect(normaliseAction('<char0> [walk] <kitchen> (205)')).toBe('walk kitchen');
    expect(normaliseAction('[Walk] <Kitchen Table> (3)')).toBe('walk kitchen table');
    expect(normaliseAction('[grab] <apple> (21)')).toBe(normaliseAction('[grab] <apple> (99)'));
  });

  it('LCS lengths', () => {
    expect(lcsLength(['a', 'b', 'c', 'd'], ['b', 'd', 'a'])).toBe(2);
    expect(lcsLength(['x'], [])).toBe(0);
    expect(lcsLength(['a', 'b', 'a'], ['a', 'a', 'b', 'a'])).toBe(3);
  });
});

describe('metrics on four hand-worked episodes', () => {
  it('clean definitions', () => {
    const r = groupMetrics(E, q(), at);
    expect(r).toMatchObject({ n: 4, dropped: 0, successes: 2, success_rate: 0.5, sequence_length: 3.5, lcs_length: 2, distance: 5.5 });
    expect(r.lcs_ratio).toBeCloseTo((0.75 + 0.5 + 0 + 4 / 6) / 4, 12);
    const w = wilson.cases.find((c) => c.hits === 2 && c.n === 4)!;
    expect(r.success_low).toBeCloseTo(w.low, 12);
    expect(r.success_high).toBeCloseTo(w.high, 12);
  });

  it('failures counted at the cap', () => {
    expect(groupMetrics(E, q('failures-at-cap'), at).sequence_length).toBe((3 + 20 + 40 + 4) / 4);
  });

  it('ratio 1 when the ground truth is longer', () => {
    // E1 (4 > 3), E3 (1 > 0), E4 (6 > 4) count 1; E2 (2 = 2) keeps 1/2.
    expect(groupMetrics(E, q('ratio-one-when-longer'), at).lcs_ratio).toBe((1 + 0.5 + 1 + 1) / 4);
  });

  it('distance over successes only', () => {
    expect(groupMetrics(E, q('distance-successes-only'), at).distance).toBe((5 + 10) / 2);
  });

  it('tasks with zero distance dropped from every metric', () => {
    const r = groupMetrics(E, q('drop-zero-distance'), at);
    expect(r).toMatchObject({ n: 3, dropped: 1, successes: 2, success_rate: 2 / 3, sequence_length: 3.5 });
    expect(r.lcs_length).toBeCloseTo(8 / 3, 12);
    expect(r.lcs_ratio).toBeCloseTo((0.75 + 0.5 + 4 / 6) / 3, 12);
    expect(r.distance).toBeCloseTo(22 / 3, 12);
    const w = wilson.cases.find((c) => c.hits === 2 && c.n === 3)!;
    expect(r.success_low).toBeCloseTo(w.low, 12);
  });

  it('released: all four quirks', () => {
    const s = parseMetricSettings({ quirks: 'released' });
    expect([...s.quirks]).toEqual([...METRIC_QUIRKS]);
    const r = groupMetrics(E, s.quirks, at);
    expect(r).toMatchObject({ n: 3, dropped: 1, success_rate: 2 / 3, sequence_length: (3 + 20 + 4) / 3, distance: 7.5 });
    expect(r.lcs_ratio).toBeCloseTo((1 + 0.5 + 1) / 3, 12);
  });

  it('an empty group has no values', () => {
    expect(groupMetrics([], q(), at)).toMatchObject({ n: 0, success_rate: null, success_low: null, sequence_length: null, distance: null });
    // No success: no clean sequence length.
    expect(groupMetrics([E[1]], q(), at).sequence_length).toBeNull();
  });

  it('rows per family, per subset of a family, and over all episodes', () => {
    const rows = metricRows(E, q());
    expect(rows.map((r) => [r.task, r.subset, r.n])).toEqual([['navigation', 'all', 2], ['navigation', 'occlusion-size', 1], ['manipulation', 'all', 2], ['all', 'all', 4]]);
  });

  it('bad quirk names are one-line errors', () => {
    expect(() => parseMetricSettings({ quirks: ['nope'] })).toThrow(/^et-plan metrics: quirks/);
  });
});

describe('Wilson intervals against statsmodels', () => {
  it.each(wilson.cases)('$hits of $n', (c) => {
    const outcomes = Array.from({ length: c.n }, (_, i) => episode({ success: i < c.hits, actions: [], groundTruth: [], distance: 1, stepCap: 1 }));
    const r = groupMetrics(outcomes, q(), at);
    expect(r.success_low).toBeCloseTo(c.low, 12);
    expect(r.success_high).toBeCloseTo(c.high, 12);
  });
});
