/**
 * Several endpoints serving one model, as one answerer: each prompt goes to the live endpoint with the
 * fewest requests in flight (ties in turn). An endpoint that refuses or drops the connection is taken
 * out of rotation for a cool-down that doubles while it stays down (1 s to 30 s), then tried again by
 * one request; the failed attempt is retryable, so the runner's next attempt lands on another endpoint.
 * When every endpoint is out, the one due back first is tried.
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

interface Endpoint {
  url: string;
  answerer: Answerer;
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

export function balanceAnswerers(endpoints: Array<{ url: string; answerer: Answerer }>, options: BalanceOptions = {}): BalancedAnswerer {
  if (endpoints.length === 0) throw new Error('balanceAnswerers needs at least one endpoint');
  const now = options.now ?? Date.now;
  const base = options.coolDownMs ?? 1000;
  const cap = options.maxCoolDownMs ?? 30_000;
  const list: Endpoint[] = endpoints.map((e) => ({ ...e, inFlight: 0, downUntil: 0, failures: 0, served: 0 }));
  let turn = 0;

  function pick(): Endpoint {
    const t = now();
    const live = list.filter((e) => e.downUntil <= t);
    if (live.length === 0) return list.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
    const least = Math.min(...live.map((e) => e.inFlight));
    const candidates = live.filter((e) => e.inFlight === least);
    return candidates[turn++ % candidates.length];
  }

  return {
    name: list[0].answerer.name,
    async answer(prompt: AnyPrompt, signal: AbortSignal): Promise<string | AnswerWithWarning> {
      const e = pick();
      e.inFlight++;
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
        e.inFlight--;
        e.served++;
      }
    },
    stats: () => list.map((e) => ({ url: e.url, served: e.served, live: e.downUntil <= now() })),
    async close() {
      for (const e of list) await e.answerer.close?.();
    },
  };
}
