import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { choiceOption, parsePositiveInt } from '../parsers.js';
import type { PromptTask } from '../../formats/prompts.js';
import { buildPromptFile } from '../../prompts/index.js';
import { GsrError } from '../../util/errors.js';
import { notice } from '../../util/log.js';

const TASKS: PromptTask[] = ['tg', 'mc', 'grounding', 'dap'];

function list(value: string | undefined): string[] | undefined {
  return value?.split(',').map((s) => s.trim()).filter(Boolean);
}

export function registerPrompts(program: Command): void {
  program
    .command('prompts')
    .description('Build TG, MC, grounding and depth-augmented prompts from a manifest')
    .requiredOption('--manifest <file>', 'manifest (JSONL)')
    .addOption(choiceOption('--task <task>', 'prompt type', TASKS).makeOptionMandatory())
    .requiredOption('--out <file>', 'prompt file to write (JSONL)')
    .option('--annotations <file>', 'COCO annotation file with depth (required for --task dap)')
    .option('--permutations <n>', 'rotations per item (default: one per option, CircularEval)', parsePositiveInt)
    .option('--templates <file>', 'YAML/JSON template overrides (top level for all models, models.<name> per model)')
    .option('--model <name>', 'use the templates of models.<name> in --templates')
    .addOption(choiceOption('--base <task>', 'DAP: base prompt', ['tg', 'mc'], 'mc'))
    .addOption(choiceOption('--depth-stat <stat>', 'DAP: depth inside the mask', ['median', 'mean'], 'median'))
    .option('--splits <list>', 'keep only these splits (comma-separated)')
    .option('--relations <list>', 'keep only these relations (comma-separated, e.g. front,behind)')
    .option('--json', 'print the summary as JSON')
    .action(
      action(async (o: { manifest: string; task: PromptTask; out: string; annotations?: string; permutations?: number; templates?: string; model?: string; base: 'tg' | 'mc'; depthStat: 'median' | 'mean'; splits?: string; relations?: string; json?: boolean }) => {
        if (o.model !== undefined && o.templates === undefined) throw new GsrError('--model selects templates and needs --templates FILE');
        const r = await buildPromptFile({
          manifest: o.manifest, task: o.task, out: resolve(o.out), annotations: o.annotations, permutations: o.permutations,
          templatesFile: o.templates, model: o.model, baseTask: o.base, depthStat: o.depthStat, splits: list(o.splits), relations: list(o.relations),
        });
        for (const s of r.skipped.slice(0, 20)) notice(`skipped ${s.item}: ${s.reason}`);
        if (r.skipped.length > 20) notice(`... and ${r.skipped.length - 20} more skipped items`);
        if (o.json) return printJson(r);
        process.stdout.write(`wrote ${r.prompts} ${r.task} prompts for ${r.items} items to ${r.out}${r.skipped.length ? ` (${r.skipped.length} items skipped)` : ''}\n`);
      }, (o) => ({ files: [o.out] })),
    );
}
