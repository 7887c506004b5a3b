import type { Command } from 'commander';

export function registerPipeline(program: Command): void {
  program.command('pipeline').description("Run an experiment pipeline (YAML) end to end, skipping unchanged stages");
}
