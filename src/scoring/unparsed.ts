/**
 * Counting answers no rule could read, and the warning every summary gives when there are many
 * (docs/scoring.md, "Unparsed answers"). Pure.
 */
import type { GroundingResult } from './grounding.js';
import type { ReasoningResult } from './reasoning-types.js';

/** Above this share of unparsed answers a model's figures are flagged (summary, stderr). */
export const UNPARSED_WARN_SHARE = 0.1;

/** Answers of one task: how many were asked, received and unreadable, and why. */
export interface UnparsedCount {
  /** Prompts (reasoning) or annotated objects (grounding). */
  total: number;
  /** Answers received that no rule could read. */
  unparsed: number;
  /** No answer: never asked, or the request failed. */
  missing: number;
  /** Unparsed answers by reason. */
  reasons: Record<string, number>;
}

/**
 * Labelled objects, and those whose answer gave no box (unparsed) or never came (missing), over grounding
 * columns as grounding.json holds them; `no_label`: the objects without a label (not scored).
 */
export function countNoBox(columns: Iterable<{ n: number; unparsed?: number; missing?: number; no_label?: number }>): { total: number; unparsed: number; missing: number; no_label: number } {
  const c = { total: 0, unparsed: 0, missing: 0, no_label: 0 };
  for (const col of columns) {
    c.total += col.n;
    c.unparsed += col.unparsed ?? 0;
    c.missing += col.missing ?? 0;
    c.no_label += col.no_label ?? 0;
  }
  return c;
}

export function groundingUnparsed(g: Pick<GroundingResult, 'columns' | 'unparsed_reasons'>): UnparsedCount & { no_label: number } {
  const reasons = Object.fromEntries(Object.entries(g.unparsed_reasons).filter(([k]) => k !== 'missing' && k !== 'failed'));
  return { ...countNoBox(Object.values(g.columns)), reasons };
}

export function reasoningUnparsed(r: Pick<ReasoningResult, 'splits'>, items: ReadonlyArray<{ status: string; reason: string | null }>): UnparsedCount {
  let total = 0;
  let all = 0;
  let missing = 0;
  for (const c of Object.values(r.splits)) {
    total += c.prompts;
    all += c.unparsed;
    missing += c.missing;
  }
  const reasons: Record<string, number> = {};
  for (const i of items) if (i.status === 'unparsed') reasons[i.reason ?? 'unparsed'] = (reasons[i.reason ?? 'unparsed'] ?? 0) + 1;
  // Reasoning's `unparsed` counts missing answers too (docs/scoring.md, "Semantics").
  return { total, unparsed: all - missing, missing, reasons };
}

/** The warning for `what` (e.g. `grounding`) when more than UNPARSED_WARN_SHARE of its answers are unparsed, else null. */
export function unparsedWarning(model: string, what: string, c: UnparsedCount): string | null {
  if (c.total === 0 || c.unparsed / c.total <= UNPARSED_WARN_SHARE) return null;
  const top = Object.entries(c.reasons)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([k, n]) => `${n} ${k.length > 80 ? `${k.slice(0, 77)}...` : k}`)
    .join('; ');
  const hint = what === 'grounding' ? ': check its box format (docs/scoring.md, "Box formats")' : '';
  return `${model}: ${c.unparsed} of ${c.total} ${what} answers unparsed (${(100 * c.unparsed / c.total).toFixed(0)}%; ${top}), counted as wrong${hint}`;
}

/**
 * The line every G-Score summary gives when objects have no label (docs/scoring.md, "Semantics"): how
 * many, in which columns, and the columns that leave Avg G-Score undefined; null when every object has one.
 */
export function noLabelNote(g: { columns: Record<string, { n: number; no_label?: number }>; unscored_columns?: readonly string[] }): string | null {
  const cols = Object.entries(g.columns).filter(([, c]) => (c.no_label ?? 0) > 0);
  const unscored = g.unscored_columns ?? [];
  if (cols.length === 0 && unscored.length === 0) return null;
  const { total, no_label: none } = countNoBox(Object.values(g.columns));
  const parts = [`${none} of ${total + none} objects have no pseudo-label and are not scored (${cols.map(([k, c]) => `${k} ${c.no_label}`).join(', ')})`];
  if (unscored.length > 0) parts.push(`Avg G-Score not computed: ${unscored.join(', ')} ${unscored.length === 1 ? 'has' : 'have'} no labelled object`);
  return parts.join('; ');
}
