import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { EXIT, reportItemFailures } from '../exit.js';
import { collect, parseNonNegativeInt, parseNumber, parsePositiveInt, parseSeed, usageError } from '../parsers.js';
import { ANSWERER_NAMES } from '../../mllm/answerer-names.js';
// Constants and pure functions only: the defaults show in --help.
import { REQUEST_DEFAULTS, requestOptions, resolveRequest, runSettings } from '../../mllm/request.js';
import type { AnswererOptions, GenerationSettings, RunSummary } from '../../mllm/index.js';
import { GsrError } from '../../util/errors.js';
import { sha256File } from '../../util/hash.js';
import { notice } from '../../util/log.js';
import { createProgress, type Progress } from '../../util/progress.js';

interface RunFlags {
  prompts: string;
  model: string;
  answerer: string;
  baseUrl: string[];
  apiKeyEnv?: string;
  store: string;
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed?: number;
  annotations?: string;
  grounding?: number;
  reasoningError?: number;
  boxFormat?: string;
  retryFailed?: boolean;
  maxAnswerBytes?: number;
  limit?: number;
  json?: boolean;
  queue?: string;
  resume?: boolean;
  rateLimit?: number;
  benchmark?: string;
  items?: string;
  answerAttempts?: number;
}

// Loaded when the command runs (src/cli/program.ts, "Lazy loading"): the store opens SQLite.
const lib = () => import('../../mllm/index.js');

function summaryText(s: RunSummary): string {
  const failures = Object.entries(s.failures).map(([reason, n]) => `\n  failed: ${n} x ${reason}`).join('');
  return (
    `${s.model} (settings ${s.settings_id}): ${s.prompts} prompts | ok ${s.ok} | failed ${s.failed} | already done ${s.cached}` +
    ` | held by another runner ${s.busy} | not sent ${s.not_sent} | invalid ${s.invalid} | duplicates ${s.duplicates}` +
    ` | ${s.requests} requests in ${(s.elapsed_ms / 1000).toFixed(1)} s${s.interrupted ? ' | INTERRUPTED' : ''}${failures}\n`
  );
}

/**
 * What --benchmark adds to a run (docs/benchmarks.md, "Stage by stage"): the plug-in's baselines,
 * its validator and answer attempts, and its request defaults (for the settings no flag sets), so the
 * run answers as the plug-in's pipeline does.
 */
