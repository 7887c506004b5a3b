import type { Command } from 'commander';

export function registerRun(program: Command): void {
  program.command('run').description("Query an MLLM endpoint for a prompt file, cached and resumable");
}
