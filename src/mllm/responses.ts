import { writeResponseFile, type ResponseRecord } from '../formats/responses.js';
import { GsrError } from '../util/errors.js';
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
