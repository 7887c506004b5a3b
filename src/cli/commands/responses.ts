import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { deprecatedOption } from '../parsers.js';
import { exportResponses, importResponses, RunStore } from '../../mllm/index.js';
import { notice } from '../../util/log.js';

export function registerResponses(program: Command): void {
  const responses = program.command('responses').description('Import or export model responses as JSONL');

  responses
    .command('export')
    .description('Write stored responses as JSONL, one line per prompt')
    .requiredOption('--store <file>', 'run store (SQLite)')
    .requiredOption('--out <file>', 'responses file to write (JSONL)')
    .option('--model <name>', 'only this model')
    .option('--settings <id>', 'only this settings id (needed when a model was run with several settings)')
    .option('--json', 'print the summary as JSON')
    .action(
      action(async (o: { store: string; out: string; model?: string; settings?: string; json?: boolean }) => {
        const store = RunStore.open(resolve(o.store), { create: false });
        try {
          const r = await exportResponses(store, { out: resolve(o.out), model: o.model, settings: o.settings });
          if (o.json) return printJson(r);
          process.stdout.write(`wrote ${r.lines} responses (${Object.entries(r.counts).map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}) to ${r.out}\n`);
        } finally {
          store.close();
        }
      }, (o) => ({ files: [o.out] })),
    );

  const importCmd = responses
    .command('import')
    .description("Bring another harness's predictions into a run store")
    .argument('<file>', 'JSONL: key (or item/task/rotation/role with --prompts), output, optional status/error/latency_ms')
    .requiredOption('--model <name>', 'model name to store them under')
    .requiredOption('--store <file>', 'run store (SQLite)')
    .option('--prompts <file>', 'prompt file: check keys, copy item/permutation/role, match lines without key')
    .option('--force', 'overwrite responses already stored as ok')
    .option('--json', 'print the summary as JSON')
    .action(
      action(async (file: string, o: { model: string; store: string; prompts?: string; force?: boolean; json?: boolean }) => {
        const store = RunStore.open(resolve(o.store));
        try {
          const r = await importResponses(store, { file, model: o.model, prompts: o.prompts, replace: o.force });
          for (const line of r.invalid_lines) notice(`skipped ${line}`);
          if (o.json) return printJson(r);
          process.stdout.write(`imported ${r.imported} responses for ${r.model} (settings ${r.settings_id}); kept ${r.kept} already ok; ${r.invalid} invalid lines skipped\n`);
        } finally {
          store.close();
        }
      }, (_file, o) => ({ files: [o.store] })),
    );
  deprecatedOption(importCmd, '--replace', '--force');

  responses
    .command('status')
    .description('Counts by model, settings and status in a run store')
    .requiredOption('--store <file>', 'run store (SQLite)')
    .option('--json', 'print as JSON')
    .action(
      action(async (o: { store: string; json?: boolean }) => {
        const store = RunStore.open(resolve(o.store), { create: false });
        try {
          const rows = store.listSettings().map((s) => ({ model: s.model, settings_id: s.id, settings: s.settings, counts: store.counts({ model: s.model, settings: s.id }) }));
          if (o.json) return printJson(rows);
          for (const r of rows) process.stdout.write(`${r.model}  ${r.settings_id}  ${Object.entries(r.counts).map(([s, n]) => `${s} ${n}`).join(', ') || 'empty'}  ${JSON.stringify(r.settings)}\n`);
        } finally {
          store.close();
        }
      }),
    );
}
