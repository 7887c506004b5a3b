#!/usr/bin/env node
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
import { registerPipeline } from './commands/pipeline.js';

import { VERSION } from '../util/version.js';

const program = new Command();
program
  .name('gsr')
  .description('gsr-bench: grounded spatial reasoning evaluation of multimodal LLMs')
  .version(VERSION)
  .showHelpAfterError('(run with --help for usage)')
  .configureOutput({ outputError: (str, write) => write(`gsr: ${str.replace(/^error: /, 'error: ')}`) });

// Groups in data-flow order.
registerDataset(program);
registerModels(program);
registerAnnotate(program);
registerPrompts(program);
registerRun(program);
registerResponses(program);
registerScore(program);
registerAnalyze(program);
registerReport(program);
registerPipeline(program);

await program.parseAsync(process.argv);
