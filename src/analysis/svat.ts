/**
 * SVAT statistics: exact-match accuracy per model and mode, overall, per difficulty setting phi
 * (the cell level `I3/shape/M3/guide`), per factor of phi and per shot count, each tested against
 * chance (50%) as the paper tests it (Section 3.1): a one-sample z test with the standard error from
 * 0.5, one-sided (better than chance). Every prompt counts in n, so an invalid or failed answer is a
 * wrong one, as in the paper's exact-match accuracy; the counts are reported beside. Below
 * `exactBelow` items the normal approximation is poor, so the exact binomial test is used instead.
 */
import type { CellLike } from './vsp.js';
import { binomialTest, proportionZTest } from './tests.js';

export interface SvatRow {
  model: string;
  mode: string;
  /** What the row pools: `all`, a phi, `background=I3`, `shots=4`, ... */
  group: string;
  /** Prompts, answered or not. */
  n: number;
  correct: number;
  /** Answers not in the judged form (wrong; counted in n). */
  invalid: number;
  /** Failed requests or missing answers (wrong; counted in n). */
  failed: number;
  accuracy: number;
  /** `z` (the paper's) or `exact` (the binomial test, for n below `exactBelow`). */
  test: 'z' | 'exact';
  /** The z statistic (null under the exact test). */
  z: number | null;
  p: number;
}

export interface SvatTestOptions {
  /** `larger` (default: better than chance, as the paper tests) or `two-sided`. */
  alternative?: 'larger' | 'two-sided';
  /** Use the exact binomial test below this many prompts (default 100). */
  exactBelow?: number;
}

/** A score cell with its invalid and failed counts (absent: none). */
export type SvatCell = CellLike & { invalid?: number; failed?: number };

export const SVAT_CHANCE = 0.5;
export const SVAT_EXACT_BELOW = 100;
export const PHI_FACTORS = ['background', 'objects', 'm', 'text'] as const;

/** The factors of a level string `I3/shape/M3/guide`. */
export function phiFactors(level: string): Record<(typeof PHI_FACTORS)[number], string> {
  const [background = '', objects = '', m = '', text = ''] = level.split('/');
  return { background, objects, m: m.replace(/^M/, ''), text };
}

/** Accuracy against chance: the z test from `exactBelow` prompts up, the exact binomial test below. */
export function svatTest(correct: number, n: number, options: SvatTestOptions = {}): Pick<SvatRow, 'test' | 'z' | 'p'> {
  const alternative = options.alternative ?? 'larger';
  if (n < (options.exactBelow ?? SVAT_EXACT_BELOW)) {
    const b = binomialTest(correct, n, SVAT_CHANCE);
    return { test: 'exact', z: null, p: alternative === 'larger' ? b.p_greater : b.p };
  }
  return { test: 'z', ...proportionZTest(correct, n, SVAT_CHANCE, { alternative }) };
}

function pool(model: string, mode: string, group: string, cells: readonly SvatCell[], options: SvatTestOptions): SvatRow | null {
  const sum = (f: (c: SvatCell) => number) => cells.reduce((s, c) => s + f(c), 0);
  const n = sum((c) => c.n);
  if (n === 0) return null;
  const correct = sum((c) => c.credit);
  return { model, mode, group, n, correct, invalid: sum((c) => c.invalid ?? 0), failed: sum((c) => c.failed ?? 0), accuracy: correct / n, ...svatTest(correct, n, options) };
}

/** Rows per model and mode: `all`, then each phi, each factor value, each shot count. */
export function svatRows(cells: readonly SvatCell[], options: SvatTestOptions = {}): SvatRow[] {
  const rows: SvatRow[] = [];
  const keys = [...new Set(cells.map((c) => `${c.model}\0${c.mode}`))];
  for (const key of keys) {
    const [model, mode] = key.split('\0');
    const mine = cells.filter((c) => c.model === model && c.mode === mode);
    const groups = new Map<string, SvatCell[]>([['all', mine]]);
    const add = (g: string, c: SvatCell) => groups.set(g, [...(groups.get(g) ?? []), c]);
    for (const c of [...mine].sort((a, b) => a.level.localeCompare(b.level))) add(`phi=${c.level}`, c);
    for (const f of PHI_FACTORS) for (const c of mine) add(`${f}=${phiFactors(c.level)[f]}`, c);
    for (const c of mine) add(`shots=${/^k(\d+)/.exec(c.variant)?.[1] ?? c.variant}`, c);
    for (const [g, cs] of groups) {
      const r = pool(model, mode, g, cs, options);
      if (r) rows.push(r);
    }
  }
  return rows;
}
