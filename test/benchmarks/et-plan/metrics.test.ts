import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupMetrics, lcsLength, metricRows, normaliseAction, occlusionTags, rowNotes, type EpisodeOutcome } from '../../../src/benchmarks/et-plan/metrics.js';
import { RELEASED_QUIRKS, metricMode, parseMetricSettings, type MetricQuirk } from '../../../src/benchmarks/et-plan/settings.js';

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

  it('released: the quirks of the released scripts, without failures-at-step-max', () => {
    const s = parseMetricSettings({ quirks: 'released' });
    expect([...s.quirks]).toEqual([...RELEASED_QUIRKS]);
    expect([...s.quirks]).toEqual(['drop-zero-distance', 'ratio-one-when-longer', 'failures-at-cap', 'distance-successes-only', 'distance-walks-only', 'occlusion-over-recorded']);
    expect(metricMode(s)).toBe('released');
    expect(metricMode(parseMetricSettings({ quirks: [...RELEASED_QUIRKS, 'failures-at-step-max'], occlusion_pool: 'pooled' }))).toBe('released+failures-at-step-max, pooled occlusion');
    expect(metricMode(parseMetricSettings({}))).toBe('clean');
    expect(metricMode(parseMetricSettings({ quirks: ['failures-at-cap', 'drop-zero-distance'] }))).toBe('drop-zero-distance+failures-at-cap');
    const r = groupMetrics(E, s.quirks, at);
    expect(r).toMatchObject({ n: 3, dropped: 1, success_rate: 2 / 3, sequence_length: (3 + 20 + 4) / 3, distance: 7.5 });
    expect(r.lcs_ratio).toBeCloseTo((1 + 0.5 + 1) / 3, 12);
  });

  it('an empty group has no values, and says why', () => {
    expect(groupMetrics([], q(), at)).toMatchObject({ n: 0, success_rate: null, success_low: null, sequence_length: null, distance: null, note: 'no episode' });
    // No success: no clean sequence length.
    expect(groupMetrics([E[1]], q(), at)).toMatchObject({ sequence_length: null, note: 'no successful episode: sequence length empty' });
    // Released: the script's average_distance divides by len([]) here; the row is empty and says so.
    const r = groupMetrics([E[1], E[2]], new Set(RELEASED_QUIRKS), at);
    expect(r).toMatchObject({ n: 1, dropped: 1, successes: 0, success_rate: 0, sequence_length: 20, distance: null });
    expect(r.note).toBe('no successful episode: moving distance empty (the released script divides by zero here)');
    expect(groupMetrics([E[2]], q('drop-zero-distance'), at).note).toBe('every episode dropped (zero distance)');
    expect(rowNotes([{ ...r, task: 'navigation' }])).toEqual(['m, navigation, all: no successful episode: moving distance empty (the released script divides by zero here)']);
  });

  it('failures at STEP_MAX = 40 in every family (the released script), not at the family cap', () => {
    // E2 (cap 20) and E3 (cap 40) fail: 40 each.
    expect(groupMetrics(E, q('failures-at-step-max'), at).sequence_length).toBe((3 + 40 + 40 + 4) / 4);
    expect(groupMetrics(E, q('failures-at-cap', 'failures-at-step-max'), at).sequence_length).toBe((3 + 40 + 40 + 4) / 4);
  });

  it('moving distance over [walk] lines only, as the released recorder sums it', () => {
    // The walk-only distances (calculate_distance_traversal) differ from the recorded ones where finds walked.
    const walks = [E[0], E[1], { ...E[2], distance: 3, walkDistance: 0 }, { ...E[3], walkDistance: 8 }];
    expect(groupMetrics(walks, q('distance-walks-only'), at).distance).toBe((5 + 7 + 0 + 8) / 4);
    expect(groupMetrics(walks, q(), at).distance).toBe((5 + 7 + 3 + 10) / 4);
    // traverse_distance == 0 is what the released scripts skip: the walk-only distance decides.
    expect(groupMetrics(walks, q('drop-zero-distance', 'distance-walks-only'), at)).toMatchObject({ n: 3, dropped: 1 });
    expect(groupMetrics(walks, q('drop-zero-distance'), at)).toMatchObject({ n: 4, dropped: 0 });
    // Unknown distances (a log without one) are left out of the mean and never dropped.
    expect(groupMetrics([{ ...E[0], distance: null }, E[1]], q('drop-zero-distance'), at)).toMatchObject({ n: 2, distance: 7 });
  });

  it('rows per family, per subset of a family, and over all episodes', () => {
    const rows = metricRows(E, q());
    expect(rows.map((r) => [r.task, r.subset, r.n])).toEqual([['navigation', 'all', 2], ['navigation', 'occlusion-size', 1], ['manipulation', 'all', 2], ['all', 'all', 4]]);
  });

  it('occlusion subsets recomputed per model over the tasks with a record, per family or pooled', () => {
    // Worked by hand with numpy's linear percentile: sizes 1..5 give p20 = 1 + 0.8 * (2 - 1) = 1.8, so
    // only size 1 is strictly below; distances 10..50 give p80 = 40 + 0.2 * 10 = 42, so only 50 is above.
    const fig = (i: number, task = 'navigation', recorded = true): EpisodeOutcome =>
      episode({ item: `i${i}`, task, recorded, success: false, actions: [], groundTruth: [W('kitchen', 1)], distance: 1, stepCap: 20, figures: { size: i, startDistance: 10 * i } });
    const five = [1, 2, 3, 4, 5].map((i) => fig(i));
    expect(occlusionTags(five, { pool: 'family', recordedOnly: true })).toEqual([['occlusion-size'], [], [], [], ['occlusion-distance']]);
    // Task 1 has no record: over sizes 2..5, p20 = 2.6 (size 2 below); distances 20..50, p80 = 44 (50 above).
    const missing = [fig(1, 'navigation', false), ...five.slice(1)];
    expect(occlusionTags(missing, { pool: 'family', recordedOnly: true })).toEqual([[], ['occlusion-size'], [], [], ['occlusion-distance']]);
    expect(occlusionTags(missing, { pool: 'family', recordedOnly: false })).toEqual([['occlusion-size'], [], [], [], ['occlusion-distance']]);
    // Two families: per family each has its own thresholds; pooled, sizes 1,2,3,4 | 5,6,7,8 give p20 = 2.4.
    const two = [1, 2, 3, 4].map((i) => fig(i)).concat([5, 6, 7, 8].map((i) => fig(i, 'manipulation')));
    expect(occlusionTags(two, { pool: 'family', recordedOnly: false }).map((t) => t.includes('occlusion-size'))).toEqual([true, false, false, false, true, false, false, false]);
    expect(occlusionTags(two, { pool: 'pooled', recordedOnly: false }).map((t) => t.includes('occlusion-size'))).toEqual([true, true, false, false, false, false, false, false]);
    // Models are separate: another model's records do not move the thresholds.
    expect(occlusionTags([...five, { ...fig(9), model: 'other' }], { pool: 'pooled', recordedOnly: true }).slice(0, 5)).toEqual(occlusionTags(five, { pool: 'pooled', recordedOnly: true }));
    // metricRows takes the recomputed subsets under occlusion-over-recorded (the generation's otherwise).
    const rows = metricRows(missing.map((e) => ({ ...e, subsets: ['occlusion-size'] })), q('occlusion-over-recorded'));
    expect(rows.map((r) => [r.subset, r.n])).toEqual([['all', 5], ['occlusion-distance', 1], ['occlusion-size', 1], ['all', 5]]);
    expect(metricRows(missing.map((e) => ({ ...e, subsets: ['occlusion-size'] })), q()).map((r) => [r.subset, r.n])).toEqual([['all', 5], ['occlusion-size', 5], ['all', 5]]);
  });

  it('bad quirk names are one-line errors', () => {
    expect(() => parseMetricSettings({ quirks: ['nope'] })).toThrow(/^et-plan metrics: quirks/);
    expect(() => parseMetricSettings({ occlusion_pool: 'all' })).toThrow(/^et-plan metrics: occlusion_pool/);
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
