/**
 * The job queue adapter (BullMQ on Redis): annotation shards and prompts answered by worker processes
 * on any number of machines, with the results assembled by the submitting process exactly as a local
 * run assembles them. Loaded only when `--queue` (or a pipeline's `queue:`) is given.
 */
export { redisOptions, openRedis, safeQueueUrl, reconnectDelayMs, KEY_PREFIX } from './connection.js';
export { newRunId, queueNameOf, listRuns, getRun, type QueueRun, type RunKind } from './runs.js';
export { serveQueue, type WorkerOptions, type WorkerEvent, type JobProcessor } from './worker.js';
export { queueAnnotateExecutor, annotateProcessor, formatQueueProgress, checkedResultFile, DEFAULT_SHARD_SIZE, RUN_FILE, type AnnotateSpec, type QueueAnnotateOptions, type QueueProgress, type QueueSubmitOptions } from './annotate.js';
export { queueDispatch, promptProcessor, limiterFor, promptJobId, type PromptSpec, type QueueRunOptions } from './prompts.js';
export { queueStatus, drainQueue, cleanQueue, type RunStatus } from './admin.js';
