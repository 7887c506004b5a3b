import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proportionZTest } from '../../src/analysis/index.js';

type Num = number | 'inf' | '-inf' | 'nan';
const fixture = JSON.parse(readFileSync(join(new URL('.', import.meta.url).pathname, 'fixtures', 'ztest.json'), 'utf8')) as {
  cases: Array<{ successes: number; n: number; p0: number; null: { z: Num; p: Num }; sample: { z: Num; p: Num } }>;
};
const num = (x: Num) => (x === 'inf' ? Infinity : x === '-inf' ? -Infinity : x === 'nan' ? NaN : x);

function close(actual: number, expected: number) {
  if (!Number.isFinite(expected)) expect(actual).toBe(expected);
  else expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-12 + 1e-9 * Math.abs(expected));
}

describe('one-sample proportion z test against statsmodels (fixtures/make-ztest.py)', () => {
  it.each(fixture.cases)('$successes of $n against $p0', (c) => {
    for (const variance of ['null', 'sample'] as const) {
      const r = proportionZTest(c.successes, c.n, c.p0, { variance });
      close(r.z, num(c[variance].z));
      close(r.p, num(c[variance].p));
    }
  });

  it('defaults to the standard error under the null and refuses impossible counts', () => {
    expect(proportionZTest(60, 100, 0.5)).toEqual(proportionZTest(60, 100, 0.5, { variance: 'null' }));
    expect(() => proportionZTest(5, 4, 0.5)).toThrow('successes must be in [0, n]');
    expect(() => proportionZTest(1, 0, 0.5)).toThrow('n must be a positive integer');
    expect(() => proportionZTest(1, 4, 1)).toThrow('p0 must be in (0, 1)');
  });
});
