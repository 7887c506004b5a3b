import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noncentralTPower, regressionPower, wilsonInterval } from '../../src/analysis/index.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';

// scipy.stats.nct values, computed once by test/analysis/fixtures/make-power-reference.py.
const ref = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'analysis', 'fixtures', 'power-scipy.json'), 'utf8')) as { cases: { df: number; ncp: number; alpha: number; power: number }[] };
const PAPER_GROUNDING = [9.7, 13.8, 14.1, 13.1, 15.3, 19.2, 21.1, 29.4];

describe('regression power', () => {
  it('exact power from the noncentral t matches scipy', () => {
    for (const c of ref.cases) expect(Math.abs(noncentralTPower(c.df, c.ncp, c.alpha) - c.power)).toBeLessThan(1e-8);
  });

  it('Wilson interval of 8 of 10 is [0.490, 0.943]', () => {
    const w = wilsonInterval(8, 10);
    expect(w.low).toBeCloseTo(0.49016, 5);
    expect(w.high).toBeCloseTo(0.94332, 5);
  });

  it('with no effect the false-positive rate is alpha within Monte-Carlo error', () => {
    for (const alpha of [0.05, 0.1]) {
      const r = regressionPower({ grounding: PAPER_GROUNDING, effect: 0, noise: 16.3, alpha, simulations: 20000, seed: 3 });
      const se = Math.sqrt((alpha * (1 - alpha)) / 20000);
      expect(Math.abs(r.power.estimate - alpha)).toBeLessThan(4 * se);
      expect(Math.abs(r.false_positive_rate.estimate - alpha)).toBeLessThan(4 * se);
      expect(r.false_positive_rate.low).toBeLessThan(alpha + 4 * se);
    }
  });

  it('Monte-Carlo power agrees with the exact noncentral-t power', () => {
    for (const effect of [1, 2, 3.665]) {
      const r = regressionPower({ grounding: PAPER_GROUNDING, effect, noise: 16.3, simulations: 20000, seed: 5 });
      const se = Math.sqrt((r.analytic_power! * (1 - r.analytic_power!)) / 20000);
      expect(Math.abs(r.power.estimate - r.analytic_power!)).toBeLessThan(4 * se);
      expect(r.mean_slope).toBeCloseTo(effect, 0);
    }
  });

  it('measurement error from item sampling attenuates the slope', () => {
    const r = regressionPower({ grounding: PAPER_GROUNDING, effect: 3, noise: 5, items: 100, simulations: 2000, seed: 1 });
    expect(r.analytic_power).toBeNull();
    expect(r.mean_slope).toBeLessThan(3);
    expect(r.mean_slope).toBeGreaterThan(1.5);
  });

  it('same seed, same answer; bad settings are errors', () => {
    const s = { grounding: [1, 2, 3, 4], effect: 1, noise: 1, simulations: 500, seed: 9 };
    expect(regressionPower(s)).toEqual(regressionPower(s));
    expect(() => regressionPower({ ...s, grounding: [1, 2] })).toThrow(/at least 3/);
    expect(() => regressionPower({ ...s, grounding: [2, 2, 2] })).toThrow(/must differ/);
    expect(() => regressionPower({ ...s, noise: -1 })).toThrow(/noise/);
  });

  it('gsr analyze power prints power and false-positive rate with intervals', { timeout: scaled(180_000) }, () => {
    const r = runCli(['analyze', 'power', '--models', '8', '--grounding', '9.7:29.4', '--effect', '2', '--noise', '16.3', '--simulations', '2000', '--json']);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.grounding).toHaveLength(8);
    expect(j.grounding[7]).toBeCloseTo(29.4, 10);
    for (const k of ['power', 'false_positive_rate']) expect(j[k].low).toBeLessThanOrEqual(j[k].estimate);
    expect(j.analytic_power).toBeGreaterThan(j.power.low - 0.05);
    const bad = runCli(['analyze', 'power', '--grounding', '9.7:29.4', '--effect', '2', '--noise', '1']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr.trim()).toBe('gsr: error: --grounding LOW:HIGH needs --models K (at least 3)');
  });
});
