/** SVAT tables and report section: accuracy with the z test against 50%, overall and by phi. */
import { svatRows, type SvatRow } from '../../analysis/svat.js';
import { vegaLiteToSvg } from '../../report/plots.js';
import type { ReportInput, ReportSection, ReportTable, ScoreCell } from '../types.js';
import type { SvatItem } from './spec.js';

export interface SvatAnalysis {
  rows: SvatRow[];
}

export const analyzeSvat = (cells: ScoreCell[]): SvatAnalysis => ({ rows: svatRows(cells) });

const pct = (x: number) => Math.round(x * 1000) / 10;
const r3 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);
const pFmt = (p: number) => (p < 1e-4 ? p.toExponential(1) : String(r3(p)));

function table(id: string, title: string, rows: SvatRow[], note?: string): ReportTable {
  return {
    id, title, columns: ['model', 'mode', 'group', 'n', 'accuracy %', 'z vs 50%', 'p (two-sided)'],
    rows: rows.map((r) => [r.model, r.mode, r.group, r.n, pct(r.accuracy), r3(r.z), pFmt(r.p)]),
    note,
  };
}

export function svatTables(cells: ScoreCell[], analysis?: unknown): ReportTable[] {
  const { rows } = (analysis as SvatAnalysis | undefined) ?? analyzeSvat(cells);
  return [
    table('svat-accuracy', 'SVAT: exact-match accuracy against chance', rows.filter((r) => r.group === 'all'),
      'z: one-sample z test of the accuracy against 50% (standard error from 50%); p two-sided.'),
    table('svat-phi', 'SVAT by difficulty phi = background / objects / M / text', rows.filter((r) => r.group.startsWith('phi='))),
    table('svat-factors', 'SVAT by each factor of phi, and by shots', rows.filter((r) => r.group !== 'all' && !r.group.startsWith('phi='))),
  ];
}

export async function svatSections(input: ReportInput<SvatItem>): Promise<ReportSection[]> {
  const { rows } = (input.analysis as SvatAnalysis | undefined) ?? analyzeSvat(input.cells);
  const values = rows.filter((r) => r.group.startsWith('phi=')).map((r) => ({ phi: r.group.slice(4), accuracy: r.accuracy, model: r.model }));
  if (values.length === 0) return [];
  const svg = await vegaLiteToSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json', title: 'SVAT accuracy by phi', width: 420, height: 220,
    data: { values },
    layer: [
      { mark: 'bar', encoding: { x: { field: 'phi', type: 'nominal', title: 'phi' }, xOffset: { field: 'model' }, y: { field: 'accuracy', type: 'quantitative', scale: { domain: [0, 1] } }, color: { field: 'model', type: 'nominal' } } },
      { mark: { type: 'rule', strokeDash: [4, 3] }, encoding: { y: { datum: 0.5 } } },
    ],
  });
  return [{ id: 'svat-phi-plot', title: 'Accuracy by phi (dashed: chance)', html: svg }];
}
