/**
 * The answerer kinds src/mllm registers (openai.ts and baselines/), listed without loading them, so
 * `gsr run --help` can name them (test/cli/lazy.test.ts checks the list against the registry).
 */
export const ANSWERER_NAMES: readonly string[] = ['always-first', 'geometric', 'openai', 'random', 'simulated'];
