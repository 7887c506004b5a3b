import type { BenchItem } from '../formats/bench-item.js';
import type { BenchPrompt } from '../formats/chat-prompt.js';
import type { EpisodeRecord } from '../formats/episodes.js';
import { unparsedWarning, type UnparsedCount } from '../scoring/unparsed.js';
import { errorMessage } from '../util/errors.js';
import type { Benchmark, Judgement, ScoreCell, ScoredResponse } from './types.js';

/** The response fields scoring needs (a line of responses.jsonl). */
export interface ResponseLike {
  key: string;
  model: string;
  output: string;
  status: 'ok' | 'failed';
}

/**
 * The longest output a judge reads: its first 100,000 characters (some 25,000 tokens, past any
 * model's answer within its token limit). Judges read model text with work that grows with its
 * length; the bound keeps one call well under a second whatever an endpoint sends back
 * (test/security/fuzz.test.ts).
 */
export const JUDGED_CHARS = 100_000;

/** Judges one output through its plug-in, on its first {@link JUDGED_CHARS} characters; every caller scores through here. */
export function judgeOutput<I extends BenchItem>(benchmark: Benchmark<I>, item: I, prompt: BenchPrompt, output: string, mode: string): Judgement {
  return benchmark.judge(item, prompt, output.length > JUDGED_CHARS ? output.slice(0, JUDGED_CHARS) : output, mode);
}

/**
 * Judges every prompt's response for one model in each mode. A prompt without a response, or
 * whose request failed, is scored wrong (status says which); a judge that throws counts the answer
 * invalid, so one bad output never stops the rest.
 */
export function scoreResponses<I extends BenchItem>(benchmark: Benchmark<I>, items: ReadonlyMap<string, I>, prompts: readonly BenchPrompt[], model: string, responses: Iterable<ResponseLike>, modes: readonly string[] = benchmark.modes): ScoredResponse[] {
  const byKey = new Map<string, ResponseLike>();
  for (const r of responses) if (r.model === model) byKey.set(r.key, r);
  const out: ScoredResponse[] = [];
  for (const mode of modes) {
    for (const p of prompts) {
      const base = { key: p.key, item: p.item, task: p.task, level: p.level, variant: p.variant, model, mode };
      const r = byKey.get(p.key);
      const item = items.get(p.item);
      if (r === undefined || r.status !== 'ok' || item === undefined) {
        out.push({ ...base, status: r === undefined ? 'missing' : r.status === 'ok' ? 'missing' : 'failed', valid: false, correct: false, credit: 0, reason: item === undefined ? 'item not in the items file' : undefined });
        continue;
      }
      try {
        const j = judgeOutput(benchmark, item, p, r.output, mode);
        const scored: ScoredResponse = { ...base, status: 'ok', valid: j.valid, correct: j.correct, credit: j.credit ?? (j.correct ? 1 : 0), extracted: j.extracted, reason: j.reason };
        if (j.scriptInvalid !== undefined) scored.scriptInvalid = j.scriptInvalid;
        out.push(scored);
      } catch (err) {
        out.push({ ...base, status: 'ok', valid: false, correct: false, credit: 0, reason: `judge failed: ${errorMessage(err)}` });
      }
    }
  }
  return out;
}

/** Sums scored responses into (model, mode, task, level, variant) cells, in first-seen order. */
export function scoreCells(scored: Iterable<ScoredResponse>): ScoreCell[] {
  const cells = new Map<string, ScoreCell>();
  for (const s of scored) {
    const id = [s.model, s.mode, s.task, s.level, s.variant].join('\0');
    let c = cells.get(id);
    if (c === undefined) cells.set(id, (c = { model: s.model, mode: s.mode, task: s.task, level: s.level, variant: s.variant, n: 0, correct: 0, invalid: 0, failed: 0, credit: 0, accuracy: 0 }));
    c.n++;
    if (s.correct) c.correct++;
    c.credit += s.credit;
    if (s.status !== 'ok') c.failed++;
    else if (!s.valid) c.invalid++;
    if (s.status === 'ok' && s.scriptInvalid !== undefined) c.scriptInvalid = (c.scriptInvalid ?? 0) + (s.scriptInvalid ? 1 : 0);
  }
  for (const c of cells.values()) c.accuracy = c.n === 0 ? 0 : c.credit / c.n;
  return [...cells.values()];
}

function countInto(counts: Map<string, UnparsedCount>, model: string, outcome: 'ok' | 'unparsed' | 'missing', reason?: string | null): void {
  let c = counts.get(model);
  if (c === undefined) counts.set(model, (c = { total: 0, unparsed: 0, missing: 0, reasons: {} }));
  c.total++;
  if (outcome === 'missing') c.missing++;
  if (outcome !== 'unparsed') return;
  c.unparsed++;
  const why = reason ?? 'unparsed';
  c.reasons[why] = (c.reasons[why] ?? 0) + 1;
}

/** Per model, its answers in the first mode scored: received but invalid (unparsed), or never received (missing). */
export function scoredUnparsed(scored: Iterable<ScoredResponse>): Map<string, UnparsedCount> {
  const counts = new Map<string, UnparsedCount>();
  const firstMode = new Map<string, string>();
  for (const s of scored) {
    if (!firstMode.has(s.model)) firstMode.set(s.model, s.mode);
    if (firstMode.get(s.model) !== s.mode) continue;
    countInto(counts, s.model, s.status !== 'ok' ? 'missing' : s.valid ? 'ok' : 'unparsed', s.reason);
  }
  return counts;
}

/** Per model, the episode steps a model answered (baselines' steps left out) and those whose reply gave no action. */
export function episodeUnparsed(episodes: ReadonlyMap<string, readonly EpisodeRecord[]>): Map<string, UnparsedCount> {
  const counts = new Map<string, UnparsedCount>();
  for (const records of episodes.values()) {
    for (const r of records) for (const st of r.steps) if (st.key !== null) countInto(counts, r.model, st.action === null ? 'unparsed' : 'ok', st.error);
  }
  return counts;
}

/**
 * A plug-in's warnings for models whose answers are mostly unreadable: the rule, threshold and wording
 * of the What'sUp path (scoring/unparsed.ts; docs/scoring.md, "Unparsed answers").
 */
export function unparsedWarnings(what: string, counts: ReadonlyMap<string, UnparsedCount>): string[] {
  return [...counts].map(([model, c]) => unparsedWarning(model, what, c)).filter((w): w is string => w !== null);
}
