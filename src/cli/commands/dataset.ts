import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { choiceOption, integerIn, parseIntList, parsePositiveInt, parseSeed } from '../parsers.js';
import { WHATSUP_FILES } from '../../datasets/whatsup-records.js';
import { notice } from '../../util/log.js';
import { createProgress } from '../../util/progress.js';
import { GsrError } from '../../util/errors.js';
import { registerSvatSynth } from './dataset-svat.js';
import { importEtPlanCommand, registerEtPlanSynth } from './dataset-et-plan.js';

// Loaded when a command runs (src/cli/program.ts, "Lazy loading"): the importers pull in sharp.
const lib = () => import('../../datasets/index.js');

function countTable(counts: Record<string, number>): string {
  const rows = Object.entries(counts);
  const total = rows.reduce((sum, [, n]) => sum + n, 0);
  const width = Math.max(5, ...rows.map(([s]) => s.length));
  const line = (name: string, n: number | string) => `${name.padEnd(width)}  ${String(n).padStart(6)}`;
  return [line('split', 'items'), ...rows.map(([s, n]) => line(s, n)), line('total', total)].join('\n');
}

function benchmarkCountTable(counts: Record<string, Record<string, number>>): string {
  const rows = Object.entries(counts).map(([task, levels]) => [task, Object.entries(levels).map(([l, n]) => `${l}:${n}`).join(' '), String(Object.values(levels).reduce((a, b) => a + b, 0))]);
  const w0 = Math.max(4, ...rows.map((r) => r[0].length));
  const w1 = Math.max(6, ...rows.map((r) => r[1].length));
  const line = (r: string[]) => `${r[0].padEnd(w0)}  ${r[1].padEnd(w1)}  ${r[2].padStart(5)}`;
  const total = rows.reduce((s, r) => s + Number(r[2]), 0);
  return [line(['task', 'levels', 'items']), ...rows.map(line), line(['total', '', String(total)])].join('\n');
}

