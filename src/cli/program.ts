import { Command } from 'commander';
import { registerDataset } from './commands/dataset.js';
import { registerModels } from './commands/models.js';
import { registerAnnotate } from './commands/annotate.js';
import { registerPrompts } from './commands/prompts.js';
import { registerRun } from './commands/run.js';
import { registerResponses } from './commands/responses.js';
import { registerScore } from './commands/score.js';
import { registerAnalyze } from './commands/analyze.js';
import { registerReport } from './commands/report.js';
import { registerReview } from './commands/review.js';
import { registerPipeline } from './commands/pipeline.js';
import { registerWorker } from './commands/worker.js';
import { registerQueue } from './commands/queue.js';
import { VERSION } from '../util/version.js';

export { USAGE_EXIT_CODE } from './parsers.js';

/**
 * The `gsr` command tree. Commander errors are thrown as CommanderError (exitOverride) rather than
 * exiting, so main.ts decides the exit code and tests can parse in-process.
 */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name('gsr')
    .description('gsr-bench: grounded spatial reasoning evaluation of multimodal LLMs')
    .version(VERSION)
    .exitOverride()
    // Each command's options follow it, so a sub-command may reuse its parent's option names
    // (`gsr dataset synth --out` and `gsr dataset synth snorkel-spatial --out`).
    .enablePositionalOptions()
    .configureOutput({ outputError: (str, write) => write(`gsr: ${str}`) });

  // Groups in data-flow order; subcommands inherit exitOverride and the output settings.
  registerDataset(program);
  registerModels(program);
  registerAnnotate(program);
  registerPrompts(program);
  registerRun(program);
  registerResponses(program);
  registerScore(program);
  registerAnalyze(program);
  registerReport(program);
  registerReview(program);
  registerPipeline(program);
  // Scale-out (docs/scale-out.md): queue workers and queue housekeeping.
  registerWorker(program);
  registerQueue(program);
  return program;
}
