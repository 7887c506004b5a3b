import { parsePromptRecord, type PromptRecord } from '../formats/prompts.js';
import { ImportedResponseSchema, writeResponseFile, type ResponseRecord } from '../formats/responses.js';
import { GsrError } from '../util/errors.js';
import { readJsonl } from '../util/jsonl.js';
import type { RunStore, StoredResponse } from './store.js';

/** The exported line: a response record with the settings id it was made under. */
export type ExportedResponse = ResponseRecord & { settings: string };

/** Turns a stored row into the exported record. */
export function toResponseRecord(r: StoredResponse): ExportedResponse {
  const out: ExportedResponse = {
    key: r.key, model: r.model, settings: r.settings, output: r.output, status: r.status, error: r.error,
    attempts: r.attempts, latency_ms: r.latency_ms, item: r.item,
  };
  if (r.started_at !== null) out.started_at = r.started_at;
  if (r.finished_at !== null) out.finished_at = r.finished_at;
  if (r.split !== null) out.split = r.split;
  if (r.task !== null) out.task = r.task;
  if (r.permutation !== null) out.permutation = r.permutation;
  if (r.role !== null) out.role = r.role;
  if (r.rotation !== null) out.rotation = r.rotation;
  return out;
}

/**
 * Writes one line per stored response (atomically). Refuses to mix several settings of one model
 * (they would give two lines per prompt); name one with `settings`.
 */
export async function exportResponses(store: RunStore, opts: { out: string; model?: string; settings?: string }): Promise<{ out: string; lines: number; counts: Record<string, number> }> {
  if (opts.settings === undefined) {
    const byModel = new Map<string, string[]>();
    for (const s of store.listSettings(opts.model)) if (s.responses > 0) byModel.set(s.model, [...(byModel.get(s.model) ?? []), `${s.id} ${JSON.stringify(s.settings)}`]);
    for (const [model, ids] of byModel) {
      if (ids.length > 1) throw new GsrError(`${store.path}: model "${model}" has responses under ${ids.length} settings; choose one with --settings ID:\n  ${ids.join('\n  ')}`);
    }
    if (opts.model !== undefined && byModel.size === 0) throw new GsrError(`${store.path}: no responses for model "${opts.model}"`);
  }
  const counts: Record<string, number> = {};
  let lines = 0;
  await writeResponseFile(
    opts.out,
    (function* () {
      for (const r of store.responses({ model: opts.model, settings: opts.settings })) {
        counts[r.status] = (counts[r.status] ?? 0) + 1;
        lines++;
        yield toResponseRecord(r);
      }
    })(),
  );
  return { out: opts.out, lines, counts };
}

export interface ImportOptions {
  file: string;
  model: string;
  /** Prompt file: fills item/permutation/role from it and lets lines without `key` match by item + task + rotation + role. */
  prompts?: string;
  /** Overwrite responses that are already ok. */
  replace?: boolean;
}

export interface ImportSummary {
  model: string;
  settings_id: string;
  imported: number;
  /** Already answered ok in the store (kept; use --replace to overwrite). */
  kept: number;
  invalid: number;
  invalid_lines: string[];
}

function matchKey(item: string, task: string | undefined, rotation: number, role: string | undefined): string {
  return `${item}\u0000${task ?? ''}\u0000${rotation}\u0000${role ?? ''}`;
}

/**
 * Brings predictions made by another harness into the store under the model name, with settings
 * `{answerer: "import", model}`. Bad lines are reported (file:line and reason) and skipped.
 */
export async function importResponses(store: RunStore, opts: ImportOptions): Promise<ImportSummary> {
  const sid = store.registerSettings({ answerer: 'import', model: opts.model });
  const byKey = new Map<string, PromptRecord>();
  const byPlace = new Map<string, PromptRecord | null>(); // null: ambiguous
  if (opts.prompts !== undefined) {
    for await (const raw of readJsonl<unknown>(opts.prompts)) {
      const parsed = parsePromptRecord(raw);
      if ('error' in parsed) continue;
      const p = parsed.prompt;
      byKey.set(p.key, p);
      for (const task of [p.task, undefined]) {
        const k = matchKey(p.item, task, p.rotation, p.role);
        byPlace.set(k, byPlace.has(k) ? null : p);
      }
    }
  }
  const summary: ImportSummary = { model: opts.model, settings_id: sid, imported: 0, kept: 0, invalid: 0, invalid_lines: [] };
  const bad = (line: number, reason: string) => {
    summary.invalid++;
    if (summary.invalid_lines.length < 20) summary.invalid_lines.push(`${opts.file}:record ${line}: ${reason}`);
  };
  let batch: StoredResponse[] = [];
  const flush = () => {
    const rows = batch;
    batch = [];
    store.transaction(() => {
      for (const r of rows) {
        if (store.commit(r, opts.replace === true)) summary.imported++;
        else summary.kept++;
      }
    });
  };
  let line = 0;
  const now = new Date().toISOString();
  for await (const raw of readJsonl<unknown>(opts.file)) {
    line++;
    const parsed = ImportedResponseSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      bad(line, `${issue.path.join('.') || '(record)'}: ${issue.message}`);
      continue;
    }
    const r = parsed.data;
    let prompt: PromptRecord | undefined;
    if (opts.prompts !== undefined) {
      if (r.key !== undefined) prompt = byKey.get(r.key);
      else if (r.item !== undefined) prompt = byPlace.get(matchKey(r.item, r.task, r.rotation ?? 0, r.role)) ?? undefined;
      if (prompt === undefined) {
        bad(line, r.key !== undefined ? `key ${r.key} is not in ${opts.prompts}` : `no single prompt in ${opts.prompts} matches item/task/rotation/role`);
        continue;
      }
    } else if (r.key === undefined) {
      bad(line, 'key is missing (give --prompts to match by item, task, rotation and role)');
      continue;
    }
    const status = r.status ?? (typeof r.output === 'string' ? 'ok' : 'failed');
    if (status === 'ok' && typeof r.output !== 'string') {
      bad(line, 'status ok needs a string output');
      continue;
    }
    const item = prompt?.item ?? r.item;
    if (item === undefined) {
      bad(line, 'item is missing');
      continue;
    }
    batch.push({
      key: prompt?.key ?? r.key!, model: opts.model, settings: sid, status, output: r.output ?? '', error: r.error ?? (status === 'failed' ? 'failed in the source harness' : null),
      attempts: r.attempts ?? 1, latency_ms: r.latency_ms ?? null, started_at: r.started_at ?? null, finished_at: r.finished_at ?? now,
      item, split: prompt?.split ?? r.split ?? null, task: prompt?.task ?? r.task ?? null, permutation: prompt?.permutation ?? r.permutation ?? null,
      role: prompt?.role ?? r.role ?? null, rotation: prompt?.rotation ?? r.rotation ?? null, source: 'import',
    });
    if (batch.length >= 1000) flush();
  }
  flush();
  return summary;
}
