/**
 * `gsr responses import`: other harnesses' answers into the run store (docs/interop.md). Three
 * sources: gsr's own JSONL (matched by key, or by item/task/rotation/role), VLMEvalKit prediction
 * files (matched by index, the prompt's position in the prompt file) and lmms-eval `--log_samples`
 * files (matched by doc_id, the same position, or by the prompt's text). Every record is accounted
 * for: matched, unmatched, duplicated or invalid, each problem named. Nothing is written until the
 * whole file is read, and an answer already stored exactly so is left alone, so a repeated import
 * changes nothing.
 */
import { readFile } from 'node:fs/promises';
import { parseLmmsSample, sampleOutput } from '../formats/lmms-eval.js';
import { promptText, readAnyPrompts, type AnyPrompt } from '../formats/prompts.js';
import { ImportedResponseSchema } from '../formats/responses.js';
import { parsePredictionRow, readVlmevalkitPredictions } from '../formats/vlmevalkit.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { parsePythonJson } from '../util/python-json.js';
import { storedPlace } from './runner.js';
import type { RunStore, StoredResponse } from './store.js';

import type { ImportSource, LmmsMatch } from './import-names.js';
export { IMPORT_SOURCES, LMMS_MATCH, type ImportSource, type LmmsMatch } from './import-names.js';

/** What VLMEvalKit writes as the prediction of a failed request (its FAIL_MSG, with or without " via API."). */
export const VLMEVALKIT_FAIL_MSG = 'Failed to obtain answer';

export interface ImportOptions {
  file: string;
  model: string;
  /** Prompt file. Needed for vlmevalkit and lmms-eval; for jsonl it checks keys and matches lines without one. */
  prompts?: string;
  /** Overwrite responses that are already ok. */
  replace?: boolean;
  from?: ImportSource;
  /** lmms-eval only (default doc-id). */
  match?: LmmsMatch;
  /** Stop at the first record that is invalid, unmatched or duplicated, writing nothing. */
  strict?: boolean;
}

export interface ImportSummary {
  model: string;
  settings_id: string;
  from: ImportSource;
  /** Records read (lines or rows), bad ones included. */
  records: number;
  /** Records matched to a prompt (the first of each duplicate). */
  matched: number;
  /** Rows written: new, a changed failed row, or replaced with --force. */
  imported: number;
  /** Already stored exactly so (a repeated import). */
  unchanged: number;
  /** A different ok answer is already stored and was kept (--force replaces it). */
  kept: number;
  /** Records that match no prompt (named in `problems`). */
  unmatched: number;
  /** Records for a prompt an earlier record of the file already answered (the first is kept). */
  duplicated: number;
  /** Matched records with an empty answer: stored ok and empty, so they score as unreadable answers. */
  empty: number;
  /** Matched records the harness marks failed: stored failed. */
  failed: number;
  /** Records that are not records (malformed JSON, a missing field). */
  invalid: number;
  /** Prompts of the prompt file that no record answers (null without a prompt file). */
  missing: number | null;
  /**
   * lmms-eval: matched samples whose answer a filter changed (`resps` beside `filtered_resps`); their
   * `resps` is the raw answer only when lmms-eval ran with `--reasoning_tags none`. Null for other sources.
   */
  filtered: number | null;
  /** Each invalid, unmatched and duplicated record, `file:record N: reason` (the first 100). */
  problems: string[];
}

/** How a record names its prompt. */
type Match =
  | { by: 'key'; key: string }
  | { by: 'place'; item: string; task?: string; rotation: number; role?: string }
  | { by: 'index'; index: number; key?: string }
  | { by: 'input'; text: string };

/** A record as its source reads it: where it is, and either why it is bad or what it says. */
type SourceRecord = { where: string } & (
  | { invalid: string }
  | { match: Match; output: string | null; status?: 'ok' | 'failed'; error?: string | null; fields?: Partial<StoredResponse>; filtered?: boolean }
);

const MAX_PROBLEMS = 100;

/** One position per record of a JSONL file (blank lines skipped); a line that is not JSON is an invalid record. */
async function* jsonLines(file: string, parse: (text: string) => unknown): AsyncGenerator<{ where: string; value: unknown } | { where: string; invalid: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GsrError(code === 'ENOENT' ? `file not found: ${file}` : `cannot read ${file}: ${code ?? errorMessage(err)}`);
  }
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const where = `${file}:${i + 1}`;
    try {
      yield { where, value: parse(lines[i]) };
    } catch {
      yield { where, invalid: 'malformed JSON' };
    }
  }
}

function firstIssue(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  return `${issue.path.map(String).join('.') || '(record)'}: ${issue.message}`;
}

