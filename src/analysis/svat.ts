/**
 * SVAT statistics: exact-match accuracy per model and mode, overall, per difficulty setting phi
 * (the cell level `I3/shape/M3/guide`), per factor of phi and per shot count, each with the
 * one-sample z test against chance (50%, standard error from p0; tests.ts proportionZTest).
 */
import type { CellLike } from './vsp.js';
import { proportionZTest } from './tests.js';

export interface SvatRow {
  model: string;
  mode: string;
  /** What the row pools: `all`, a phi, `background=I3`, `shots=4`, ... */
  group: string;
  n: number;
  correct: number;
  accuracy: number;
  z: number;
  p: number;
}

export const SVAT_CHANCE = 0.5;
export const PHI_FACTORS = ['background', 'objects', 'm', 'text'] as const;

/** The factors of a level string `I3/shape/M3/guide`. */
export function phiFactors(level: string): Record<(typeof PHI_FACTORS)[number], string> {
  const [background = '', objects = '', m = '', text = ''] = level.split('/');
  return { background, objects, m: m.replace(/^M/, ''), text };
}

function pool(model: string, mode: string, group: string, cells: readonly CellLike[]): SvatRow | null {
  const n = cells.reduce((s, c) => s + c.n, 0);
  if (n === 0) return null;
  const correct = cells.reduce((s, c) => s + c.credit, 0);
  const { z, p } = proportionZTest(correct, n, SVAT_CHANCE);
  return { model, mode, group, n, correct, accuracy: correct / n, z, p };
}

/** Rows per model and mode: `all`, then each phi, each factor value, each shot count. */
export function svatRows(cells: readonly CellLike[]): SvatRow[] {
  const rows: SvatRow[] = [];
  const keys = [...new Set(cells.map((c) => `${c.model}\0${c.mode}`))];
  for (const key of keys) {
    const [model, mode] = key.split('\0');
    const mine = cells.filter((c) => c.model === model && c.mode === mode);
    const groups = new Map<string, CellLike[]>([['all', mine]]);
    const add = (g: string, c: CellLike) => groups.set(g, [...(groups.get(g) ?? []), c]);
    for (const c of [...mine].sort((a, b) => a.level.localeCompare(b.level))) add(`phi=${c.level}`, c);
    for (const f of PHI_FACTORS) for (const c of mine) add(`${f}=${phiFactors(c.level)[f]}`, c);
    for (const c of mine) add(`shots=${c.variant.replace(/^k/, '')}`, c);
    for (const [g, cs] of groups) {
      const r = pool(model, mode, g, cs);
      if (r) rows.push(r);
    }
  }
  return rows;
}
