import { errorMessage } from '../util/errors.js';
import { AnswerError } from './errors.js';

/** HTTP statuses worth another try (as openai-node): request timeout, conflict, rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Milliseconds the server asks us to wait: `retry-after-ms`, else `retry-after` as seconds or an
 * HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(get: (name: string) => string | null, now = Date.now()): number | undefined {
  const ms = get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return secs >= 0 ? secs * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff, doubled per retry. */
  baseDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /** Longest `retry-after` honoured; longer requests wait this long. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

/**
 * Wait before retry number `retry` (1-based): the server's retry-after when given (capped), else
 * exponential backoff with equal jitter (half fixed, half random) under the cap.
 */
export function retryDelayMs(retry: number, policy: RetryPolicy, retryAfterMs?: number, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxRetryAfterMs);
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return exp / 2 + (random() * exp) / 2;
}

/**
 * Normalises anything an answerer throws into retryability and a reason. Answerers say what is worth
 * another try by throwing AnswerError (the OpenAI client wraps HTTP statuses and socket errors in
 * it); anything else is a bug or a bad input and is not retried.
 */
export function classifyError(err: unknown): { retryable: boolean; reason: string; retryAfterMs?: number } {
  if (err instanceof AnswerError) return { retryable: err.retryable, reason: err.message, retryAfterMs: err.retryAfterMs };
  return { retryable: false, reason: errorMessage(err) };
}
