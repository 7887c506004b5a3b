#!/usr/bin/env node
import { VERSION } from '../util/version.js';

const args = process.argv.slice(2);
// `gsr --version` needs no command tree: answer before loading it (docs/cli.md, "Start-up").
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { runGsr } = await import('./program.js');
  process.exitCode = await runGsr(args);
}
