import type { AnyPrompt } from '../formats/prompts.js';

/** An answer stored as `ok` whose record also carries a warning (in its `error` field). */
export interface AnswerWithWarning {
  text: string;
  warning: string;
}

/** The text of an answer, with or without a warning. */
export function answerText(answer: string | AnswerWithWarning): string {
  return typeof answer === 'string' ? answer : answer.text;
}

/**
 * Anything that answers prompts: an HTTP MLLM client or a baseline. The runner, the store and the
 * scoring treat all answerers alike.
 */
export interface Answerer {
  readonly name: string;
  /**
   * Returns the raw answer text, or the text with a warning kept on the stored record (e.g. a body that
   * was not valid UTF-8); throws on failure (HTTP clients throw typed, retryable errors).
   */
  answer(prompt: AnyPrompt, signal: AbortSignal): Promise<string | AnswerWithWarning>;
  close?(): Promise<void>;
  /**
   * Answers in this process, at once, each prompt on its own (the baselines): the runner then asks at
   * least LOCAL_CONCURRENCY prompts at a time (src/mllm/runner.ts), so that each store transaction
   * commits many answers; the same answers in any order.
   */
  readonly local?: boolean;
}
