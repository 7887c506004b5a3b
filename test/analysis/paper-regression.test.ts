import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaveOneOut, regress, roundingSensitivity, simpleSlope, tableFromCsvs, withoutRow } from '../../src/analysis/index.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';

// statsmodels' values, computed once by test/analysis/fixtures/make-paper-regression.py.
interface Fit { models: string[]; params: number[]; bse: number[]; pvalues: number[]; rsquared: number; left_out?: string; leverage?: number[]; cooks_distance?: number[] }
const ref = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'analysis', 'fixtures', 'paper-regression-statsmodels.json'), 'utf8')) as { full: Fit; leave_one_out: Fit[] };
const TABLES = ['table1_tg_circular.csv', 'table2_gscore.csv'].map((f) => join(REPO_ROOT, 'data', 'paper', f));
const table = tableFromCsvs(TABLES.map((source) => ({ source, text: readFileSync(source, 'utf8') })), 'subset_a', ['a_subject'], 'model');

const close = (actual: number, expected: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
function sameFit(labels: string[], fit: ReturnType<typeof regress>, expected: Fit): void {
  expect(labels).toEqual(expected.models);
  fit.coefficients.forEach((c, j) => {
    close(c.estimate, expected.params[j]);
    close(c.se, expected.bse[j]);
    close(c.p, expected.pvalues[j]);
  });
  close(fit.r2, expected.rsquared);
}

describe("the paper's Figure 4 regression on its own Tables 1 and 2", () => {
  it('fits the 8 models with both rows as statsmodels does', () => {
    sameFit(table.labels, regress(table), ref.full);
  });

  it('leave-one-out slopes, p, leverage and Cook\'s distance match statsmodels', () => {
    const infl = leaveOneOut(table);
    infl.rows.forEach((row, i) => {
      const expected = ref.leave_one_out[i];
      expect(row.label).toBe(expected.left_out);
      sameFit(withoutRow(table, i).labels, regress(withoutRow(table, i)), expected);
      close(row.slope, expected.params[1]);
      close(row.p, expected.pvalues[1]);
      close(row.leverage, ref.full.leverage![i]);
      close(row.cooks_d, ref.full.cooks_distance![i]);
    });
  });

  it('the fit without LLaVA-NeXT-Qwen1.5-110B, alone, reaches slope 6.025 with p 0.007 within the rounding', () => {
    const hits = table.labels.filter((_, i) => {
      const sub = withoutRow(table, i);
      const r = roundingSensitivity(sub.x[0].values, sub.y.values, 0.05, 6.025);
      return r.at_target !== null && r.at_target.p.toFixed(3) === '0.007';
    });
    expect(hits).toEqual(['LLaVA-NeXT-Qwen1.5-110B']);
    const sub = withoutRow(table, table.labels.indexOf('LLaVA-NeXT-Qwen1.5-110B'));
    const r = roundingSensitivity(sub.x[0].values, sub.y.values, 0.05, 6.025);
    const t = r.at_target!;
    // The witness really is within the rounding and really gives the slope.
    t.x.forEach((v, i) => expect(Math.abs(v - sub.x[0].values[i])).toBeLessThanOrEqual(0.05 + 1e-12));
    t.y.forEach((v, i) => expect(Math.abs(v - sub.y.values[i])).toBeLessThanOrEqual(0.05 + 1e-12));
    expect(simpleSlope(t.x, t.y).slope).toBeCloseTo(6.025, 9);
  });

  it('the corner search finds the same slope range as trying all 2^14 corners', () => {
    const sub = withoutRow(table, 0);
    const [x, y] = [sub.x[0].values, sub.y.values];
    const r = roundingSensitivity(x, y, 0.05);
    let [lo, hi] = [Infinity, -Infinity];
    const n = x.length;
    for (let mask = 0; mask < 1 << (2 * n); mask++) {
      const s = (j: number) => ((mask >> j) & 1 ? 0.05 : -0.05);
      const { slope } = simpleSlope(x.map((v, i) => v + s(i)), y.map((v, i) => v + s(n + i)));
      lo = Math.min(lo, slope);
      hi = Math.max(hi, slope);
    }
    close(r.slope.low, lo);
    close(r.slope.high, hi);
  });

  it('gsr analyze regression --influence prints the leave-one-out table', { timeout: scaled(180_000) }, () => {
    const r = runCli(['analyze', 'regression', '--data', TABLES[0], '--data', TABLES[1], '--y', 'subset_a', '--x', 'a_subject', '--influence', '--rounding', '0.05', '--json']);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.n).toBe(8);
    const qwen = j.influence.rows.find((row: { label: string }) => row.label === 'LLaVA-NeXT-Qwen1.5-110B');
    expect(qwen.slope.toFixed(3)).toBe('6.039');
    expect(qwen.rounding.slope.low).toBeLessThan(6.025);
    expect(qwen.cooks_d).toBeGreaterThan(1);
    const plain = runCli(['analyze', 'regression', '--data', TABLES[0], '--data', TABLES[1], '--y', 'subset_a', '--x', 'a_subject', '--influence']);
    expect(plain.stdout).toMatch(/^LLaVA-NeXT-Qwen1\.5-110B\s+6\.039\s+0\.007\s+0\.793\s+3\.419\s+0\.708$/m);
    const old = runCli(['analyze', 'regression', '--data', TABLES[0], '--y', 'subset_a', '--x', 'coco_one', '--find-subset']);
    expect(old.status).not.toBe(0);
    expect(old.stderr).toMatch(/unknown option --find-subset\b/);
  });
});