/** gsr's own lines: key, or item/task/rotation/role; output; optional status and timings. */
async function* fromJsonl(file: string): AsyncGenerator<SourceRecord> {
  for await (const rec of jsonLines(file, JSON.parse)) {
    if ('invalid' in rec) {
      yield rec;
      continue;
    }
    const parsed = ImportedResponseSchema.safeParse(rec.value);
    if (!parsed.success) {
      yield { where: rec.where, invalid: firstIssue(parsed.error) };
      continue;
    }
    const r = parsed.data;
    const match: Match | undefined = r.key !== undefined ? { by: 'key', key: r.key } : r.item !== undefined ? { by: 'place', item: r.item, task: r.task, rotation: r.rotation ?? 0, role: r.role } : undefined;
    if (match === undefined) {
      yield { where: rec.where, invalid: 'key is missing (or give item, with --prompts)' };
      continue;
    }
    const status = r.status ?? (typeof r.output === 'string' ? 'ok' : 'failed');
    if (status === 'ok' && typeof r.output !== 'string') {
      yield { where: rec.where, invalid: 'status ok needs a string output' };
      continue;
    }
    yield {
      where: rec.where, match, output: r.output ?? null, status, error: r.error ?? null,
      fields: {
        attempts: r.attempts, latency_ms: r.latency_ms ?? undefined, started_at: r.started_at, finished_at: r.finished_at, item: r.item, split: r.split, task: r.task,
        permutation: r.permutation, role: r.role, rotation: r.rotation,
      },
    };
  }
}

/** VLMEvalKit prediction rows, matched by index (and checked by the key column we export). */
async function* fromVlmevalkit(file: string): AsyncGenerator<SourceRecord> {
  for (const row of await readVlmevalkitPredictions(file)) {
    const where = `${file}:row ${row.record}`;
    const r = parsePredictionRow(row.cells);
    if ('error' in r) {
      yield { where, invalid: r.error };
      continue;
    }
    const failed = r.prediction !== null && r.prediction.includes(VLMEVALKIT_FAIL_MSG);
    yield { where, match: { by: 'index', index: r.index, key: r.key }, output: failed ? '' : r.prediction, status: failed ? 'failed' : 'ok', error: failed ? `VLMEvalKit: ${r.prediction}` : null };
  }
}

/** lmms-eval samples: the raw answer (`resps`, else `filtered_resps`), matched by doc_id or text. */
async function* fromLmmsEval(file: string, match: LmmsMatch): AsyncGenerator<SourceRecord> {
  for await (const rec of jsonLines(file, parsePythonJson)) {
    if ('invalid' in rec) {
      yield rec;
      continue;
    }
    const parsed = parseLmmsSample(rec.value);
    if ('error' in parsed) {
      yield { where: rec.where, invalid: parsed.error };
      continue;
    }
    const s = parsed.sample;
    const out = sampleOutput(s);
    if ('error' in out) {
      yield { where: rec.where, invalid: out.error };
      continue;
    }
    if (match === 'input' && typeof s.input !== 'string') {
      yield { where: rec.where, invalid: 'no input text to match (use --match doc-id)' };
      continue;
    }
    const m: Match = match === 'input' ? { by: 'input', text: (s.input as string).trim() } : { by: 'index', index: s.doc_id };
    yield { where: `${rec.where} (doc_id ${s.doc_id})`, match: m, output: out.output, status: 'ok', error: null, filtered: out.filtered };
  }
}

function placeKey(item: string, task: string | undefined, rotation: number, role: string | undefined): string {
  return `${item}\u0000${task ?? ''}\u0000${rotation}\u0000${role ?? ''}`;
}

/** Look-ups from a prompt file: by key, by position, by place and by text (null: several prompts). */
class PromptIndex {
  readonly byKey = new Map<string, AnyPrompt>();
  readonly byPlace = new Map<string, AnyPrompt | null>();
  readonly byText = new Map<string, AnyPrompt | null>();
  constructor(readonly file: string, readonly list: AnyPrompt[]) {
    for (const p of list) {
      this.byKey.set(p.key, p);
      const place = storedPlace(p);
      for (const task of [p.task, undefined]) {
        const k = placeKey(p.item, task, place.rotation ?? 0, place.role ?? undefined);
        this.byPlace.set(k, this.byPlace.has(k) ? null : p);
      }
      const text = promptText(p).trim();
      this.byText.set(text, this.byText.has(text) ? null : p);
    }
  }

