import type { Command } from 'commander';

export function registerAnalyze(program: Command): void {
  program.command('analyze').description("Statistics across models: regression with p-values, CIs, paired tests");
}