async function benchmarkRun(o: RunFlags) {
  if (o.items === undefined) throw usageError('--benchmark needs --items DIR');
  if (o.queue !== undefined) throw usageError('--benchmark runs locally, as benchmark pipelines do; drop --queue');
  const { loadBenchmarkItems, benchAnswerer, benchValidator, answerAttemptsFor } = await import('../../benchmarks/index.js');
  const set = await loadBenchmarkItems(o.benchmark!, resolve(o.items));
  const b = set.benchmark;
  const answerAttempts = answerAttemptsFor(b, o.answerAttempts, 'gsr run');
  const settings: Partial<GenerationSettings> = {};
  // Only above 1, so runs that ask once keep their settings ids (as in the pipeline).
  if (answerAttempts > 1) settings.answer_attempts = answerAttempts;
  return {
    baselines: Object.keys(b.baselines), settings, answerAttempts, validate: benchValidator(b, set.items), requestDefaults: b.requestDefaults,
    answerer: (options: AnswererOptions) => benchAnswerer(b, set.items, o.answerer, options),
  };
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Query an MLLM endpoint for a prompt file, cached and resumable')
    .requiredOption('--prompts <file>', 'prompt file (JSONL) from `gsr prompts`')
    .requiredOption('--model <name>', 'model name (sent to the endpoint, and the store key)')
    .requiredOption('--store <file>', 'run store (SQLite); re-running resumes it')
    .option('--answerer <kind>', `openai (Chat Completions), a baseline or simulated (${ANSWERER_NAMES.join(', ')}); with --benchmark also the plug-in's baselines`, 'openai')
    .option('--base-url <url>', 'endpoint root, e.g. http://localhost:8000/v1; repeat for several endpoints of one model (load-balanced, dead ones out of rotation)', collect, [])
    .option('--api-key-env <var>', 'environment variable holding the API key (the key is never stored or printed)')
    .option('--concurrency <n>', 'requests in flight', parsePositiveInt, 8)
    .option('--timeout-ms <n>', 'per attempt, including the whole body', parsePositiveInt, 120_000)
    .option('--max-retries <n>', 'retries after the first attempt (timeouts, connection errors, 408/409/429/5xx)', parseNonNegativeInt, 5)
    .option('--retry-base-ms <n>', 'first backoff, doubled per retry', parsePositiveInt, 500)
    .option('--retry-max-ms <n>', 'backoff cap', parsePositiveInt, 30_000)
    .option('--temperature <t>', `sampling temperature (default ${REQUEST_DEFAULTS.temperature}, or the plug-in's with --benchmark)`, parseNumber)
    .option('--max-tokens <n>', `max_tokens of each answer (default ${REQUEST_DEFAULTS.max_tokens}, or the plug-in's with --benchmark)`, parsePositiveInt)
    .option('--top-p <p>', 'top_p', parseNumber)
    .option('--seed <n>', 'sampling seed (and the random baseline seed)', parseSeed)
    .option('--annotations <file>', 'COCO annotations (geometric and simulated answerers)')
    .option('--grounding <g>', 'simulated: target G-Score, 0-1', parseNumber)
    .option('--reasoning-error <r>', 'simulated: share of items answered wrong whatever its boxes say, 0-1', parseNumber)
    .option('--box-format <fmt>', 'box format the geometric baseline writes')
    .option('--max-answer-bytes <n>', 'cap on one reply from the endpoint, in bytes; a longer one is cut off and fails (default 1048576)', parsePositiveInt)
    .option('--retry-failed', 'ask again the prompts whose stored response failed (the default)')
    .option('--no-retry-failed', 'do not ask again prompts whose stored response failed')
    .option('--limit <n>', 'send at most this many prompts (smoke runs)', parsePositiveInt)
    .option('--json', 'print the summary as JSON')
    .option('--queue <url>', 'ask through queue workers (`gsr worker run`): Redis URL redis://HOST:PORT[/DB]; --concurrency is then across all workers')
    .option('--resume', 'with --queue: re-attach to the queued run recorded in --store')
    .option('--rate-limit <n>', 'with --queue: requests per second across all workers', parseNumber)
    .option('--benchmark <name>', "a benchmark plug-in's prompt file (from gsr prompts --benchmark): its baselines answer too, invalid answers are re-asked and its request defaults apply, as in its pipeline")
    .option('--items <dir>', 'with --benchmark: the item set folder')
    .option('--answer-attempts <n>', "with --benchmark: answers asked per prompt while the output is invalid (default: the plug-in's, else 1)", parsePositiveInt)
    .action(
      action(async (o: RunFlags) => {
        if (o.queue === undefined && (o.resume || o.rateLimit !== undefined)) throw new GsrError('--resume and --rate-limit go with --queue');
        if (o.benchmark === undefined && (o.items !== undefined || o.answerAttempts !== undefined)) throw usageError('--items and --answer-attempts go with --benchmark');
        if (o.rateLimit !== undefined && !(o.rateLimit > 0)) throw new GsrError('--rate-limit must be a positive number of requests per second');
        const { answerers, RunStore, runPrompts } = await lib();
        const bench = o.benchmark === undefined ? undefined : await benchmarkRun(o);
        const kinds = [...answerers.names(), ...(bench?.baselines ?? [])];
        if (!kinds.includes(o.answerer)) throw usageError(`option '--answerer <kind>' argument '${o.answerer}' is invalid. Allowed choices are ${kinds.join(', ')}.`);
        // The flags given, then the plug-in's protocol, then the shared defaults (src/mllm/request.ts).
        const request = resolveRequest({ temperature: o.temperature, max_tokens: o.maxTokens, top_p: o.topP, seed: o.seed }, bench?.requestDefaults);
        const answererOptions: AnswererOptions = {
          model: o.model, baseUrl: o.baseUrl[0], baseUrls: o.baseUrl, apiKeyEnv: o.apiKeyEnv, timeoutMs: o.timeoutMs, ...requestOptions(request),
          annotations: o.annotations === undefined ? undefined : resolve(o.annotations), boxFormat: o.boxFormat, grounding: o.grounding, reasoning_error: o.reasoningError,
          maxAnswerBytes: o.maxAnswerBytes,
        };
        const extra: Record<string, unknown> = { ...bench?.settings };
        if (o.annotations !== undefined) extra.annotations_sha256 = await sha256File(o.annotations);
        if (o.answerer === 'simulated') Object.assign(extra, { grounding: o.grounding, reasoning_error: o.reasoningError ?? 0 });
        // A box format shapes what a baseline writes; an endpoint is sent nothing of it.
        if (o.boxFormat !== undefined && o.answerer !== 'openai') extra.box_format = o.boxFormat;
        const settings: GenerationSettings = runSettings(o.answerer, o.model, answererOptions, extra);
        const retry = { maxRetries: o.maxRetries, baseDelayMs: o.retryBaseMs, maxDelayMs: o.retryMaxMs };
        // With --queue the workers build the answerer; here it only has to be valid.
        const answerer = bench !== undefined ? await bench.answerer(answererOptions) : await answerers.get(o.answerer)(answererOptions);
        const store = RunStore.open(resolve(o.store));
        const controller = new AbortController();
        let interrupts = 0;
        const onSignal = () => {
          if (++interrupts === 1) notice('interrupted: finishing up (committed responses are kept; Ctrl-C again to quit now)');
          else process.exit(130);
          controller.abort();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        let progress: Progress = { tick() {}, stop() {} };
        try {
          // The job queue is loaded only when asked for: without --queue nothing needs Redis.
          const q = o.queue === undefined ? undefined : await import('../../queue/index.js');
          const dispatch = q?.queueDispatch({
            url: o.queue!, resume: o.resume, store, model: o.model, settingsId: store.registerSettings(settings), concurrency: o.concurrency, rateLimit: o.rateLimit,
            spec: { answerer: o.answerer, options: answererOptions, timeoutMs: o.timeoutMs, retry },
            onRun: (r) => notice(`${r.resumed ? 're-attached to' : 'queued as'} run ${r.id} (queue ${r.queue}); start workers with \`gsr worker run --queue URL\``),
            onProgress: (p) => progress.note?.(q.formatQueueProgress(p, 'prompts')),
          });
          const summary = await runPrompts({
            prompts: o.prompts, store, answerer, settings, concurrency: o.concurrency, timeoutMs: o.timeoutMs,
            retry, retryFailed: o.retryFailed ?? true, limit: o.limit, signal: controller.signal, dispatch, answerAttempts: bench?.answerAttempts, validate: bench?.validate,
            onStart: ({ toSend }) => (progress = createProgress(o.model, toSend, 'prompts', { note: dispatch !== undefined })),
            onResult: (e) => progress.tick(1, e.status === 'failed'),
          });
          progress.stop();
          // The settings in force (defaults filled in), as the store records them under settings_id.
          if (o.json) printJson({ ...summary, settings });
          else process.stdout.write(summaryText(summary));
          if (summary.interrupted) process.exitCode = EXIT.interrupted;
          else if (summary.prompts === 0) throw new GsrError(`${o.prompts}: no valid prompts${summary.invalid > 0 ? ` (${summary.invalid} invalid lines: ${summary.invalid_lines[0]})` : ''}`);
          else {
            // Invalid prompt lines were never asked: they count as failed items too.
            const reasons = [...summary.invalid_lines.map((l) => `invalid prompt: ${l}`), ...Object.entries(summary.failures).map(([reason, n]) => `${n} x ${reason}`)];
            reportItemFailures('prompts', { failed: summary.failed + summary.invalid, total: summary.prompts + summary.invalid, succeeded: summary.ok + summary.cached, detail: `ok ${summary.ok}, already done ${summary.cached}` }, reasons);
          }
        } finally {
          progress.stop();
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          await answerer.close?.();
          store.close();
        }
      }, (o) => ({ files: [o.store] })),
    );
}
