import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binomialTest, formatP, proportionZTest } from '../../src/analysis/index.js';
import { svatRows, svatTest } from '../../src/analysis/svat.js';

type Num = number | 'inf' | '-inf' | 'nan';
const fixture = JSON.parse(readFileSync(join(new URL('.', import.meta.url).pathname, 'fixtures', 'ztest.json'), 'utf8')) as {
  cases: Array<{ successes: number; n: number; p0: number; null: { z: Num; p: Num; p_larger: Num }; sample: { z: Num; p: Num }; binomial: { p: Num; p_greater: Num } }>;
};
const num = (x: Num) => (x === 'inf' ? Infinity : x === '-inf' ? -Infinity : x === 'nan' ? NaN : x);

function close(actual: number, expected: number) {
  if (!Number.isFinite(expected)) expect(actual).toBe(expected);
  else expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-12 + 1e-9 * Math.abs(expected));
}

describe('one-sample proportion z test against statsmodels, exact binomial against scipy (fixtures/make-ztest.py)', () => {
  it.each(fixture.cases)('$successes of $n against $p0', (c) => {
    for (const variance of ['null', 'sample'] as const) {
      const r = proportionZTest(c.successes, c.n, c.p0, { variance });
      close(r.z, num(c[variance].z));
      close(r.p, num(c[variance].p));
    }
    close(proportionZTest(c.successes, c.n, c.p0, { alternative: 'larger' }).p, num(c.null.p_larger));
    const b = binomialTest(c.successes, c.n, c.p0);
    close(b.p, num(c.binomial.p));
    close(b.p_greater, num(c.binomial.p_greater));
  });

  it('defaults to the standard error under the null and refuses impossible counts', () => {
    expect(proportionZTest(60, 100, 0.5)).toEqual(proportionZTest(60, 100, 0.5, { variance: 'null' }));
    expect(() => proportionZTest(5, 4, 0.5)).toThrow('successes must be in [0, n]');
    expect(() => proportionZTest(1, 0, 0.5)).toThrow('n must be a positive integer');
    expect(() => proportionZTest(1, 4, 1)).toThrow('p0 must be in (0, 1)');
  });
});

describe('SVAT against chance (src/analysis/svat.ts)', () => {
  it("reproduces the paper's threshold: 52.7% at n = 1,000 is significant one-sided, 52.6% is not", () => {
    expect(svatTest(527, 1000)).toMatchObject({ test: 'z' });
    expect(svatTest(527, 1000).p).toBeLessThan(0.05);
    expect(svatTest(526, 1000).p).toBeGreaterThanOrEqual(0.05);
    // A two-sided test would need 53.1%.
    expect(svatTest(531, 1000, { alternative: 'two-sided' }).p).toBeLessThan(0.05);
    expect(svatTest(530, 1000, { alternative: 'two-sided' }).p).toBeGreaterThanOrEqual(0.05);
    expect(svatTest(527, 1000, { alternative: 'two-sided' }).p).toBeGreaterThanOrEqual(0.05);
  });

  it('uses the exact binomial test for small n: 4 of 4 is p = 0.0625 one-sided, 0.125 two-sided, not the z test\'s 0.023 or 0.046', () => {
    expect(svatTest(4, 4)).toMatchObject({ test: 'exact', z: null });
    expect(svatTest(4, 4).p).toBeCloseTo(0.0625, 14);
    expect(svatTest(4, 4, { alternative: 'two-sided' }).p).toBeCloseTo(0.125, 14);
    expect(svatTest(99, 99).test).toBe('exact');
    expect(svatTest(60, 100).test).toBe('z');
    expect(svatTest(60, 100, { exactBelow: 101 }).test).toBe('exact');
  });

  it('counts invalid and failed answers in n, as wrong, and shows them; all-invalid is not below-chance news', () => {
    const cells = [{ model: 'm', mode: 'exact', task: 'svat', level: 'I1/shape/M1/none', variant: 'k4', n: 240, credit: 0, invalid: 230, failed: 10 }];
    const [all] = svatRows(cells);
    expect(all).toMatchObject({ group: 'all', n: 240, correct: 0, invalid: 230, failed: 10, accuracy: 0, test: 'z' });
    expect(all.p).toBeGreaterThan(0.99); // one-sided: no evidence of doing better than chance
    expect(svatRows(cells, { alternative: 'two-sided' })[0].p).toBeLessThan(1e-16);
  });

  it('prints p-values without ever reading 0', () => {
    expect(formatP(0)).toBe('< 1e-16');
    expect(formatP(proportionZTest(1000, 1000, 0.5).p)).toBe('< 1e-16');
    expect(formatP(3.2e-9)).toBe('3.2e-9');
    expect(formatP(0.0438525)).toBe('0.044');
    expect(formatP(0.5)).toBe('0.500');
    expect(formatP(NaN)).toBe('n/a');
  });
});
