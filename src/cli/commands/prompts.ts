import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { reportItemFailures } from '../exit.js';
import { choiceOption, parsePositiveInt, usageError } from '../parsers.js';
import type { PromptTask } from '../../formats/prompts.js';
import { EXPORT_IMAGES, EXPORT_SHAPES, type ExportImages, type ExportShape } from '../../prompts/export-names.js';
import { GsrError, errorMessage } from '../../util/errors.js';

// Loaded when the command runs (src/cli/program.ts, "Lazy loading").
const lib = () => import('../../prompts/index.js');

const TASKS: PromptTask[] = ['tg', 'mc', 'grounding', 'dap'];

function list(value: string | undefined): string[] | undefined {
  return value?.split(',').map((s) => s.trim()).filter(Boolean);
}

interface PromptsFlags {
  manifest?: string; task?: PromptTask; out?: string; annotations?: string; permutations?: number; templates?: string; model?: string; base: 'tg' | 'mc';
  depthStat: 'median' | 'mean'; splits?: string; relations?: string; json?: boolean; benchmark?: string; items?: string; settings?: string;
}

/**
 * `gsr prompts --benchmark NAME --items DIR`: a plug-in's prompts, as a pipeline's prompts stage
 * builds them. Settings come from --settings (the pipeline's `benchmark.prompts`), and for What'sUp
 * also from its own flags.
 */
async function benchmarkPrompts(o: PromptsFlags, command: Command): Promise<void> {
  const name = o.benchmark!;
  if (o.items === undefined) throw usageError('--benchmark needs --items DIR (from gsr dataset import or gsr dataset synth)');
  const whatsupOnly = { task: o.task, permutations: o.permutations, templates: o.templates, model: o.model, relations: o.relations };
  const given = (Object.keys(whatsupOnly) as Array<keyof typeof whatsupOnly>).filter((k) => whatsupOnly[k] !== undefined);
  const manifestOnly = (['manifest', 'annotations', 'base', 'depthStat'] as const).filter((k) => o[k] !== undefined && command.getOptionValueSource(k) !== 'default');
  if (manifestOnly.length > 0) throw usageError(`--${manifestOnly[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --manifest, not --benchmark`);
  if (name !== 'whatsup' && given.length > 0) throw usageError(`--${given[0]} applies to --benchmark whatsup; set ${name}'s prompt settings with --settings FILE`);
  if (o.relations !== undefined) throw usageError('--relations goes with --manifest');
  const { loadBenchmarkItems, writeBenchPromptFile } = await import('../../benchmarks/index.js');
  const settings: Record<string, unknown> = o.settings === undefined ? {} : await readSettingsFile(o.settings);
  if (o.task !== undefined) settings.task = o.task;
  if (o.permutations !== undefined) settings.permutations = o.permutations;
  if (o.templates !== undefined) settings.templates = await readSettingsFile(o.templates);
  if (o.model !== undefined) settings.model = o.model;
  const set = await loadBenchmarkItems(name, resolve(o.items));
  const levels = list(o.splits);
  const items = [...set.items.values()].filter((i) => levels === undefined || levels.includes(i.level));
  const r = await writeBenchPromptFile(set.benchmark, items, settings, set.context, resolve(o.out!));
  if (o.json) printJson(r);
  else process.stdout.write(`wrote ${r.prompts} ${name} prompts (${r.images} images) for ${r.items} items to ${r.out}${r.skipped.length ? ` (${r.skipped.length} items skipped)` : ''}\n`);
  if (items.length === 0) throw new GsrError(`${o.items}: no items${levels ? ' match --splits' : ''}, so no prompts were written`);
  reportItemFailures('items', { failed: r.skipped.length, total: r.items + r.skipped.length, succeeded: r.items }, r.skipped.map((s) => `${s.item}: ${s.reason}`));
}

