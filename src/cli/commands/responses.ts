import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { EXIT } from '../exit.js';
import { choiceOption, deprecatedOption } from '../parsers.js';
import { IMPORT_SOURCES, LMMS_MATCH, type ImportSource, type LmmsMatch } from '../../mllm/import-names.js';
import { notice } from '../../util/log.js';

// Loaded when a command runs (src/cli/program.ts, "Lazy loading"): the store opens SQLite.
const lib = () => import('../../mllm/index.js');

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
        const { exportResponses, RunStore } = await lib();
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
    .description("Bring another harness's answers into a run store: gsr JSONL, VLMEvalKit prediction files, lmms-eval samples (docs/interop.md)")
    .argument('<file>', 'jsonl: key (or item/task/rotation/role with --prompts), output; vlmevalkit: .xlsx, .tsv or .json; lmms-eval: a *_samples_<task>.jsonl')
    .requiredOption('--model <name>', 'model name to store them under')
    .requiredOption('--store <file>', 'run store (SQLite)')
    .addOption(choiceOption('--from <harness>', 'what wrote the file', IMPORT_SOURCES, 'jsonl'))
    .option('--prompts <file>', 'the prompt file the answers answer (required for vlmevalkit and lmms-eval: records are matched by their place in it)')
    .addOption(choiceOption('--match <key>', 'lmms-eval: doc-id (the prompt\'s 0-based place in --prompts) or input (the prompt\'s text)', LMMS_MATCH, 'doc-id'))
    .option('--strict', 'stop at the first invalid, unmatched or duplicated record and import nothing')
    .option('--force', 'overwrite responses already stored as ok')
    .option('--json', 'print the summary as JSON')
    .action(
      action(async (file: string, o: { model: string; store: string; from: ImportSource; prompts?: string; match: LmmsMatch; strict?: boolean; force?: boolean; json?: boolean }) => {
        const { importResponses, RunStore } = await lib();
        const store = RunStore.open(resolve(o.store));
        try {
          const r = await importResponses(store, { file, model: o.model, prompts: o.prompts, replace: o.force, from: o.from, match: o.match, strict: o.strict });
          for (const line of r.problems.slice(0, 20)) notice(line);
          const skipped = r.invalid + r.unmatched + r.duplicated;
          if (skipped > 20) notice(`... ${skipped - 20} more problems (all counted below; --json lists the first 100)`);
          if (r.filtered) {
            notice(
              `${r.filtered} samples have resps beside filtered_resps (a filter changed the answer): imported from resps, which is the model's raw answer only if lmms-eval ran with --reasoning_tags none; by default it is the filter's output (docs/interop.md)`,
            );
          }
          // Records left out are not a failed command, but the exit code says so (docs/interop.md).
          if (r.invalid + r.unmatched > 0) process.exitCode = EXIT.someFailed;
          if (o.json) return printJson(r);
          process.stdout.write(
            `${r.model} (settings ${r.settings_id}): ${r.records} records | matched ${r.matched} | imported ${r.imported} | unchanged ${r.unchanged} | kept ${r.kept}` +
              ` | unmatched ${r.unmatched} | duplicated ${r.duplicated} | empty ${r.empty} | failed ${r.failed} | invalid ${r.invalid}` +
              `${r.missing === null ? '' : ` | prompts without an answer ${r.missing}`}\n`,
          );
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
        const { RunStore } = await lib();
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
