import type { Command } from 'commander';

export function registerScore(program: Command): void {
  program.command('score').description("Score responses: CircularEval/VanillaEval reasoning and G-Score grounding");
}
