import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { choiceOption, collect, parseNonNegativeInt, parseNumber, parsePositiveInt, parseSeed } from '../parsers.js';
import { answerers, RunStore, runPrompts, type AnswererOptions, type GenerationSettings, type RunSummary } from '../../mllm/index.js';
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
  temperature: number;
  maxTokens: number;
  topP?: number;
  seed?: number;
  annotations?: string;
  grounding?: number;
  reasoningError?: number;
  boxFormat?: string;
  retryFailed?: boolean;
  limit?: number;
  json?: boolean;
  queue?: string;
  resume?: boolean;
  rateLimit?: number;
}

/** Exit code when the run finished but at least one prompt's answer failed (docs/mllm.md). */
export const EXIT_PROMPTS_FAILED = 3;

function summaryText(s: RunSummary): string {
  const failures = Object.entries(s.failures).map(([reason, n]) => `\n  failed: ${n} x ${reason}`).join('');
  return (
    `${s.model} (settings ${s.settings_id}): ${s.prompts} prompts | ok ${s.ok} | failed ${s.failed} | already done ${s.cached}` +
    ` | held by another runner ${s.busy} | not sent ${s.not_sent} | invalid ${s.invalid} | duplicates ${s.duplicates}` +
    ` | ${s.requests} requests in ${(s.elapsed_ms / 1000).toFixed(1)} s${s.interrupted ? ' | INTERRUPTED' : ''}${failures}\n`
  );
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Query an MLLM endpoint for a prompt file, cached and resumable')
    .requiredOption('--prompts <file>', 'prompt file (JSONL) from `gsr prompts`')
    .requiredOption('--model <name>', 'model name (sent to the endpoint, and the store key)')
    .requiredOption('--store <file>', 'run store (SQLite); re-running resumes it')
    .addOption(choiceOption('--answerer <kind>', 'openai (Chat Completions), a baseline or simulated', answerers.names(), 'openai'))
    .option('--base-url <url>', 'endpoint root, e.g. http://localhost:8000/v1; repeat for several endpoints of one model (load-balanced, dead ones out of rotation)', collect, [])
    .option('--api-key-env <var>', 'environment variable holding the API key (the key is never stored or printed)')
    .option('--concurrency <n>', 'requests in flight', parsePositiveInt, 8)
    .option('--timeout-ms <n>', 'per attempt, including the whole body', parsePositiveInt, 120_000)
    .option('--max-retries <n>', 'retries after the first attempt (timeouts, connection errors, 408/409/429/5xx)', parseNonNegativeInt, 5)
    .option('--retry-base-ms <n>', 'first backoff, doubled per retry', parsePositiveInt, 500)
    .option('--retry-max-ms <n>', 'backoff cap', parsePositiveInt, 30_000)
    .option('--temperature <t>', 'sampling temperature', parseNumber, 0)
    .option('--max-tokens <n>', 'max_tokens of each answer', parsePositiveInt, 512)
    .option('--top-p <p>', 'top_p', parseNumber)
    .option('--seed <n>', 'sampling seed (and the random baseline seed)', parseSeed)
    .option('--annotations <file>', 'COCO annotations (geometric and simulated answerers)')
    .option('--grounding <g>', 'simulated: target G-Score, 0-1', parseNumber)
    .option('--reasoning-error <r>', 'simulated: share of items answered wrong whatever its boxes say, 0-1', parseNumber)
    .option('--box-format <fmt>', 'box format the geometric baseline writes')
    .option('--retry-failed', 'ask again the prompts whose stored response failed (the default)')
    .option('--no-retry-failed', 'do not ask again prompts whose stored response failed')
    .option('--limit <n>', 'send at most this many prompts (smoke runs)', parsePositiveInt)
    .option('--json', 'print the summary as JSON')
    .option('--queue <url>', 'ask through queue workers (`gsr worker run`): Redis URL redis://HOST:PORT[/DB]; --concurrency is then across all workers')
    .option('--resume', 'with --queue: re-attach to the queued run recorded in --store')
    .option('--rate-limit <n>', 'with --queue: requests per second across all workers', parseNumber)
    .action(
      action(async (o: RunFlags) => {
        if (o.queue === undefined && (o.resume || o.rateLimit !== undefined)) throw new GsrError('--resume and --rate-limit go with --queue');
        if (o.rateLimit !== undefined && !(o.rateLimit > 0)) throw new GsrError('--rate-limit must be a positive number of requests per second');
        const factory = answerers.get(o.answerer);
        const settings: GenerationSettings = { answerer: o.answerer, model: o.model, temperature: o.temperature, max_tokens: o.maxTokens, top_p: o.topP, seed: o.seed };
        if (o.annotations !== undefined) settings.annotations_sha256 = await sha256File(o.annotations);
        if (o.answerer === 'simulated') Object.assign(settings, { grounding: o.grounding, reasoning_error: o.reasoningError ?? 0 });
        if (o.boxFormat !== undefined) settings.box_format = o.boxFormat;
        const answererOptions: AnswererOptions = {
          model: o.model, baseUrl: o.baseUrl[0], baseUrls: o.baseUrl, apiKeyEnv: o.apiKeyEnv, timeoutMs: o.timeoutMs, temperature: o.temperature, maxTokens: o.maxTokens,
          topP: o.topP, seed: o.seed, annotations: o.annotations === undefined ? undefined : resolve(o.annotations), boxFormat: o.boxFormat, grounding: o.grounding, reasoning_error: o.reasoningError,
        };
        const retry = { maxRetries: o.maxRetries, baseDelayMs: o.retryBaseMs, maxDelayMs: o.retryMaxMs };
        // With --queue the workers build the answerer; here it only has to be valid.
        const answerer = await factory(answererOptions);
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
            retry, retryFailed: o.retryFailed ?? true, limit: o.limit, signal: controller.signal, dispatch,
            onStart: ({ toSend }) => (progress = createProgress(o.model, toSend, 'prompts', { note: dispatch !== undefined })),
            onResult: (e) => progress.tick(1, e.status === 'failed'),
          });
          progress.stop();
          for (const line of summary.invalid_lines) notice(`invalid prompt: ${line}`);
          if (o.json) printJson(summary);
          else process.stdout.write(summaryText(summary));
          if (summary.interrupted) process.exitCode = 130;
          else if (summary.failed > 0) {
            notice(`${summary.failed} of ${summary.prompts} prompts failed (ok ${summary.ok}, already done ${summary.cached}); exit code ${EXIT_PROMPTS_FAILED}`);
            process.exitCode = EXIT_PROMPTS_FAILED;
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
