import type { Command } from 'commander';

export function registerResponses(program: Command): void {
  program.command('responses').description('Import or export model responses as JSONL');
}
