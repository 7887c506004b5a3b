import type { Command } from 'commander';

export function registerDataset(program: Command): void {
  program.command('dataset').description("Import What'sUp or render synthetic scenes into a manifest");
}
