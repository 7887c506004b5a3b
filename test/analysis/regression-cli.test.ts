import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tableFromCsv, tableFromCsvs, regress, formatSummary } from '../../src/analysis/index.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { loadRegressionTable } from '../../src/analysis/index.js';

const DATA = join(REPO_ROOT, 'test', 'analysis', 'fixtures', 'regression-data.csv');
/** statsmodels and scipy on DATA (fixtures/make-regression-reference.py); stats.test.ts checks every figure. */
const REF = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'analysis', 'fixtures', 'regression-reference.json'), 'utf8'));
/** A number as the summary prints it (4 decimals), escaped for a RegExp. */
const printed = (v: number) => v.toFixed(4).replace(/[.-]/g, '\\$&');
const RESULTS = join(REPO_ROOT, 'test', 'report', 'fixtures', 'example-results');

describe('regression tables', () => {
  it('reads a CSV, skipping rows with missing cells and naming them', () => {
    const t = tableFromCsv('model,y,x\na,1,2\nb,,3\nc,2,4\nd,3,oops\ne,4,7\n', 'y', ['x']);
    expect(t.labels).toEqual(['a', 'c', 'e']);
    expect(t.skipped).toEqual([{ label: 'b', reason: 'y is empty' }, { label: 'd', reason: 'x is "oops"' }]);
    expect(() => tableFromCsv('model,y\na,1\n', 'y', ['x'], undefined, 'f.csv')).toThrow(/f.csv: no column "x"/);
  });

  it('joins several CSVs on the label column, qualifying a column two files share', () => {
    const a = { source: 'dir/a.csv', text: 'model,y,k\nm1,1,0\nm2,2,0\nm3,4,0\nonly-a,9,0\n' };
    const b = { source: 'b.csv', text: 'model,x,k\nm3,3,1\nm1,1,1\nm2,,1\n' };
    const t = tableFromCsvs([a, b], 'y', ['x'], 'model');
    expect(t.labels).toEqual(['m1', 'm3']);
    expect(t.y.values).toEqual([1, 4]);
    expect(t.x[0].values).toEqual([1, 3]);
    expect(t.skipped).toEqual([{ label: 'm2', reason: 'x is empty' }]);
    expect(() => tableFromCsvs([a, b], 'y', ['k'], 'model')).toThrow(/column "k" is in several files: write a:k or b:k/);
    expect(tableFromCsvs([a, b], 'a:k', ['b:k']).x[0].values).toEqual([1, 1, 1]);
    expect(() => tableFromCsvs([a, b], 'y', ['zz'])).toThrow(/no column "zz"/);
  });

  it('prints a statsmodels-like summary', () => {
    const text = formatSummary(regress(tableFromCsv(readFileSync(DATA, 'utf8'), 'y', ['x1', 'x2'])));
    const { params, bse, rsquared } = REF.multiple;
    expect(text).toMatch(new RegExp(`R-squared: ${printed(rsquared)} `));
    expect(text).toMatch(new RegExp(`^const\\s+${printed(params[0])}\\s+${printed(bse[0])}\\s`, 'm'));
    expect(text).toMatch(new RegExp(`^x2\\s+${printed(params[2])}\\s+${printed(bse[2])}\\s`, 'm'));
  });
});

describe('gsr analyze regression', () => {
  it('--data --json prints the fit as JSON only, and writes the plot', { timeout: 180_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-reg-'));
    const plot = join(dir, 'fit.svg');
    const r = runCli(['analyze', 'regression', '--data', DATA, '--y', 'y', '--x', 'x1', '--json', '--plot', plot, '--out', join(dir, 'a.json')]);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(expect.arrayContaining(['n', 'df_resid', 'coefficients', 'r2', 'adj_r2', 'f', 'f_p']));
    expect(j.n).toBe(REF.n);
    expect(j.coefficients.map((c: { name: string }) => c.name)).toEqual(['const', 'x1']);
    expect(j.coefficients[1].estimate).toBeCloseTo(REF.simple.params[1], 9);
    expect(j.coefficients[1].ci).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8')).n).toBe(REF.n);
    const svg = readFileSync(plot, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('obs-07');
  });

  it('--results regresses Subset A TG CircularEval on subject G-Score across models', { timeout: 180_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-reg-'));
    const png = join(dir, 'fit.png');
    const models = ['model-alpha', 'model-beta', 'model-gamma', 'model-delta'].map((m) => join(RESULTS, m));
    const r = runCli(['analyze', 'regression', '--results', ...models, '--plot', png]);
    expect(r.status).toBe(0);
    // Points (x, y): (0.875, 0.625), (0.625, 0.125), (0.125, 0.125): slope = Sxy / Sxx = (1/6) / (7/24) = 4/7.
    expect(r.stdout).toMatch(/^grounding:whatsup-a\/subject\s+0\.5714/m);
    expect(r.stdout).toContain('Observations: model-alpha, model-beta, model-gamma');
    expect(r.stdout).toContain('Skipped: model-delta (no grounding:whatsup-a/subject)');
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
  });

  it('bad input is one line naming the problem', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-reg-'));
    const bad = join(dir, 'two.csv');
    writeFileSync(bad, 'model,y,x\na,1,2\nb,2,3\n');
    const r = runCli(['analyze', 'regression', '--data', bad, '--y', 'y', '--x', 'x', '--json']);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toMatch(/^gsr: error: .*two\.csv: 2 usable rows, too few to fit 1 regressor\(s\)$/);
    const table = async (o: Parameters<typeof loadRegressionTable>[0]) => loadRegressionTable(o);
    await expect(table({ data: [join(dir, 'none.csv')], y: 'y', x: ['x'] })).rejects.toThrow(/cannot read .*none\.csv: ENOENT/);
    await expect(table({ data: [bad], y: 'nope', x: ['x'] })).rejects.toThrow(/two\.csv: no column "nope"/);
    await expect(table({ results: [RESULTS + '/model-alpha'], y: 'reasoning:whatsup-a' })).rejects.toThrow(/bad metric/);
    await expect(table({ data: [bad], results: [RESULTS] })).rejects.toThrow(/either --data/);
    await expect(table({ data: [bad], y: 'y' })).rejects.toThrow(/--x/);
  });

  it('analyze dap and analyze correlation print JSON', { timeout: 180_000 }, () => {
    const dap = runCli(['analyze', 'dap', '--results', RESULTS + '/model-alpha', '--json']);
    expect(dap.status).toBe(0);
    const rows = JSON.parse(dap.stdout) as { subset: string; n: number; mcnemar: { b: number; c: number; p: number } }[];
    const all = rows.find((r) => r.subset === 'all')!;
    // The example's DAP run fixes 2 of 4 items and breaks none: p = 2·P(X <= 0), X ~ Bin(2, 1/2) = 0.5.
    expect([all.n, all.mcnemar.b, all.mcnemar.c]).toEqual([4, 2, 0]);
    expect(all.mcnemar.p).toBeCloseTo(0.5, 14);
    const cor = runCli(['analyze', 'correlation', '--data', DATA, '--y', 'y', '--x', 'x1', '--json']);
    expect(cor.status).toBe(0);
    const c = JSON.parse(cor.stdout);
    expect(c.pearson.r).toBeCloseTo(REF.correlation.pearson.r, 9);
    expect(c.spearman.r).toBeCloseTo(REF.correlation.spearman.r, 9);
  });
});
