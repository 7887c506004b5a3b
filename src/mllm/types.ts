/** One model's answer to one prompt, as exported from the run store or imported from elsewhere. */
export interface ResponseRecord {
  key: string;
  model: string;
  /** Raw model text; empty when failed. */
  output: string;
  status: 'ok' | 'failed';
  error: string | null;
  attempts: number;
  latency_ms: number | null;
  started_at?: string;
  finished_at?: string;
  /** Copied from the prompt so responses can be scored without it. */
  item: string;
  split?: string;
  task?: string;
  permutation?: number[];
  role?: 'subject' | 'object';
}

/**
 * Anything that answers prompts: an HTTP MLLM client or a baseline. The runner, the store and the
 * scoring treat all answerers alike.
 */
export interface Answerer {
  readonly name: string;
  /** Returns the raw answer text; throws on failure (HTTP clients throw typed, retryable errors). */
  answer(prompt: import('../prompts/types.js').AnyPrompt, signal: AbortSignal): Promise<string>;
  close?(): Promise<void>;
}
