import type { Command } from 'commander';

export function registerModels(program: Command): void {
  program.command('models').description("List, download and verify the ONNX perception models");
}
