/** The short summary a finished pipeline prints: one row per model. Pure. */
import type { AnswerStageSummary } from './stages/answer.js';
import type { ScoreStageSummary } from './stages/score.js';

export interface SummaryRow {
  model: string;
  kind: string;
  tg: number | null;
  mc: number | null;
  dap: number | null;
  nodap: number | null;
  g_score: number | null;
  /** Grounding objects and the answers among them no rule could read, beside the G-Score. */
  g_objects: number | null;
  g_unparsed: number | null;
  /** Grounding objects without a pseudo-label (not scored). */
  g_no_label: number | null;
  failed: number;
}

export function summaryRows(answers: AnswerStageSummary | undefined, scores: ScoreStageSummary | undefined): SummaryRow[] {
  if (!scores) return [];
  return scores.models.map((s) => {
    const a = answers?.models.find((m) => m.name === s.name);
    const circ = (v: string) => s.reasoning[v]?.circular ?? null;
    const g = s.grounding ?? null;
    return { model: s.name, kind: a?.kind ?? '', tg: circ('tg'), mc: circ('mc'), dap: circ('dap'), nodap: circ('nodap'), g_score: s.g_score, g_objects: g?.objects ?? null, g_unparsed: g?.unparsed ?? null, g_no_label: g ? (g.no_label ?? 0) : null, failed: a?.failed ?? 0 };
  });
}

/** The score stage's warnings (more than 10% of a task's answers unparsed), in model order. */
export function summaryWarnings(scores: ScoreStageSummary | undefined): string[] {
  return scores?.models.flatMap((m) => m.warnings ?? []) ?? [];
}

/** Objects without a pseudo-label and what they do to the G-Score, once per distinct line (the models share the labels). */
export function summaryNotes(scores: ScoreStageSummary | undefined): string[] {
  return [...new Set(scores?.models.flatMap((m) => (m.grounding?.note ? [m.grounding.note] : [])) ?? [])];
}

const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)}`);

/** A fixed-width text table: CircularEval (%) per reasoning task, DAP with/without, Avg G-Score (%) with its unparsed answers and unlabelled objects. */
export function formatSummaryTable(rows: SummaryRow[]): string {
  const header = ['model', 'kind', 'TG circ', 'MC circ', 'DAP circ (no hint)', 'G-Score', 'unparsed', 'no label', 'failed'];
  const unparsed = (r: SummaryRow) => (r.g_unparsed === null || r.g_objects === null ? '-' : `${r.g_unparsed}/${r.g_objects}`);
  const body = rows.map((r) => [r.model, r.kind, pct(r.tg), pct(r.mc), r.dap === null ? '-' : `${pct(r.dap)} (${pct(r.nodap)})`, pct(r.g_score), unparsed(r), r.g_no_label === null ? '-' : String(r.g_no_label), String(r.failed)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** Items a stage could not do (item faults, docs/cli.md "Exit codes"): the pipeline then exits 3. */
export interface StageFailures {
  stage: string;
  failed: number;
  total: number;
  /** What an item is, plural: `images`, `photos`, `answers`. */
  unit: string;
  /** The first failures (`id: reason`), or per model for answers. */
  examples: string[];
}

/** The summaries {@link stageFailures} reads; each optional (a stage that did not run). */
export interface FailureSources {
  annotate?: { images: number; failed?: number; failures?: Array<{ item_id: string; error: string }> };
  photos?: { images: number; failed?: number; failures?: Array<{ item_id: string; error: string }> };
  answer?: { models: Array<{ name: string; prompts: number; failed: number; failures?: Record<string, number> }> };
}

/** The stages whose items failed, in stage order. Pure. */
export function stageFailures(s: FailureSources): StageFailures[] {
  const out: StageFailures[] = [];
  for (const [stage, unit, sum] of [['annotate', 'images', s.annotate], ['photos', 'photos', s.photos]] as const) {
    if (sum?.failed) out.push({ stage, failed: sum.failed, total: sum.images, unit, examples: (sum.failures ?? []).map((f) => `${f.item_id}: ${f.error}`) });
  }
  const models = s.answer?.models.filter((m) => m.failed > 0) ?? [];
  if (models.length > 0) {
    out.push({
      stage: 'answer',
      failed: models.reduce((n, m) => n + m.failed, 0),
      total: s.answer!.models.reduce((n, m) => n + m.prompts, 0),
      unit: 'answers',
      examples: models.map((m) => `${m.name}: ${m.failed} (${Object.entries(m.failures ?? {}).map(([why, n]) => `${why} ${n}`).join(', ')})`),
    });
  }
  return out;
}

/** The prompt files that cover fewer items than the manifest, one line each (what the prompts stage skipped). */
export function promptShortfalls(prompts: { counts: Record<string, { items: number; skipped: number }>; skipped_examples: Array<{ file: string; item: string; reason: string }> } | undefined): string[] {
  if (!prompts) return [];
  return Object.entries(prompts.counts).flatMap(([file, c]) => {
    if (c.skipped === 0) return [];
    const first = prompts.skipped_examples.find((e) => e.file === file);
    return [`prompts: ${file} covers ${c.items} of ${c.items + c.skipped} items (${c.skipped} skipped${first ? `; first: ${first.item}: ${first.reason}` : ''})`];
  });
}

/** One line per stage with failed items, for the summary and the report. */
export function failureLines(failures: StageFailures[]): string[] {
  return failures.map((f) => {
    const detail = f.stage === 'answer' ? f.examples.join('; ') : f.examples.length > 0 ? `first: ${f.examples[0]}` : '';
    return `${f.stage}: ${f.failed} of ${f.total} ${f.unit} failed${detail ? ` (${detail})` : ''}`;
  });
}

/** Every line of {@link failureLines} and {@link promptShortfalls}: what the summary and the report say about items left out. */
export function itemNotes(s: FailureSources & { prompts?: Parameters<typeof promptShortfalls>[0] }): string[] {
  return [...failureLines(stageFailures(s)), ...promptShortfalls(s.prompts)];
}
