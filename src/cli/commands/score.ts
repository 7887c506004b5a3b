import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { reportItemFailures } from '../exit.js';
import { choiceOption, collect, fromLibrary, numberIn, usageError } from '../parsers.js';
import type { ResponseRecord } from '../../formats/responses.js';
import type { SkippedRecord } from '../../util/jsonl.js';
import { BOX_FORMATS } from '../../scoring/box-formats.js';
import { parseInputSizeSpec } from '../../scoring/qwen-resize.js';
import type { BoxFormatOption, ReasoningMode } from '../../scoring/index.js';
import { GsrError } from '../../util/errors.js';
import { notice } from '../../util/log.js';
import { registerScoreEtPlan } from './score-et-plan.js';

// Loaded when a command runs (src/cli/program.ts, "Lazy loading").
const lib = async () => ({
  ...(await import('../../scoring/index.js')),
  ...(await import('../../formats/coco.js')),
  ...(await import('../../formats/prompts.js')),
  ...(await import('../../formats/responses.js')),
});

const MODES: ReasoningMode[] = ['circular', 'vanilla', 'both'];

/** Records that could not be read are failed items: exit 3 (docs/cli.md, "Exit codes"). */
function reportSkipped(skipped: SkippedRecord[], read: number): void {
  reportItemFailures('records', { failed: skipped.length, total: read + skipped.length, succeeded: read }, skipped.map((s) => `skipped ${s.file}:${s.line}: ${s.reason}`));
}

/** Folder-safe model name for the default results folder. */
function folderName(model: string): string {
  return model.replace(/[^A-Za-z0-9._-]+/g, '_') || 'unknown';
}

function pct(v: number | null): string {
  return v === null ? '-' : `${(v * 100).toFixed(1)}%`;
}

/**
 * `gsr score --benchmark NAME`: a plug-in's scoring, as a pipeline's score stage does it (the same
 * scores.jsonl and cells.json). Models are scored in the order they first appear in the files.
 */
async function scoreBenchmark(o: { benchmark: string; items?: string; prompts?: string; responses: string[]; model: string[]; out?: string; json?: boolean }): Promise<void> {
  if (o.items === undefined || o.prompts === undefined || o.responses.length === 0) throw usageError('--benchmark needs --items DIR, --prompts FILE and --responses FILE');
  const { loadBenchmarkItems, scoreModels, scoredUnparsed, unparsedWarnings, writeBenchScores } = await import('../../benchmarks/index.js');
  const { readBenchPrompts } = await import('../../formats/chat-prompt.js');
  const { tableText } = await import('../../report/bench-page.js');
  const { readResponseFile } = await import('../../formats/responses.js');
  const set = await loadBenchmarkItems(o.benchmark, resolve(o.items));
  const prompts = await readBenchPrompts(o.prompts);
  const skipped: SkippedRecord[] = [];
  const byModel = new Map<string, ResponseRecord[]>();
  let read = 0;
  for (const file of o.responses) {
    for (const r of await readResponseFile(file, skipped)) {
      read++;
      const list = byModel.get(r.model);
      if (list === undefined) byModel.set(r.model, [r]);
      else list.push(r);
    }
  }
  reportSkipped(skipped, read);
  const unknown = o.model.filter((m) => !byModel.has(m));
  if (unknown.length > 0) throw new GsrError(`no responses for model ${unknown.join(', ')} in ${o.responses.join(', ')} (models there: ${[...byModel.keys()].join(', ') || 'none'})`);
  const models = o.model.length > 0 ? new Map(o.model.map((m) => [m, byModel.get(m)!])) : byModel;
  if (models.size === 0) throw new GsrError(`${o.responses.join(', ')}: no responses`);
  const scores = scoreModels(set.benchmark, set.items, prompts, models);
  for (const w of unparsedWarnings(o.benchmark, scoredUnparsed(scores.scored))) notice(`warning: ${w}`);
  const dir = resolve(o.out ?? join('results', folderName(o.benchmark)));
  const paths = await writeBenchScores(dir, scores);
  if (o.json) return printJson({ benchmark: o.benchmark, models: [...models.keys()], cells: scores.cells, files: paths });
  for (const t of set.benchmark.tables(scores.cells, set.benchmark.analyze?.(scores.cells))) process.stdout.write(`${tableText(t)}\n\n`);
  process.stdout.write(`wrote ${paths.join(', ')}\n`);
}

