import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { isBenchPrompt, parseAnyPrompt, type AnyPrompt } from '../formats/prompts.js';
import { GsrError, isMachineFault } from '../util/errors.js';
import { readJsonl } from '../util/jsonl.js';
import { StoreBatcher } from './store-batcher.js';
import { classifyError, DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from './retry.js';
import type { GenerationSettings, RunStore } from './store.js';
import type { Answerer } from './types.js';

export interface RunOptions {
  /** Prompt JSONL file. */
  prompts: string;
  store: RunStore;
  answerer: Answerer;
  /** Model name and generation settings: with the prompt key they identify a response. */
  settings: GenerationSettings;
  /** Prompts in flight (default DEFAULT_CONCURRENCY; a local answerer at least LOCAL_CONCURRENCY). */
  concurrency?: number;
  /** Per-attempt limit, including reading the whole body. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Ask prompts whose stored response failed again (default true). */
  retryFailed?: boolean;
  /**
   * Answers asked per prompt at most (default 1): while `validate` finds the output invalid, the prompt
   * is asked again, each invalid answer stored first (RunStore.recordAttempt) so a resumed run goes on
   * counting. The response row holds the last answer. Include it in `settings` when above 1.
   */
  answerAttempts?: number;
  /** Why an output is invalid (missing or unreadable answer), or null when it is valid. */
  validate?: (prompt: AnyPrompt, output: string) => string | null;
  /** Stop dispatching after this many new requests (smoke runs). */
  limit?: number;
  /** Aborting stops dispatch, cancels in-flight requests and releases their claims. */
  signal?: AbortSignal;
  onResult?: (event: { key: string; status: 'ok' | 'failed' | 'done' | 'busy'; error?: string }) => void;
  /** Called once the number of prompts to send is known. */
  onStart?: (info: { total: number; toSend: number }) => void;
  /**
   * Answers the prompts elsewhere instead of `concurrency` local workers (the job queue, src/queue):
   * it calls `settle` with each outcome, which commits it as a local run would.
   */
  dispatch?: (prompts: AsyncIterable<AnyPrompt>, settle: (p: AnyPrompt, r: AnswerResult) => Promise<void>, signal: AbortSignal) => Promise<void>;
}

export interface RunSummary {
  model: string;
  settings_id: string;
  /** Valid prompts in the file (duplicates counted once). */
  prompts: number;
  /** Already answered before this run (not sent). */
  cached: number;
  /** Answered ok in this run. */
  ok: number;
  /** Failed after the retry budget (or not retryable) in this run, by reason. */
  failed: number;
  failures: Record<string, number>;
  /** Held by another live runner on the same store. */
  busy: number;
  /** Not sent because the run was interrupted or hit --limit. */
  not_sent: number;
  /** Lines that are not valid prompts, with file:line and reason (first 20). */
  invalid: number;
  invalid_lines: string[];
  duplicates: number;
  /** HTTP requests (attempts) made in this run. */
  requests: number;
  elapsed_ms: number;
  interrupted: boolean;
  /** Runs with several answer attempts: the setting, and the invalid answers asked again in this run. */
  answer_attempts?: number;
  reasked?: number;
}

/** The prompt's place in its item, as the store records it (benchmark prompts: task and level). */
export function storedPlace(p: AnyPrompt) {
  if (isBenchPrompt(p)) return { item: p.item, split: p.level, task: p.task, permutation: null, role: null, rotation: null };
  return { item: p.item, split: p.split, task: p.task, permutation: p.permutation, role: p.role ?? null, rotation: p.rotation };
}

function reasonClass(reason: string): string {
  return reason.replace(/:.*$/s, '').slice(0, 60);
}

/** Resolves or rejects with the promise, or rejects when the signal aborts (for answerers that ignore it). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

/**
 * A signal that aborts on the run's signal or after `timeoutMs`. A plain timer, not
 * AbortSignal.any + AbortSignal.timeout: on Node 20 a timeout signal held only by AbortSignal.any
 * can be garbage-collected before it fires, leaving a hung request hanging for good.
 */
function attemptController(runSignal: AbortSignal, timeoutMs: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new DOMException(`timeout after ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onRunAbort);
    },
  };
}

/** Prompts in flight by default. */
export const DEFAULT_CONCURRENCY = 8;
/**
 * Prompts in flight at least for a local answerer (Answerer.local): it answers at once, so the number
 * only sets how many answers share a store transaction (StoreBatcher), which costs the same for one.
 */
export const LOCAL_CONCURRENCY = 64;

/**
 * Sends every prompt of a file that has no ok response yet through an answerer, with bounded
 * concurrency, per-attempt timeouts and retries, committing each response to the store as it arrives.
 */
export async function runPrompts(opts: RunOptions): Promise<RunSummary> {
  const started = Date.now();
  const { store, answerer, settings } = opts;
  const model = settings.model;
  const sid = store.registerSettings(settings);
  const concurrency = answerer.local ? Math.max(LOCAL_CONCURRENCY, opts.concurrency ?? 0) : Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
  const maxAnswers = Math.max(1, Math.floor(opts.answerAttempts ?? 1));
  // Internal abort: a store failure in one worker stops the others instead of leaving them running.
  const fatal = new AbortController();
  if (opts.signal?.aborted) fatal.abort(opts.signal.reason);
  opts.signal?.addEventListener('abort', () => fatal.abort(opts.signal!.reason), { once: true });
  const runSignal = fatal.signal;
  setMaxListeners(0, runSignal); // every worker waits on it; more than 10 is expected
  // A claim outlives the longest an attempt sequence can take, so a live runner's claim never lapses.
  const leaseMs = maxAnswers * (policy.maxRetries + 1) * (timeoutMs + Math.max(policy.maxDelayMs, policy.maxRetryAfterMs)) + 60_000;
  const summary: RunSummary = {
    model, settings_id: sid, prompts: 0, cached: 0, ok: 0, failed: 0, failures: {}, busy: 0, not_sent: 0,
    invalid: 0, invalid_lines: [], duplicates: 0, requests: 0, elapsed_ms: 0, interrupted: false,
  };
  if (maxAnswers > 1) Object.assign(summary, { answer_attempts: maxAnswers, reasked: 0 });

  // Pass 1: drop what is done (by key, without full validation: resuming must be fast), duplicates and
  // invalid lines; remember which records remain to be sent.
  const done = store.doneKeys(model, sid);
  const failedBefore = opts.retryFailed === false ? new Set([...store.responses({ model, settings: sid })].filter((r) => r.status === 'failed').map((r) => r.key)) : undefined;
  const seen = new Set<string>();
  const toSendRecords = new Set<number>();
  let record = 0;
  for await (const raw of readJsonl<unknown>(opts.prompts)) {
    record++;
    const rawKey = (raw as { key?: unknown } | null)?.key;
    if (typeof rawKey === 'string' && (done.has(rawKey) || failedBefore?.has(rawKey))) {
      if (seen.has(rawKey)) summary.duplicates++;
      else {
        seen.add(rawKey);
        summary.prompts++;
        summary.cached++;
      }
      continue;
    }
    const parsed = parseAnyPrompt(raw);
    if ('error' in parsed) {
      summary.invalid++;
      if (summary.invalid_lines.length < 20) summary.invalid_lines.push(`${opts.prompts}:record ${record}: ${parsed.error}`);
      continue;
    }
    const key = parsed.prompt.key;
    if (seen.has(key)) {
      summary.duplicates++;
      continue;
    }
    seen.add(key);
    summary.prompts++;
    toSendRecords.add(record);
  }
  seen.clear();
  const limit = opts.limit ?? Infinity;
  opts.onStart?.({ total: summary.prompts, toSend: Math.min(toSendRecords.size, limit) });

  // Pass 2: stream the file again and dispatch the remembered records to `concurrency` workers.
  async function* pending(): AsyncGenerator<AnyPrompt> {
    if (toSendRecords.size === 0) return;
    let dispatched = 0;
    let n = 0;
    for await (const raw of readJsonl<unknown>(opts.prompts)) {
      if (!toSendRecords.has(++n)) continue;
      const parsed = parseAnyPrompt(raw);
      if ('error' in parsed) continue; // the file changed under us; pass 1 reported what it saw
      if (runSignal.aborted || dispatched >= limit) {
        summary.not_sent++;
        continue;
      }
      dispatched++;
      yield parsed.prompt;
    }
  }

  /** Commits one answered prompt (not awaited by the caller's next claim); counts it once its row is durable. */
  function settle(p: AnyPrompt, r: AnswerResult): Promise<void> {
    const committed = batcher.commit({
      key: p.key, model, settings: sid, status: r.status, output: r.output, error: r.error, attempts: r.attempts,
      latency_ms: r.latency_ms, started_at: r.started_at, finished_at: r.finished_at, ...storedPlace(p), source: 'run',
    }).then(() => {
      if (r.status === 'ok') summary.ok++;
      else {
        summary.failed++;
        const cls = reasonClass(r.reason ?? r.error ?? 'failed');
        summary.failures[cls] = (summary.failures[cls] ?? 0) + 1;
      }
      opts.onResult?.({ key: p.key, status: r.status, error: r.error ?? undefined });
    });
    const tracked = committed.catch((err: unknown) => fatal.abort(err));
    commits.add(tracked);
    void tracked.finally(() => commits.delete(tracked));
    return committed;
  }

  async function ask(p: AnyPrompt): Promise<void> {
    const claim = await batcher.claim(p.key);
    if (claim !== 'claimed') {
      summary[claim === 'done' ? 'cached' : 'busy']++;
      opts.onResult?.({ key: p.key, status: claim });
      return;
    }
    // `requests` counts this prompt's requests over all its answers (the response row's `attempts`);
    // `answer` is the answer being asked, continuing a resumed count.
    const startedAt = new Date().toISOString();
    let requests = 0;
    let answer = maxAnswers > 1 ? store.attempts(p.key, model, sid).length + 1 : 1;
    for (;;) {
      const r = await answerPrompt(p, answerer, { timeoutMs, policy, signal: runSignal, onAttempt: () => summary.requests++ });
      if (r === null) {
        store.release(p.key, model, sid);
        summary.not_sent++;
        return;
      }
      requests += r.attempts;
      const reason = r.status === 'ok' && answer < maxAnswers && opts.validate ? opts.validate(p, r.output) : null;
      if (reason === null) {
        // Not awaited: the worker claims its next prompt meanwhile, and both go to the store in one flush
        // (a failed commit stops the run through `fatal`).
        settle(p, { ...r, attempts: requests, started_at: startedAt }).catch(() => undefined);
        return;
      }
      store.recordAttempt({ key: p.key, model, settings: sid, attempt: answer, output: r.output, reason, finished_at: r.finished_at });
      answer++;
      summary.reasked!++;
    }
  }

  const batcher = new StoreBatcher(store, model, sid, leaseMs);
  const commits = new Set<Promise<void>>();
  const queue = pending();
  if (opts.dispatch) {
    // Re-asking needs the answer back before the next request; queue workers answer once.
    if (maxAnswers > 1 && opts.validate) throw new GsrError('answer attempts above 1 cannot run on a queue (run this model locally)');
    // Another executor (the job queue, src/queue) answers; results come back through the same commit path.
    try {
      // Its attempts were made elsewhere; they count as this run's requests.
      await opts.dispatch(queue, (p, r) => ((summary.requests += r.attempts), settle(p, r)), runSignal);
    } finally {
      await Promise.all(commits);
    }
    return finish();
  }
  const workers = Array.from({ length: concurrency }, async () => {
    for (;;) {
      const next = await queue.next();
      if (next.done) return;
      try {
        await ask(next.value);
      } catch (err) {
        fatal.abort(err);
        throw err;
      }
    }
  });
  try {
    await Promise.all(workers);
  } finally {
    await Promise.all(commits);
  }
  return finish();

  function finish(): RunSummary {
    if (runSignal.aborted && !opts.signal?.aborted) throw runSignal.reason;
    summary.interrupted = runSignal.aborted;
    summary.elapsed_ms = Date.now() - started;
    return summary;
  }
}

/** One prompt's outcome after its attempts: what the store records besides the prompt's place. */
export interface AnswerResult {
  status: 'ok' | 'failed';
  output: string;
  /** A failed answer's reason (with the attempts given up after), or an ok answer's warning. */
  error: string | null;
  /** The failure's reason alone, for the summary's tally. */
  reason?: string;
  attempts: number;
  latency_ms: number;
  started_at: string;
  finished_at: string;
}

export interface AnswerPromptOptions {
  timeoutMs: number;
  policy: RetryPolicy;
  signal: AbortSignal;
  onAttempt?: () => void;
}

/**
 * Asks one prompt with per-attempt timeouts and retries under the policy: the request code of a local
 * run and of a queue worker (src/queue). Returns null when `signal` aborts before an outcome.
 */
export async function answerPrompt(p: AnyPrompt, answerer: Answerer, o: AnswerPromptOptions): Promise<AnswerResult | null> {
  const startedAt = new Date().toISOString();
  let attempts = 0;
  for (;;) {
    attempts++;
    o.onAttempt?.();
    const attempt = attemptController(o.signal, o.timeoutMs);
    const t0 = performance.now();
    let output: string | undefined;
    let warning: string | null = null;
    let failure: ReturnType<typeof classifyError> | undefined;
    try {
      const answer = await raceAbort(answerer.answer(p, attempt.signal), attempt.signal);
      if (typeof answer === 'string') output = answer;
      else ({ text: output, warning } = answer);
    } catch (err) {
      if (o.signal.aborted) return null;
      // A fault of the machine (no file handles, a full disk under an answerer) is not the prompt's: it stops the run.
      if (isMachineFault(err)) throw err;
      failure = attempt.signal.aborted ? { retryable: true, reason: `timeout after ${o.timeoutMs} ms` } : classifyError(err);
    } finally {
      attempt.done();
    }
    const latency = performance.now() - t0;
    if (output !== undefined || !failure!.retryable || attempts > o.policy.maxRetries) {
      // An ok record keeps a warning in `error` (docs/mllm.md); a failed one its reason.
      const error = failure ? (failure.retryable ? `${failure.reason} (gave up after ${attempts} attempts)` : failure.reason) : warning;
      return {
        status: output !== undefined ? 'ok' : 'failed', output: output ?? '', error, reason: failure?.reason, attempts,
        latency_ms: Math.round(latency * 10) / 10, started_at: startedAt, finished_at: new Date().toISOString(),
      };
    }
    try {
      await sleep(retryDelayMs(attempts, o.policy, failure!.retryAfterMs), undefined, { signal: o.signal });
    } catch {
      return null;
    }
  }
}

export interface StoredAskerOptions {
  store: RunStore;
  answerer: Answerer;
  /** Model name and generation settings: with the prompt key they identify a response. */
  settings: GenerationSettings;
  /** Per-attempt limit, including reading the whole body. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** How often to look again while another live runner holds the prompt (ms). */
  pollMs?: number;
}

export interface StoredAnswer {
  status: 'ok' | 'failed';
  output: string;
  error: string | null;
  /** Replayed from the store (no request). */
  cached: boolean;
  /** HTTP requests made for it in this call. */
  requests: number;
}

/**
 * Asks single prompts through the run store, one at a time per call, for loops whose next prompt
 * depends on the last answer (episodes): a stored ok answer is replayed; otherwise the prompt is
 * claimed, asked with the runner's timeouts and retries (`answerPrompt`), and committed before the
 * answer is returned, so a killed run replays every answer it had received.
 */
export class StoredAsker {
  readonly sid: string;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;

  constructor(private readonly o: StoredAskerOptions) {
    this.sid = o.store.registerSettings(o.settings);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...o.retry };
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.leaseMs = (this.policy.maxRetries + 1) * (this.timeoutMs + Math.max(this.policy.maxDelayMs, this.policy.maxRetryAfterMs)) + 60_000;
  }

  /** The answer, or null when `signal` aborted first (nothing is committed then). */
  async ask(p: AnyPrompt, signal: AbortSignal): Promise<StoredAnswer | null> {
    const { store, settings } = this.o;
    const model = settings.model;
    for (;;) {
      if (signal.aborted) return null;
      const row = store.response(p.key, model, this.sid);
      if (row?.status === 'ok') return { status: 'ok', output: row.output, error: row.error, cached: true, requests: 0 };
      const claim = store.claim(p.key, model, this.sid, this.leaseMs);
      if (claim === 'done') continue;
      if (claim === 'busy') {
        try {
          await sleep(this.o.pollMs ?? 200, undefined, { signal });
        } catch {
          return null;
        }
        continue;
      }
      const r = await answerPrompt(p, this.o.answerer, { timeoutMs: this.timeoutMs, policy: this.policy, signal });
      if (r === null) {
        store.release(p.key, model, this.sid);
        return null;
      }
      store.commit({
        key: p.key, model, settings: this.sid, status: r.status, output: r.output, error: r.error, attempts: r.attempts,
        latency_ms: r.latency_ms, started_at: r.started_at, finished_at: r.finished_at, ...storedPlace(p), source: 'run',
      });
      return { status: r.status, output: r.output, error: r.error, cached: false, requests: r.attempts };
    }
  }
}
