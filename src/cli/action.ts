import { GsrError, errorMessage } from '../util/errors.js';

/**
 * Wraps a command handler: user mistakes become one line on stderr and a non-zero exit code;
 * GSR_DEBUG=1 adds the stack for bug reports.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      process.stderr.write(`gsr: error: ${errorMessage(err)}\n`);
      if (process.env.GSR_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exitCode = err instanceof GsrError ? err.exitCode : 1;
    }
  };
}

/** Prints a result as JSON on stdout (for `--json`). */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
