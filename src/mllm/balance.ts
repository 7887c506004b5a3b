/**
 * Several endpoints serving one model, as one answerer: each prompt goes to the live endpoint with the
 * fewest requests in flight (ties in turn). An endpoint that refuses or drops the connection is taken
 * out of rotation for a cool-down that doubles while it stays down (1 s to 30 s), then tried again by
 * one request; the failed attempt is retryable, so the runner's next attempt lands on another endpoint.
 * When every endpoint is out, the one due back first is tried. An endpoint may cap its own requests
 * in flight (`concurrency`) and per second (`rateLimit`, requests started evenly spaced); a request
 * that finds every candidate at its cap waits for the first free place.
 */
import type { AnyPrompt } from '../formats/prompts.js';
import { AnswerError } from './errors.js';
import type { Answerer, AnswerWithWarning } from './types.js';

export interface BalanceOptions {
  /** First cool-down of a dead endpoint (default 1000 ms), doubled per further failure. */
  coolDownMs?: number;
  maxCoolDownMs?: number;
  now?: () => number;
}

/** One endpoint and its own limits (absent: none). */
export interface BalancedEndpoint {
  url: string;
  answerer: Answerer;
  /** Requests in flight to it at most. */
  concurrency?: number;
  /** Requests started per second at most. */
  rateLimit?: number;
}

interface Endpoint {
  url: string;
  answerer: Answerer;
  cap: number;
  /** Milliseconds between request starts (0: no rate limit). */
  spacing: number;
  /** Earliest start of its next request. */
  nextStart: number;
  inFlight: number;
  /** Out of rotation until this time (0: live). */
  downUntil: number;
  failures: number;
  served: number;
}

/** True for failures that say the endpoint itself is unreachable (not that the request was bad). */
export function endpointDown(err: unknown): boolean {
  return err instanceof AnswerError && err.status === undefined && err.message.startsWith('connection error');
}

export interface BalancedAnswerer extends Answerer {
  /** Per endpoint: requests answered (any outcome) and whether it is in rotation now. */
  stats(): Array<{ url: string; served: number; live: boolean }>;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(timer), reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function balanceAnswerers(endpoints: BalancedEndpoint[], options: BalanceOptions = {}): BalancedAnswerer {
  if (endpoints.length === 0) throw new Error('balanceAnswerers needs at least one endpoint');
  const now = options.now ?? Date.now;
  const base = options.coolDownMs ?? 1000;
  const cap = options.maxCoolDownMs ?? 30_000;
  const list: Endpoint[] = endpoints.map((e) => ({
    url: e.url, answerer: e.answerer, cap: e.concurrency ?? Infinity, spacing: e.rateLimit ? 1000 / e.rateLimit : 0, nextStart: 0, inFlight: 0, downUntil: 0, failures: 0, served: 0,
  }));
  let turn = 0;
  /** Requests waiting for a place under an endpoint's cap; woken whenever a request ends. */
  let waiters: Array<() => void> = [];

  /** The endpoint a request goes to and how long it waits for its rate slot, or null when all are at their caps. */
  function pick(): { e: Endpoint; wait: number } | null {
    const t = now();
    const live = list.filter((e) => e.downUntil <= t);
    const pool = live.length > 0 ? live : [list.reduce((a, b) => (b.downUntil < a.downUntil ? b : a))];
    const open = pool.filter((e) => e.inFlight < e.cap);
    if (open.length === 0) return null;
    const soonest = Math.min(...open.map((e) => Math.max(0, e.nextStart - t)));
    const ready = open.filter((e) => Math.max(0, e.nextStart - t) === soonest);
    const least = Math.min(...ready.map((e) => e.inFlight));
    const candidates = ready.filter((e) => e.inFlight === least);
    const e = candidates[turn++ % candidates.length];
    e.nextStart = Math.max(t, e.nextStart) + e.spacing;
    return { e, wait: soonest };
  }

  async function acquire(signal: AbortSignal): Promise<Endpoint> {
    for (;;) {
      const got = pick();
      if (got !== null) {
        got.e.inFlight++;
        if (got.wait > 0) {
          try {
            await sleep(got.wait, signal);
          } catch (err) {
            release(got.e);
            throw err;
          }
        }
        return got.e;
      }
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const wake = () => (signal.removeEventListener('abort', onAbort), resolve());
        const onAbort = () => ((waiters = waiters.filter((w) => w !== wake)), reject(signal.reason));
        signal.addEventListener('abort', onAbort, { once: true });
        waiters.push(wake);
      });
    }
  }

  function release(e: Endpoint): void {
    e.inFlight--;
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  }

  return {
    name: list[0].answerer.name,
    async answer(prompt: AnyPrompt, signal: AbortSignal): Promise<string | AnswerWithWarning> {
      const e = await acquire(signal);
      try {
        const answer = await e.answerer.answer(prompt, signal);
        e.failures = 0;
        e.downUntil = 0;
        return answer;
      } catch (err) {
        if (endpointDown(err)) {
          e.failures++;
          e.downUntil = now() + Math.min(cap, base * 2 ** (e.failures - 1));
          throw new AnswerError(`${(err as Error).message} (${e.url}, out of rotation)`, true);
        }
        throw err;
      } finally {
        e.served++;
        release(e);
      }
    },
    stats: () => list.map((e) => ({ url: e.url, served: e.served, live: e.downUntil <= now() })),
    async close() {
      for (const e of list) await e.answerer.close?.();
    },
  };
}