  /** The prompt a record names, or why there is none. */
  resolve(m: Match): AnyPrompt | string {
    switch (m.by) {
      case 'key':
        return this.byKey.get(m.key) ?? `key ${m.key} is not in ${this.file}`;
      case 'place':
        return this.byPlace.get(placeKey(m.item, m.task, m.rotation, m.role)) ?? `no single prompt in ${this.file} has item ${m.item}${m.task ? `, task ${m.task}` : ''}, rotation ${m.rotation}${m.role ? `, role ${m.role}` : ''}`;
      case 'index': {
        const p = this.list[m.index];
        if (p === undefined) return `index ${m.index} is past the last prompt of ${this.file} (${this.list.length} prompts, numbered from 0)`;
        if (m.key !== undefined && m.key !== p.key) return `index ${m.index} carries key ${m.key}, but prompt ${m.index} of ${this.file} has key ${p.key} (exported from another prompt file?)`;
        return p;
      }
      case 'input': {
        const p = this.byText.get(m.text);
        return p === undefined ? `no prompt of ${this.file} has this text` : p === null ? `several prompts of ${this.file} have this text (match by doc id instead)` : p;
      }
    }
  }
}

/**
 * Brings another harness's answers into the store under the model name, with settings
 * `{answerer: "import", model}`. Problems are counted and named; with `strict` the first one stops
 * the import before anything is written.
 */
export async function importResponses(store: RunStore, opts: ImportOptions): Promise<ImportSummary> {
  const from = opts.from ?? 'jsonl';
  if (from !== 'jsonl' && opts.prompts === undefined) throw new GsrError(`--from ${from} needs --prompts FILE: its records are matched by their place in that file`);
  const prompts = opts.prompts === undefined ? undefined : new PromptIndex(opts.prompts, await readAnyPrompts(opts.prompts));
  const sid = store.registerSettings({ answerer: 'import', model: opts.model });
  const summary: ImportSummary = {
    model: opts.model, settings_id: sid, from, records: 0, matched: 0, imported: 0, unchanged: 0, kept: 0,
    unmatched: 0, duplicated: 0, empty: 0, failed: 0, invalid: 0, missing: null, filtered: from === 'lmms-eval' ? 0 : null, problems: [],
  };
  const problem = (kind: 'invalid' | 'unmatched' | 'duplicated', where: string, reason: string) => {
    if (opts.strict) throw new GsrError(`${where}: ${reason} (--strict: nothing was imported)`);
    summary[kind]++;
    if (summary.problems.length < MAX_PROBLEMS) summary.problems.push(`${where}: ${kind}: ${reason}`);
  };
  const source = from === 'vlmevalkit' ? fromVlmevalkit(opts.file) : from === 'lmms-eval' ? fromLmmsEval(opts.file, opts.match ?? 'doc-id') : fromJsonl(opts.file);
  const rows = new Map<string, { row: StoredResponse; where: string }>();
  const now = new Date().toISOString();
  for await (const rec of source) {
    summary.records++;
    if ('invalid' in rec) {
      problem('invalid', rec.where, rec.invalid);
      continue;
    }
    let prompt: AnyPrompt | undefined;
    if (prompts !== undefined) {
      const found = prompts.resolve(rec.match);
      if (typeof found === 'string') {
        problem('unmatched', rec.where, found);
        continue;
      }
      prompt = found;
    }
    const key = prompt?.key ?? (rec.match.by === 'key' ? rec.match.key : undefined);
    const f = rec.fields ?? {};
    const item = prompt?.item ?? f.item;
    if (key === undefined || item === undefined) {
      problem('invalid', rec.where, key === undefined ? 'key is missing (give --prompts to match by item, task, rotation and role)' : 'item is missing');
      continue;
    }
    const first = rows.get(key);
    if (first !== undefined) {
      problem('duplicated', rec.where, `answers the same prompt as ${first.where} (the first is kept)`);
      continue;
    }
    summary.matched++;
    if (rec.filtered) summary.filtered!++;
    const status = rec.status ?? 'ok';
    const output = rec.output ?? '';
    if (status === 'failed') summary.failed++;
    else if (output === '') summary.empty++;
    const place = prompt !== undefined ? storedPlace(prompt) : { split: f.split ?? null, task: f.task ?? null, permutation: f.permutation ?? null, role: f.role ?? null, rotation: f.rotation ?? null };
    rows.set(key, {
      where: rec.where,
      row: {
        key, model: opts.model, settings: sid, status, output, error: rec.error ?? (status === 'failed' ? 'failed in the source harness' : null),
        attempts: f.attempts ?? 1, latency_ms: f.latency_ms ?? null, started_at: f.started_at ?? null, finished_at: f.finished_at ?? now,
        ...place, item, source: 'import',
      },
    });
  }
  if (prompts !== undefined) summary.missing = prompts.list.filter((p) => !rows.has(p.key)).length;
  const stored = new Map<string, StoredResponse>();
  for (const r of store.responses({ model: opts.model, settings: sid })) if (rows.has(r.key)) stored.set(r.key, r);
  store.transaction(() => {
    for (const { row } of rows.values()) {
      const old = stored.get(row.key);
      if (old !== undefined && old.status === row.status && old.output === row.output && old.error === row.error) summary.unchanged++;
      else if (store.commit(row, opts.replace === true)) summary.imported++;
      else summary.kept++;
    }
  });
  return summary;
}