export function registerScore(program: Command): void {
  const score = program
    .command('score')
    .enablePositionalOptions()
    .description("Score responses: CircularEval/VanillaEval reasoning and G-Score grounding; with --benchmark, a plug-in's scoring")
    .option('--benchmark <name>', 'a benchmark plug-in (vsp, snorkel-spatial, svat, whatsup): score --responses as its pipeline does')
    .option('--items <dir>', 'with --benchmark: the item set folder')
    .option('--prompts <file>', 'with --benchmark: the prompt file (from gsr prompts --benchmark)')
    .option('--responses <file>', 'with --benchmark: responses (JSONL, from gsr responses export); repeat for several files', collect, [])
    .option('--model <name>', 'with --benchmark: score only these models, in this order (repeat)', collect, [])
    .option('--out <dir>', 'with --benchmark: folder for scores.jsonl and cells.json (default results/<benchmark>)')
    .option('--json', 'print the cells as JSON')
    .action(
      action(async (o: { benchmark?: string; items?: string; prompts?: string; responses: string[]; model: string[]; out?: string; json?: boolean }) => {
        if (o.benchmark === undefined) throw usageError('give a command (score reasoning, score grounding) or --benchmark NAME');
        await scoreBenchmark({ ...o, benchmark: o.benchmark });
      }),
    );

  score
    .command('reasoning')
    .description("CircularEval and VanillaEval accuracy of TG, MC or DAP responses (Table 1), and What'sUp's own metrics on Controlled A and B")
    .requiredOption('--prompts <file>', 'prompts (JSONL) the responses answer')
    .requiredOption('--responses <file>', 'responses (JSONL: key, output, status)')
    .addOption(choiceOption('--mode <mode>', 'circular, vanilla or both', MODES, 'both'))
    .option('--model <name>', 'score only this model (needed when the file holds several)')
    .option('--out <dir>', 'results folder (default results/<model>)')
    .option('--json', 'print the result JSON on stdout')
    .action(
      action(async (o: { prompts: string; responses: string; mode: ReasoningMode; model?: string; out?: string; json?: boolean }) => {
        const { readPromptFile, readResponseFile, reasoningUnparsed, scoreReasoning, unparsedWarning, writeReasoningResults } = await lib();
        const skipped: SkippedRecord[] = [];
        const prompts = await readPromptFile(o.prompts, skipped);
        const responses = await readResponseFile(o.responses, skipped);
        reportSkipped(skipped, prompts.length + responses.length);
        if (prompts.length === 0) throw new GsrError(`${o.prompts}: no prompt records`);
        const { result, items } = scoreReasoning(prompts, responses, { mode: o.mode, model: o.model });
        if (items.length === 0) throw new GsrError(`${o.prompts}: no TG, MC or DAP prompts (grounding prompts are scored by "gsr score grounding")`);
        if (result.unmatched_responses > 0) notice(`${result.unmatched_responses} responses match no prompt key (ignored)`);
        const warning = unparsedWarning(result.model, result.task, reasoningUnparsed(result, items));
        if (warning) notice(`warning: ${warning}`);
        const dir = resolve(o.out ?? join('results', folderName(result.model)));
        const paths = await writeReasoningResults(dir, result, items);
        if (o.json) return printJson(result);
        for (const [split, c] of Object.entries(result.splits)) {
          process.stdout.write(`${split.padEnd(12)} n=${c.n} circular=${pct(c.circular)} vanilla=${pct(c.vanilla)} unparsed=${c.unparsed}\n`);
        }
        process.stdout.write(`total average: circular=${pct(result.total_average.circular)} vanilla=${pct(result.total_average.vanilla)}\n`);
        for (const [split, w] of Object.entries(result.whatsup ?? {})) {
          process.stdout.write(
            `${split.padEnd(12)} What'sUp metrics (mean of ${w.passes} pass(es)): individual=${pct(w.individual)} pair=${pct(w.pair)} set=${pct(w.set)}; ` +
              `every rotation right: individual=${pct(w.circular.individual)} pair=${pct(w.circular.pair)} set=${pct(w.circular.set)}\n`,
          );
        }
        process.stdout.write(`wrote ${paths.join(', ')}\n`);
      }, (o) => ({ inside: [o.out ?? 'results'] })),
    );

  score
    .command('grounding')
    .description('G-Score: IoU of the MLLM boxes with the annotation boxes (Table 2)')
    .requiredOption('--responses <file>', 'grounding responses (JSONL: key, output, item, role)')
    .requiredOption('--annotations <file>', 'COCO annotation file (images[].item_id, annotations[].role)')
    .option('--iou <t>', 'IoU threshold for a hit, in (0, 1]', numberIn(0, 1), 0.5)
    .addOption(choiceOption('--box-format <name>', 'box format (default: the family of the model name, else auto; auto too reads the family first)', [...BOX_FORMATS, 'auto']))
    .option('--image-size <spec>', 'qwen2.5-vl input size: WxH, or smart-resize[:minPixels:maxPixels] per image (default smart-resize)', fromLibrary(parseInputSizeSpec))
    .option('--llava-padded', 'llava: boxes are relative to the padded square image (LLaVA-1.5)')
    .option('--model <name>', 'score only this model (needed when the file holds several)')
    .option('--out <dir>', 'results folder (default results/<model>)')
    .option('--json', 'print the result JSON on stdout')
    .action(
      action(async (o: { responses: string; annotations: string; iou: number; boxFormat?: BoxFormatOption; imageSize?: ReturnType<typeof parseInputSizeSpec>; llavaPadded?: boolean; model?: string; out?: string; json?: boolean }) => {
        const { describeBoxFormat, groundingUnparsed, noLabelNote, readCocoFile, readResponseFile, resolveBoxFormat, scoreGrounding, unparsedWarning, writeGroundingResults } = await lib();
        const inputSize = o.imageSize;
        const skipped: SkippedRecord[] = [];
        const responses = await readResponseFile(o.responses, skipped);
        reportSkipped(skipped, responses.length);
        const coco = await readCocoFile(o.annotations);
        const model = o.model ?? responses.find((r) => r.role)?.model ?? 'unknown';
        const resolved = resolveBoxFormat(o.boxFormat, model);
        notice(describeBoxFormat(model, resolved));
        const { result, items } = scoreGrounding(responses, coco, { boxFormat: resolved.format, iou: o.iou, inputSize, llavaPadded: o.llavaPadded, model: o.model });
        if (result.no_annotation > 0) notice(`${result.no_annotation} responses ask about items the annotation file does not hold (not scored)`);
        const count = groundingUnparsed(result);
        const warning = unparsedWarning(result.model, 'grounding', count);
        if (warning) notice(`warning: ${warning}`);
        const dir = resolve(o.out ?? join('results', folderName(result.model)));
        const paths = await writeGroundingResults(dir, result, items);
        if (o.json) return printJson(result);
        for (const [col, c] of Object.entries(result.columns)) {
          process.stdout.write(`${col.padEnd(20)} n=${c.n} g-score=${pct(c.accuracy)} mean_iou=${c.mean_iou?.toFixed(3) ?? '-'} unparsed=${c.unparsed} missing=${c.missing} no_label=${c.no_label}\n`);
        }
        const columns = Object.keys(result.columns).length;
        process.stdout.write(`avg g-score: ${pct(result.avg_g_score)} over ${columns} column${columns === 1 ? '' : 's'} (${count.unparsed} of ${count.total} answers unparsed, ${count.missing} missing)\n`);
        const note = noLabelNote(result);
        if (note) process.stdout.write(`${note}\n`);
        process.stdout.write(`wrote ${paths.join(', ')}\n`);
      }, (o) => ({ inside: [o.out ?? 'results'] })),
    );

  registerScoreEtPlan(score);
}
