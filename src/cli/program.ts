/**
 * The `gsr` command tree.
 *
 * Lazy loading (docs/cli.md, "Start-up"): `gsr --version`, `gsr --help` and every `--help` build the
 * whole tree, so registering a command must stay cheap. A command module (src/cli/commands/) imports
 * at its top only commander, ../action.js, ../parsers.js, ../exit.js, src/util's errors, log and
 * progress, node: built-ins, `import type` of anything, and the small constant modules its options
 * list (e.g. scoring/box-formats.js for `--box-format`). Its library code is imported inside the
 * action, through a `const lib = () => import(...)` line at the top of the module and
 * `const { scoreReasoning } = await lib()` in the action (src/cli/commands/score.ts).
 *
 * test/cli/lazy.test.ts checks that start-up and help load no library module and no onnxruntime or
 * sharp, and that commands which do not annotate never load them.
 */
import { Command, CommanderError, type ParseOptionsResult } from 'commander';
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
import { EXIT } from './exit.js';
import { VERSION } from '../util/version.js';

export { USAGE_EXIT_CODE } from './parsers.js';

const HELP_FLAGS = new Set(['-h', '--help']);

/** Commander's Command, with unknown options reported before a missing required option. */
class GsrCommand extends Command {
  override createCommand(name?: string): Command {
    return new GsrCommand(name);
  }

  override parseOptions(argv: string[]): ParseOptionsResult {
    const parsed = super.parseOptions(argv);
    // Commander checks required options first, so `--manifset x` would read "required option
    // --manifest not specified". An unknown option on a command that runs is the mistake to name:
    // with it, no option counts as required, and commander then reports it with the nearest flag.
    const leaf = this.commands.length === 0;
    if (leaf && parsed.unknown.some((a) => a.startsWith('-') && a !== '-') && !parsed.unknown.some((a) => HELP_FLAGS.has(a))) {
      for (const option of this.options) option.mandatory = false;
    }
    return parsed;
  }
}

/**
 * Commander's two-line "unknown option '--x'\n(Did you mean --y?)" as one line:
 * "unknown option --x (did you mean --y?)".
 */
export function oneLineError(text: string): string {
  return text
    .replace(/^error: unknown (option|command) '([^']*)'/, 'error: unknown $1 $2')
    .replace(/\n\(Did you mean (.+)\?\)\n?$/, ' (did you mean $1?)\n');
}

/**
 * The `gsr` command tree. Commander errors are thrown as CommanderError (exitOverride) rather than
 * exiting, so main.ts decides the exit code and tests can parse in-process.
 */
export function buildProgram(): Command {
  const program = new GsrCommand();
  program
    .name('gsr')
    .description('gsr-bench: grounded spatial reasoning evaluation of multimodal LLMs')
    .version(VERSION)
    .exitOverride()
    // Each command's options follow it, so a sub-command may reuse its parent's option names
    // (`gsr dataset synth --out` and `gsr dataset synth snorkel-spatial --out`).
    .enablePositionalOptions()
    .configureOutput({ outputError: (str, write) => write(`gsr: ${oneLineError(str)}`) });

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

/**
 * Runs `gsr` with `args` (the words after `gsr`) and returns its exit code (docs/cli.md, "Exit
 * codes"): the one an action set, or 2 for a usage error (commander has printed its one line). The
 * process's own exit code is left as it was, so tests can run commands in-process.
 */
export async function runGsr(args: string[]): Promise<number> {
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await buildProgram().parseAsync(args, { from: 'user' });
    return Number(process.exitCode ?? EXIT.ok);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } finally {
    process.exitCode = before;
  }
}
