/** `gsr dataset synth svat`: generates SVAT items (docs/svat.md). */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { choiceOption, integerIn, listOf, parsePositiveInt, parseSeed } from '../parsers.js';
import { notice } from '../../util/log.js';
import { createProgress } from '../../util/progress.js';

export function registerSvatSynth(synth: Command): void {
  synth
    .command('svat')
    .description('Generate SVAT items: K balanced yes/no demonstrations and a query, one item per line (docs/svat.md)')
    .requiredOption('--out <dir>', 'output folder (items.jsonl, context.json, images/)')
    .option('--background <sets>', 'background sets, comma-separated: I1 white, I2 a colour, I3 textures, I4 synthetic rooms, I5 photos', listOf(['I1', 'I2', 'I3', 'I4', 'I5']), ['I1'])
    .option('--objects <sets>', "object sets, comma-separated: shape, tshape (the paper's shapes, plain or textured), objects (this toolkit's own extra set of 3-D kinds)", listOf(['shape', 'tshape', 'objects']), ['shape'])
    .option('--distractors <m>', 'objects per image M, the target included, comma-separated: 1, 3', listOf(['1', '3']), ['1'])
    .option('--text <modes>', 'question text, comma-separated: none (a word for "fiducial"), guide (the object\'s name)', listOf(['none', 'guide']), ['none'])
    .option('--shots <k>', 'demonstrations per item (even: half yes, half no)', integerIn(0, 32), 4)
    .requiredOption('--count <n>', 'items per combination of the settings above', parsePositiveInt)
    .option('--seed <s>', 'random seed (same seed, same bytes)', parseSeed, 0)
    .option('--width <px>', 'image width', parsePositiveInt, 512)
    .option('--height <px>', 'image height', parsePositiveInt, 512)
    .option('--photos <dir>', 'I5 photographs (default: rendered scenes stand in; the repository holds no photos)')
    .addOption(choiceOption('--colours <mode>', "random: the paper's uniform RGB shapes and I3-textured tshapes; palette: fixed hues the label check can find", ['random', 'palette'], 'random'))
    .addOption(choiceOption('--placement <mode>', "paper: Algorithm 1's centres over the whole image (objects may be clipped); boxed: whole boxes inside the image and off the line", ['paper', 'boxed'], 'paper'))
    .addOption(choiceOption('--distractor-placement <mode>', 'label-side: distractors on the label\'s side too, as Algorithm 1 is written; anywhere: only the target is', ['label-side', 'anywhere'], 'label-side'))
    .option('--json', 'print the result as JSON')
    .action(
      action(async (opts: { out: string; background: string[]; objects: string[]; distractors: string[]; text: string[]; shots: number; count: number; seed: number; width: number; height: number; photos?: string; colours: string; placement: string; distractorPlacement: string; json?: boolean }) => {
        const { generateBenchmark, loadItemSet } = await import('../../benchmarks/index.js');
        const out = resolve(opts.out);
        const { json, distractors, photos, distractorPlacement, ...rest } = opts;
        const settings = { ...rest, distractors: distractors.map(Number), distractor_placement: distractorPlacement, ...(photos ? { photos: resolve(photos) } : {}) };
        let progress: ReturnType<typeof createProgress> | undefined;
        const started = Date.now();
        const r = await generateBenchmark('svat', settings, out, (done, total) => {
          progress ??= createProgress('svat', total, 'items');
          progress.tick();
        }).finally(() => progress?.stop());
        const seconds = (Date.now() - started) / 1000;
        // The set's caveats (rendered stand-ins for I5's photographs), as its reports will state them.
        const set = await loadItemSet(out);
        for (const n of set.benchmark.notes?.(set.items) ?? []) notice(`warning: ${n}`);
        if (json) {
          printJson({ ...r, seconds });
          return;
        }
        const lines = Object.values(r.counts).flatMap((levels) => Object.entries(levels).map(([l, n]) => `${l.padEnd(24)} ${String(n).padStart(6)}`));
        process.stdout.write(`${lines.join('\n')}\nwrote ${r.items} SVAT items to ${out} (${seconds.toFixed(1)} s)\n`);
      }, (o) => ({ folders: [o.out] })),
    );
}
