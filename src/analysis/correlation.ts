import { tTwoSidedP } from './ols.js';

/** A correlation coefficient with its two-sided p-value (t test on n - 2 degrees of freedom). */
export interface Correlation {
  r: number;
  p: number;
  n: number;
}

function check(x: number[], y: number[]): void {
  if (x.length !== y.length) throw new RangeError(`correlation: x has ${x.length} values, y has ${y.length}`);
  if (x.length < 3) throw new RangeError('correlation: needs at least 3 pairs');
}

/** Pearson's r; p from t = r·sqrt((n-2)/(1-r²)), as R's cor.test and scipy's pearsonr. */
export function pearson(x: number[], y: number[]): Correlation {
  check(x, y);
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  if (sxx === 0 || syy === 0) throw new RangeError('correlation: a variable is constant');
  const r = Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
  const p = Math.abs(r) === 1 ? 0 : tTwoSidedP(r * Math.sqrt((n - 2) / (1 - r * r)), n - 2);
  return { r, p, n };
}

/** Ranks starting at 1, ties sharing their average rank. */
export function averageRanks(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[order[k][1]] = rank;
    i = j + 1;
  }
  return ranks;
}

/** Spearman's rho (Pearson on average ranks); p by the t approximation, as scipy's spearmanr. */
export function spearman(x: number[], y: number[]): Correlation {
  check(x, y);
  return pearson(averageRanks(x), averageRanks(y));
}
