import type { AnyPrompt } from '../formats/prompts.js';

/**
 * Anything that answers prompts: an HTTP MLLM client or a baseline. The runner, the store and the
 * scoring treat all answerers alike.
 */
export interface Answerer {
  readonly name: string;
  /** Returns the raw answer text; throws on failure (HTTP clients throw typed, retryable errors). */
  answer(prompt: AnyPrompt, signal: AbortSignal): Promise<string>;
  close?(): Promise<void>;
}
