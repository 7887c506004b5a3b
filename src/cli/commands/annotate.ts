import type { Command } from 'commander';

export function registerAnnotate(program: Command): void {
  program.command('annotate').description("Auto-annotate images: boxes, masks and depth for every named object");
}
