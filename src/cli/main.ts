#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildProgram, USAGE_EXIT_CODE } from './program.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  // Commander has already printed its one-line message (or the help / version).
  if (!(err instanceof CommanderError)) throw err;
  process.exitCode = err.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
}
