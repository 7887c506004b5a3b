import type { Command } from 'commander';

export function registerReport(program: Command): void {
  program.command('report').description("Write a self-contained HTML report with tables, plots and an image gallery");
}
