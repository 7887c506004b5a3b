/** The MLLM runner: answerers, the SQLite run store, retries, and response import/export. */
export type { Answerer, AnswerWithWarning } from './types.js';
export { answerText } from './types.js';
/** Registry of answerers by kind (`openai` and the baselines) and the options their factories take. */
export { answerers, type AnswererFactory, type AnswererOptions, type EndpointOption } from './registry.js';
/** A failed attempt, with retryability and the server's retry-after. */
export { AnswerError } from './errors.js';
/** Retry rules: retryable statuses, retry-after parsing, backoff with jitter and cap. */
export { isRetryableStatus, parseRetryAfter, retryDelayMs, classifyError, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
/** Request settings: their one set of defaults, the settings a model's answers are keyed by, the request body. */
export { REQUEST_DEFAULTS, resolveRequest, requestOf, requestOptions, runSettings, chatCompletionBody, type RequestSettings, type ResponseFormat } from './request.js';
/** OpenAI-compatible Chat Completions client (registered as `openai`). */
export { createOpenAiAnswerer, type OpenAiOptions } from './openai.js';
/** The run store (SQLite, WAL): one committed row per response, claims for concurrent runners. */
export { RunStore, settingsId, STORE_SCHEMA_VERSION, type GenerationSettings, type StoredResponse, type ClaimResult } from './store.js';
/** Runs a prompt file through an answerer: bounded concurrency, timeouts, retries, resume. */
export { runPrompts, StoredAsker, type RunOptions, type RunSummary, type StoredAskerOptions, type StoredAnswer } from './runner.js';
/** JSONL export of stored responses. */
export { exportResponses, toResponseRecord, type ExportedResponse } from './responses.js';
/** Import of other harnesses' answers: gsr JSONL, VLMEvalKit prediction files, lmms-eval samples. */
export { importResponses, IMPORT_SOURCES, LMMS_MATCH, VLMEVALKIT_FAIL_MSG, type ImportOptions, type ImportSummary, type ImportSource, type LmmsMatch } from './import.js';
/** Baseline answerers (random, always-first, geometric), registered on import. */
export * from './baselines/index.js';
/** Several endpoints of one model as one answerer: least in flight, dead endpoints out of rotation. */
export { balanceAnswerers, endpointDown, type BalancedAnswerer, type BalancedEndpoint, type BalanceOptions } from './balance.js';
