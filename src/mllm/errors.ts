/**
 * A failed answer attempt. `retryable` says whether the runner may try again (timeouts, connection
 * errors, 408/409/429/5xx, malformed or empty replies); `retryAfterMs` carries the server's `retry-after`.
 */
export class AnswerError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'AnswerError';
  }
}
