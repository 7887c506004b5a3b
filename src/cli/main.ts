#!/usr/bin/env node
import { VERSION } from '../util/version.js';

const args = process.argv.slice(2);
// `gsr --version` needs no command tree: answer before loading it (docs/cli.md, "Start-up").
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { CommanderError } = await import('commander');
  const { buildProgram, USAGE_EXIT_CODE } = await import('./program.js');
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (err) {
    // Commander has already printed its one-line message (or the help / version).
    if (!(err instanceof CommanderError)) throw err;
    process.exitCode = err.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
  }
}
