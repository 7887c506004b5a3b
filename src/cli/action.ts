import type { Command } from 'commander';
import { GsrError, errorMessage } from '../util/errors.js';
import type { Lock, Outputs } from '../util/lock.js';

/** `gsr dataset import` for the commander Command an action was called with (its last argument). */
function commandName(args: unknown[]): string {
  const cmd = args.at(-1) as Command | undefined;
  const names: string[] = [];
  for (let c = cmd; c && typeof c.name === 'function'; c = c.parent ?? undefined) names.unshift(c.name());
  return names.join(' ') || 'gsr';
}

/**
 * Wraps a command handler: user mistakes become one line on stderr and a non-zero exit code;
 * GSR_DEBUG=1 adds the stack for bug reports. `writes` names what the command writes, from the same
 * arguments: it is held for the whole run (one writer per output tree, src/util/lock.ts), and a
 * command whose outputs lie in a tree another gsr command holds is refused before it does anything.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void, writes?: (...args: A) => Outputs): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let lock: Lock | undefined;
    try {
      // Loaded when a command writes: the lock opens SQLite, which start-up and --help must not load.
      if (writes) lock = (await import('../util/lock.js')).holdOutputs(commandName(args), writes(...args));
      await fn(...args);
    } catch (err) {
      process.stderr.write(`gsr: error: ${errorMessage(err)}\n`);
      if (process.env.GSR_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exitCode = err instanceof GsrError ? err.exitCode : 1;
    } finally {
      lock?.release();
    }
  };
}

/** Prints a result as JSON on stdout (for `--json`). */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
