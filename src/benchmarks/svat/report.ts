/** SVAT tables and report section: accuracy tested against chance, overall and by phi (src/analysis/svat.ts). */
import { z } from 'zod';
import { SVAT_EXACT_BELOW, svatRows, type SvatRow } from '../../analysis/svat.js';
import { formatP } from '../../util/stats.js';
import { vegaLiteToSvg } from '../../report/plots.js';
import { GsrError } from '../../util/errors.js';
import type { ReportInput, ReportSection, ReportTable, ScoreCell } from '../types.js';
import type { SvatItem } from './spec.js';

/** The report's `analysis` settings for SVAT. */
export const SvatAnalysisSettingsSchema = z.strictObject({
  /** larger: better than chance, as the paper tests (default); two-sided: different from chance. */
  alternative: z.enum(['larger', 'two-sided']).default('larger'),
  /** The exact binomial test below this many prompts, the z test from there up. */
  exact_below: z.number().int().min(0).default(SVAT_EXACT_BELOW),
});
export type SvatAnalysisSettings = z.infer<typeof SvatAnalysisSettingsSchema>;

export interface SvatAnalysis {
  settings: SvatAnalysisSettings;
  rows: SvatRow[];
}

export function analyzeSvat(cells: ScoreCell[], raw?: unknown): SvatAnalysis {
  const r = SvatAnalysisSettingsSchema.safeParse(raw ?? {});
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new GsrError(`SVAT analysis settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
  }
  return { settings: r.data, rows: svatRows(cells, { alternative: r.data.alternative, exactBelow: r.data.exact_below }) };
}

const pct = (x: number) => Math.round(x * 1000) / 10;
const r3 = (x: number | null) => (x !== null && Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);

function table(id: string, title: string, a: SvatAnalysis, rows: SvatRow[], note?: string): ReportTable {
  const p = a.settings.alternative === 'larger' ? 'p (one-sided, > 50%)' : 'p (two-sided)';
  return {
    id, title, columns: ['model', 'mode', 'group', 'n', 'correct', 'invalid', 'failed', 'accuracy %', 'test', 'z', p],
    rows: rows.map((r) => [r.model, r.mode, r.group, r.n, r.correct, r.invalid, r.failed, pct(r.accuracy), r.test, r3(r.z), formatP(r.p)]),
    note,
  };
}

export function svatTables(cells: ScoreCell[], analysis?: unknown): ReportTable[] {
  const a = (analysis as SvatAnalysis | undefined) ?? analyzeSvat(cells);
  const { rows } = a;
  const side = a.settings.alternative === 'larger' ? 'one-sided (better than chance), as the paper tests' : 'two-sided';
  return [
    table('svat-accuracy', 'SVAT: exact-match accuracy against chance', a, rows.filter((r) => r.group === 'all'),
      `accuracy: correct / n, where n counts every prompt, so invalid answers (not in the judged form) and failed requests are wrong, as in the paper's exact match. ` +
      `test: z, a one-sample z test against 50% with the standard error from 50%, ${side}; exact, the exact binomial test, used below ${a.settings.exact_below} prompts.`),
    table('svat-phi', 'SVAT by difficulty phi = background / objects / M / text', a, rows.filter((r) => r.group.startsWith('phi='))),
    table('svat-factors', 'SVAT by each factor of phi, and by shots', a, rows.filter((r) => r.group !== 'all' && !r.group.startsWith('phi='))),
  ];
}

export async function svatSections(input: ReportInput<SvatItem>): Promise<ReportSection[]> {
  const { rows } = (input.analysis as SvatAnalysis | undefined) ?? analyzeSvat(input.cells);
  const values = rows.filter((r) => r.group.startsWith('phi=')).map((r) => ({ phi: r.group.slice(4), accuracy: r.accuracy, model: `${r.model} (${r.mode})` }));
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
