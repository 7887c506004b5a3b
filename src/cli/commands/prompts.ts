import type { Command } from 'commander';

export function registerPrompts(program: Command): void {
  program.command('prompts').description("Build TG, MC, grounding and depth-augmented prompts from a manifest");
}