export function registerDataset(program: Command): void {
  // Positional options: `dataset synth <benchmark> --out ...` leaves --out to the sub-command.
  const dataset = program.command('dataset').description("Import What'sUp or render synthetic scenes into a manifest").enablePositionalOptions();

  dataset
    .command('import')
    .description("Import a benchmark's files into a manifest (JSONL)")
    .argument('<format>', 'dataset format: whatsup, et-plan (ET-Plan-Bench\'s released task files, as text), or a benchmark plug-in (vsp)')
    .requiredOption('--root <dir>', "What'sUp data folder (holding the JSON files) or the folder holding data/; for a benchmark, its published copy")
    .requiredOption('--out <path>', 'manifest to write (JSONL); for a benchmark, the folder for items.jsonl and context.json')
    .option('--splits <list>', `comma-separated splits to read; each file must exist (${WHATSUP_FILES.map((s) => s.split).join(', ')})`)
    .option('--skip-invalid', 'skip bad records (listed on stderr) instead of failing')
    .option('--no-sizes', 'do not read image widths and heights')
    .option('--oracle-log <file>', 'et-plan: also write the ground truth as an agent log (success true), an example input for gsr score et-plan-logs')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (format: string, opts: { root: string; out: string; splits?: string; skipInvalid?: boolean; sizes: boolean; oracleLog?: string; json?: boolean }) => {
        // ET-Plan-Bench's released files are text records of their own (released-tasks.jsonl), not items.
        if (format === 'et-plan') return importEtPlanCommand(opts);
        if (format !== 'whatsup') {
          const { benchmarks, importBenchmark } = await import('../../benchmarks/index.js');
          if (!benchmarks.has(format)) throw new GsrError(`unknown dataset format "${format}" (known: whatsup, ${benchmarks.names().join(', ')})`);
          const r = await importBenchmark(format, opts.root, resolve(opts.out));
          if (opts.json) printJson(r);
          else process.stdout.write(`${benchmarkCountTable(r.counts)}\nwrote ${r.items} ${format} items to ${r.out}\n`);
          return;
        }
        const { importWhatsupToManifest } = await lib();
        const splits = opts.splits?.split(',').map((s) => s.trim()).filter(Boolean);
        const out = resolve(opts.out);
        const r = await importWhatsupToManifest(opts.root, out, { splits, skipInvalid: opts.skipInvalid ?? false, readSizes: opts.sizes });
        for (const w of r.warnings) notice(`warning: ${w}`);
        for (const s of r.skipped) notice(`skipped: ${s}`);
        if (opts.json) {
          printJson({ out, root: r.root, items: r.items.length, counts: r.counts, files: r.files, warnings: r.warnings, skipped: r.skipped });
          return;
        }
        process.stdout.write(`${countTable(r.counts)}\nwrote ${r.items.length} items to ${out}\n`);
      }, (format, o) => (format === 'whatsup' ? { files: [o.out] } : { folders: [o.out] })),
    );

  const synth = dataset
    .command('synth')
    .enablePositionalOptions()
    .description('Render synthetic What\'sUp-like scenes with exact boxes, masks and depth; `synth <benchmark>` generates a procedural benchmark\'s items')
    .option('--out <dir>', 'output folder (manifest.jsonl, images/, depth/, annotations.json) (required)')
    .option('--count <n>', 'number of scenes (required)', parsePositiveInt)
    .option('--seed <s>', 'random seed (same seed, same bytes)', parseSeed, 0)
    .option('--width <px>', 'image width', parsePositiveInt, 640)
    .option('--height <px>', 'image height', parsePositiveInt, 480)
    .addOption(choiceOption('--format <fmt>', 'image format', ['jpg', 'png'], 'jpg'))
    .option('--workers <n>', 'render worker threads (0: in-process; default: one per CPU, at most 8)', integerIn(0, 64))
    .option('--json', 'print the result as JSON')
    .action(
      action(async (opts: { out: string; count: number; seed: number; width: number; height: number; format: 'jpg' | 'png'; workers?: number; json?: boolean }) => {
        const { synthesizeDataset } = await lib();
        const progress = createProgress('synth', opts.count, 'scenes');
        const out = resolve(opts.out);
        const r = await synthesizeDataset({ ...opts, out, onScene: () => progress.tick() }).finally(() => progress.stop());
        if (opts.json) {
          printJson({ out, ...r });
          return;
        }
        process.stdout.write(`${countTable(r.counts)}\nwrote ${r.scenes} scenes to ${out} (${r.seconds.toFixed(1)} s, ${r.scenesPerSecond.toFixed(1)} scenes/s)\n`);
      }, (o) => ({ folders: [o.out] })),
    );
  // Commander checks required options of every ancestor, so a sub-command would need synth's --out and
  // --count too: synth checks its own, for its own action only, with commander's message and exit code.
  synth.hook('preAction', (self, actionCommand) => {
    if (actionCommand !== self) return;
    for (const o of self.options.filter((x) => x.long === '--out' || x.long === '--count')) {
      if (self.getOptionValue(o.attributeName()) === undefined) self.error(`error: required option '${o.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
    }
  });
  registerSnorkelSynth(synth);
  registerSvatSynth(synth);
  registerEtPlanSynth(synth);
  registerLayoutSynth(synth);
}

function registerSnorkelSynth(synth: Command): void {
  synth
    .command('snorkel-spatial')
    .description('Generate SnorkelSpatial puzzles (items.jsonl, context.json): a moving, rotating board and its particles')
    .requiredOption('--out <dir>', 'folder for items.jsonl and context.json')
    .requiredOption('--count <n>', 'number of items', parsePositiveInt)
    .option('--actions <list>', 'action counts, cycled over the items', parseIntList, [10, 20, 50, 100, 200])
    .option('--seed <s>', 'random seed (same seed, same bytes)', parseSeed, 0)
    .option('--board-width <n>', 'tiles per board side', integerIn(2, 100), 20)
    .option('--particles <n>', 'particles on the board', integerIn(2, 9), 3)
    .option('--json', 'print the result as JSON')
    .action(
      action(async (opts: { out: string; count: number; actions: number[]; seed: number; boardWidth: number; particles: number; json?: boolean }) => {
        const { generateBenchmark } = await import('../../benchmarks/index.js');
        const { out, json, boardWidth, ...rest } = opts;
        const settings = { ...rest, board_width: boardWidth };
        const started = performance.now();
        const r = await generateBenchmark('snorkel-spatial', settings, resolve(out));
        const seconds = (performance.now() - started) / 1000;
        if (json) printJson({ ...r, settings, seconds });
        else process.stdout.write(`${benchmarkCountTable(r.counts)}\nwrote ${r.items} snorkel-spatial items to ${r.out} (${seconds.toFixed(2)} s)\n`);
      }, (o) => ({ folders: [o.out] })),
    );
}

/** Samples in a published benchmark's folder layout, made by this project (for `gsr dataset import`). */
function registerLayoutSynth(synth: Command): void {
  synth
    .command('whatsup-layout')
    .description("Render a small sample in What'sUp's folder layout (OUT/data: the six official JSON files and their images; OUT/annotations.json: exact boxes) to import with `gsr dataset import whatsup`")
    .requiredOption('--out <dir>', 'output folder (the files go in OUT/data)')
    .option('--seed <s>', 'random seed (same seed, same bytes)', parseSeed, 0)
    .option('--width <px>', 'image width', parsePositiveInt, 320)
    .option('--height <px>', 'image height', parsePositiveInt, 240)
    .option('--json', 'print the result as JSON')
    .action(
      action(async (opts: { out: string; seed: number; width: number; height: number; json?: boolean }) => {
        const { writeWhatsupLayout } = await lib();
        const r = await writeWhatsupLayout(resolve(opts.out), opts);
        if (opts.json) printJson(r);
        else process.stdout.write(`${countTable(r.records)}\nwrote ${r.images} images and the six What'sUp files to ${r.dataDir}, their exact boxes to ${r.annotations}\n`);
      }, (o) => ({ folders: [o.out] })),
    );
  synth
    .command('vsp-layout')
    .description('Generate a small sample in VSP\'s folder layout (every task and level: maps, pictures, texts, examples, prompt templates) to import with `gsr dataset import vsp`')
    .requiredOption('--out <dir>', 'output folder (absent or empty)')
    .option('--seed <s>', 'random seed (same seed, same bytes)', parseSeed, 1)
    .option('--items <n>', 'items per task and level', integerIn(1, 100), 2)
    .option('--examples <n>', 'in-context examples per task and level', integerIn(1, 8), 2)
    .option('--json', 'print the result as JSON')
    .action(
      action(async (opts: { out: string; seed: number; items: number; examples: number; json?: boolean }) => {
        const { writeVspLayout } = await import('../../benchmarks/vsp/layout.js');
        const out = resolve(opts.out);
        const r = await writeVspLayout(out, { seed: opts.seed, items: opts.items, examples: opts.examples });
        if (opts.json) printJson({ out, ...r });
        else process.stdout.write(`wrote ${r.files} files in VSP's layout to ${out}\n`);
      }, (o) => ({ folders: [o.out] })),
    );
}