/** A YAML or JSON object from a file (YAML reads both). */
async function readSettingsFile(path: string): Promise<Record<string, unknown>> {
  const { readFile } = await import('node:fs/promises');
  const { parse } = await import('yaml');
  let value: unknown;
  try {
    value = parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new GsrError(`${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `not YAML or JSON (${errorMessage(err).split('\n')[0]})`}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new GsrError(`${path}: settings must be a mapping`);
  return value as Record<string, unknown>;
}

export function registerPrompts(program: Command): void {
  const prompts = program
    .command('prompts')
    .enablePositionalOptions()
    .description("Build TG, MC, grounding and depth-augmented prompts from a manifest, or a benchmark plug-in's prompts (--benchmark); `prompts export` writes them for other harnesses")
    .option('--manifest <file>', 'manifest (JSONL) (required without --benchmark)')
    .addOption(choiceOption('--task <task>', 'prompt type (required with --manifest; with --benchmark whatsup: tg or mc)', TASKS))
    .option('--out <file>', 'prompt file to write (JSONL) (required)')
    .option('--benchmark <name>', 'a benchmark plug-in (vsp, snorkel-spatial, svat, whatsup): build its prompts from --items')
    .option('--items <dir>', 'with --benchmark: the item set folder (items.jsonl, context.json)')
    .option('--settings <file>', "with --benchmark: the plug-in's prompt settings (YAML/JSON), as a pipeline's benchmark.prompts")
    .option('--annotations <file>', 'COCO annotation file with depth (required for --task dap)')
    .option('--permutations <n>', 'rotations per item (default: one per option, CircularEval)', parsePositiveInt)
    .option('--templates <file>', 'YAML/JSON template overrides (top level for all models, models.<name> per model)')
    .option('--model <name>', 'use the templates of models.<name> in --templates')
    .addOption(choiceOption('--base <task>', 'DAP: base prompt', ['tg', 'mc'], 'mc'))
    .addOption(choiceOption('--depth-stat <stat>', 'DAP: depth inside the mask', ['median', 'mean'], 'median'))
    .option('--splits <list>', 'keep only these splits (comma-separated; with --benchmark: levels)')
    .option('--relations <list>', 'keep only these relations (comma-separated, e.g. front,behind)')
    .option('--json', 'print the summary as JSON')
    .action(
      action(async (o: PromptsFlags, command: Command) => {
        // Not a required option: commander would then ask `prompts export` for it too.
        if (o.out === undefined) throw usageError("required option '--out <file>' not specified");
        if (o.benchmark !== undefined) return benchmarkPrompts(o, command);
        if (o.manifest === undefined || o.task === undefined) throw usageError(`required option '${o.manifest === undefined ? '--manifest <file>' : '--task <task>'}' not specified (or give --benchmark NAME --items DIR)`);
        if (o.items !== undefined || o.settings !== undefined) throw usageError('--items and --settings go with --benchmark');
        if (o.model !== undefined && o.templates === undefined) throw new GsrError('--model selects templates and needs --templates FILE');
        const { buildPromptFile } = await lib();
        const r = await buildPromptFile({
          manifest: o.manifest, task: o.task, out: resolve(o.out), annotations: o.annotations, permutations: o.permutations,
          templatesFile: o.templates, model: o.model, baseTask: o.base, depthStat: o.depthStat, splits: list(o.splits), relations: list(o.relations),
        });
        if (o.json) printJson(r);
        else process.stdout.write(`wrote ${r.prompts} ${r.task} prompts for ${r.items} items to ${r.out}${r.skipped.length ? ` (${r.skipped.length} items skipped)` : ''}\n`);
        if (r.items === 0 && r.skipped.length === 0) {
          throw new GsrError(`${o.manifest}: no items${o.splits || o.relations ? ' match --splits/--relations' : ''}, so no prompts were written`);
        }
        const reasons = r.skipped.map((s) => `${s.item}: ${s.reason}`);
        reportItemFailures('items', { failed: r.skipped.length, total: r.items + r.skipped.length, succeeded: r.items }, reasons);
      }, (o) => ({ files: o.out === undefined ? [] : [o.out] })),
    );

  prompts
    .command('export')
    .description("Write a prompt file for another harness: a VLMEvalKit custom-dataset TSV (docs/interop.md)")
    .requiredOption('--prompts <file>', 'prompt file (JSONL): What\'s Up TG/MC or a plug-in\'s')
    .addOption(choiceOption('--format <name>', 'target harness', ['vlmevalkit']).makeOptionMandatory())
    .requiredOption('--out <file>', 'file to write (.tsv; copy it to $LMUData/NAME.tsv)')
    .addOption(choiceOption('--shape <shape>', 'prompt: VLMEvalKit asks our text as is; mcq: option columns and the answer letter (What\'s Up MC), so VLMEvalKit builds its own MCQ prompt and scores too', EXPORT_SHAPES, 'prompt'))
    .addOption(choiceOption('--images <how>', 'embed: base64 in the TSV; paths: the images\' absolute paths (image_path)', EXPORT_IMAGES, 'embed'))
    .option('--json', 'print the summary as JSON')
    .action(
      action(async (o: { prompts: string; out: string; shape: ExportShape; images: ExportImages; json?: boolean }) => {
        const { exportVlmevalkit } = await lib();
        const r = await exportVlmevalkit({ prompts: o.prompts, out: resolve(o.out), shape: o.shape, images: o.images });
        if (o.json) return printJson(r);
        process.stdout.write(`wrote ${r.rows} rows (${r.images} images, shape ${r.shape}) to ${r.out}\n`);
      }, (o) => ({ files: [o.out] })),
    );
}
