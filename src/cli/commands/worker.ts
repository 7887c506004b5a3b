import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { choiceOption, parsePositiveInt } from '../parsers.js';
import type { Device } from '../../perception/types.js';
import { notice } from '../../util/log.js';

interface WorkerFlags {
  queue: string;
  run?: string;
  concurrency: number;
  lockMs: number;
  idleExitMs?: number;
  json?: boolean;
}

interface AnnotateWorkerFlags extends WorkerFlags {
  device: string;
  modelsDir: string;
  threads?: number;
}

/**
 * Runs a worker until SIGTERM/SIGINT: the first finishes the jobs in hand and exits 0; a second exits
 * at once (its jobs are handed out again once their locks lapse).
 */
async function serve(kind: 'annotate' | 'run', o: WorkerFlags, processorFor: Parameters<typeof import('../../queue/index.js').serveQueue>[1]): Promise<void> {
  const { serveQueue } = await import('../../queue/index.js');
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    notice('stopping: finishing the jobs in hand (signal again to quit now; those jobs are then handed out again)');
    controller.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const jobs = await serveQueue(
      { url: o.queue, kind, runId: o.run, concurrency: o.concurrency, lockMs: o.lockMs, idleExitMs: o.idleExitMs, signal: controller.signal, onEvent: (e) => {
        if (e.type === 'attached') notice(`worker ${process.pid}: serving run ${e.run}`);
        else if (e.type === 'detached') notice(`worker ${process.pid}: run ${e.run} has no more jobs (${e.jobs} done here)`);
        else if (e.type === 'refused') notice(`worker ${process.pid}: cannot serve run ${e.run}, leaving it to other workers: ${e.error}`);
        else notice(`worker ${process.pid}: job ${e.job} of run ${e.run} failed: ${e.error}`);
      } },
      processorFor,
    );
    if (o.json) printJson({ jobs });
    else notice(`worker ${process.pid}: stopped after ${jobs} jobs`);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  // After a Redis restart BullMQ's close can leave a timer or socket running for good (seen in
  // test/queue/annotate-queue.test.ts); the jobs are done and reported, so exit rather than wait.
  setTimeout(() => {
    notice(`worker ${process.pid}: exiting (a Redis connection did not close)`);
    process.exit(process.exitCode ?? 0);
  }, 2000).unref();
}

function common(cmd: Command, concurrencyHelp: string, concurrency: number): Command {
  return cmd
    .requiredOption('--queue <url>', 'Redis URL redis://HOST:PORT[/DB]')
    .option('--run <id>', 'serve only this queued run (default: any run of this kind with jobs waiting)')
    .option('--concurrency <n>', concurrencyHelp, parsePositiveInt, concurrency)
    .option('--lock-ms <n>', 'job lock: a dead worker\'s jobs are handed out again after this long', parsePositiveInt, 30_000)
    .option('--idle-exit-ms <n>', 'exit after this long with no run to serve (default: wait for work)', parsePositiveInt)
    .option('--json', 'print the number of jobs done as JSON at exit');
}

export function registerWorker(program: Command): void {
  const group = program.command('worker').description('Serve queued annotation shards or prompts (see docs/scale-out.md)');
  common(group.command('annotate').description('Annotate image shards queued by `gsr annotate run --queue`'), 'shards in hand at once (one model set each)', 1)
    .addOption(choiceOption('--device <device>', 'auto (CUDA if available, else CPU), cpu or cuda', ['auto', 'cpu', 'cuda'], 'auto'))
    .option('--models-dir <dir>', 'folder holding the model files', 'models')
    .option('--threads <n>', 'onnxruntime intra-op threads (default: 1 for a model file under 16 MB, else its choice)', parsePositiveInt)
    .action(
      action(async (o: AnnotateWorkerFlags) => {
        const { annotateProcessor } = await import('../../queue/index.js');
        await serve('annotate', o, (run) => annotateProcessor(run, { modelsDir: resolve(o.modelsDir), device: o.device as Device, threads: o.threads }));
      }),
    );
  common(group.command('run').description('Answer prompts queued by `gsr run --queue`'), 'requests in flight in this worker (the run\'s --concurrency caps all workers together)', 16).action(
    action(async (o: WorkerFlags) => {
      const { promptProcessor } = await import('../../queue/index.js');
      await serve('run', o, (run) => promptProcessor(run));
    }),
  );
}
