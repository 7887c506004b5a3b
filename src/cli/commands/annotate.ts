import { resolve } from 'node:path';
import type { Command } from 'commander';
import { action, printJson } from '../action.js';
import { EXIT, reportItemFailures } from '../exit.js';
import { choiceOption, collect, deprecatedOption, parseNumber, parsePositiveInt } from '../parsers.js';
import type { AnnotateTarget } from '../../annotate/index.js';
import { ALPHA_RULES, GREY16_RULES, ICC_RULES, type AlphaRule, type Device, type Grey16Rule, type IccRule, type Precision } from '../../perception/types.js';
import { GsrError } from '../../util/errors.js';
import { notice } from '../../util/log.js';
import { createProgress, type Progress } from '../../util/progress.js';

// The annotate library pulls in sharp and onnxruntime: load it only when the command runs.
const lib = () => import('../../annotate/index.js');

interface AnnotateCliOptions {
  manifest?: string;
  objects?: string;
  detector: string;
  segmenter: string;
  depth: string;
  device: string;
  batch: number;
  threads?: number;
  precision: string;
  lowMemory?: boolean;
  lowMemoryChunk?: number;
  flushDenormals?: boolean;
  decodeAlpha: string;
  decodeGrey16: string;
  decodeIcc: string;
  modelsDir: string;
  boxThreshold?: number;
  textThreshold?: number;
  scoreThreshold?: number;
  param: string[];
  out?: string;
  overlays?: boolean;
  force?: boolean;
  retryFailed?: boolean;
  json?: boolean;
  queue?: string;
  shardSize?: number;
  resume?: boolean;
}

const DEVICES = ['auto', 'cpu', 'cuda'];
/** Mirrors src/queue's default, without loading the queue module for --help. */
const DEFAULT_SHARD_SIZE_TEXT = '16';
const PRECISIONS = ['fp32', 'int8'];
const FLUSH_DENORMALS_HELP = 'CPU: flush denormal floats to zero in onnxruntime (faster where a model makes them; recorded in info.models; docs/perception.md, "Denormal floats")';

/** Model parameters from the threshold flags and `--param key=value` (numbers where they parse). */
function modelParams(o: AnnotateCliOptions): Record<string, number | string> {
  const params: Record<string, number | string> = {};
  for (const kv of o.param) {
    const at = kv.indexOf('=');
    if (at <= 0) throw new GsrError(`--param must be key=value, got "${kv}"`);
    const value = kv.slice(at + 1);
    params[kv.slice(0, at)] = value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  if (o.boxThreshold !== undefined) params.box_threshold = o.boxThreshold;
  if (o.textThreshold !== undefined) params.text_threshold = o.textThreshold;
  if (o.scoreThreshold !== undefined) params.score_threshold = o.scoreThreshold;
  return params;
}

async function targetsFor(images: string[], o: AnnotateCliOptions): Promise<AnnotateTarget[]> {
  const { assertUniqueIds, parseObjectList, targetsFromImages, targetsFromManifest } = await lib();
  if (o.manifest && images.length > 0) throw new GsrError('give either --manifest or image files, not both');
  if (o.manifest) {
    if (o.objects) throw new GsrError('--objects is for image files; a manifest names its own objects');
    const path = resolve(o.manifest);
    const targets = await targetsFromManifest(path);
    assertUniqueIds(targets, path);
    return targets;
  }
  if (images.length === 0) throw new GsrError('nothing to annotate: give --manifest FILE or image files with --objects "subject,object"');
  if (!o.objects) throw new GsrError('image files need --objects "subject,object" (the first is the subject)');
  return targetsFromImages(images, parseObjectList(o.objects));
}

const orNull = (id: string) => (id === 'none' ? null : id);

export function registerAnnotate(program: Command): void {
  const group = program.command('annotate').description('Auto-annotate images (boxes, masks, depth) and measure annotation quality');
  // `gsr annotate <images...|--manifest>` (no subcommand) was the spelling before `annotate run`; it
  // still runs `run`, with a notice, for one release.
  group.hook('preSubcommand', (thisCommand, subcommand) => {
    if (thisCommand.args.length === 0) thisCommand.help({ error: true });
    if (subcommand.name() === 'run' && thisCommand.args[0] !== 'run') {
      notice('"gsr annotate IMAGES|--manifest ..." is deprecated and will be removed in the next release; use "gsr annotate run ..."');
    }
  });
  const run = group
    .command('run', { isDefault: true })
    .description('Annotate images: boxes, masks and depth for every named object')
    .argument('[images...]', 'image files to annotate (with --objects), instead of --manifest')
    .option('--manifest <file>', 'manifest (JSONL) whose items name the subject and object')
    .option('--objects <list>', 'for image files: "subject,object" (the first is the subject)')
    .option('--detector <id>', 'detector model id', 'grounding-dino-tiny')
    .option('--segmenter <id>', 'segmenter model id, or none', 'none')
    .option('--depth <id>', 'depth model id, or none', 'none')
    .addOption(choiceOption('--device <device>', 'auto (CUDA if available, else CPU), cpu or cuda', DEVICES, 'auto'))
    .option('--batch <n>', 'with --no-low-memory: images decoded ahead of the models', parsePositiveInt, 2)
    .option('--threads <n>', 'onnxruntime intra-op threads (default: 1 for a model file under 16 MB, else its choice)', parsePositiveInt)
    .addOption(choiceOption('--precision <p>', 'model files: fp32, or int8 (<stem>.int8.onnx beside each, opt-in; docs/perception.md)', PRECISIONS, 'fp32'))
    .option('--low-memory', 'one model in memory at a time, the default unless every model file is under 16 MB: images go through the models in chunks, model by model (docs/perception.md, "Memory")')
    .option('--no-low-memory', 'keep every model loaded and stream the images through them (--batch); more memory, for GPUs or many chunks; the default when every model file is under 16 MB')
    .option('--low-memory-chunk <n>', 'images per chunk, one model at a time (default 16)', parsePositiveInt)
    .option('--flush-denormals', FLUSH_DENORMALS_HELP)
    .addOption(choiceOption('--decode-alpha <rule>', 'images with alpha: drop it, as Transformers\' load_image, or composite on white (recorded in info.models; docs/perception.md, "Decoding")', ALPHA_RULES, 'drop'))
    .addOption(choiceOption('--decode-grey16 <rule>', '16-bit grey images: clip above 255, as load_image, or keep the high byte (recorded in info.models; docs/perception.md, "Decoding")', GREY16_RULES, 'clip'))
    .addOption(choiceOption('--decode-icc <rule>', 'images with an ICC profile: ignore it, as load_image, or convert to sRGB through it (recorded in info.models; docs/perception.md, "Decoding")', ICC_RULES, 'ignore'))
    .option('--models-dir <dir>', 'folder holding the model files', 'models')
    .option('--box-threshold <x>', 'detector box threshold (GroundingDINO default 0.35)', parseNumber)
    .option('--text-threshold <x>', 'detector text threshold (GroundingDINO default 0.25)', parseNumber)
    .option('--score-threshold <x>', 'closed-vocabulary detector score threshold', parseNumber)
    .option('--param <key=value>', 'other model parameter (repeatable)', collect, [])
    .option('--out <dir>', 'output folder (annotations.json, depth/, overlays/, journal.jsonl); required')
    .option('--overlays', 'also draw masks, boxes and a depth heat-map to overlays/<item>.png (the item id made file-safe, as in depth/)')
    .option('--force', 'start over: discard the journal of an earlier run in --out')
    .option('--retry-failed', 'annotate again the images an earlier run recorded as failed (the default)')
    .option('--no-retry-failed', 'skip the images an earlier run recorded as failed')
    .option('--json', 'print the summary as JSON')
    .option('--queue <url>', 'annotate on queue workers (`gsr worker annotate`): Redis URL redis://HOST:PORT[/DB]')
    .option('--shard-size <n>', `with --queue: images per job (default ${DEFAULT_SHARD_SIZE_TEXT})`, parsePositiveInt)
    .option('--resume', 'with --queue: re-attach to the queued run recorded in --out')
    .action(
      action(async (images: string[], o: AnnotateCliOptions) => {
        if (!o.out) throw new GsrError('--out DIR is required (the output folder)');
        if (o.queue === undefined && (o.shardSize !== undefined || o.resume)) throw new GsrError('--shard-size and --resume go with --queue');
        if (o.queue !== undefined && o.lowMemory === true) throw new GsrError('--low-memory is for local runs; queue workers keep their models loaded');
        if (o.lowMemoryChunk !== undefined && (o.lowMemory === false || o.queue !== undefined)) throw new GsrError('--low-memory-chunk is for local runs one model at a time, not with --no-low-memory or --queue');
        const targets = await targetsFor(images, o);
        const { annotate } = await lib();
        const outDir = resolve(o.out);
        const controller = new AbortController();
        const onSigint = () => {
          notice('interrupted: finishing the current image, then writing annotations.json (Ctrl-C again to quit now)');
          controller.abort();
          process.once('SIGINT', () => process.exit(130));
        };
        process.once('SIGINT', onSigint);
        // The bar counts only the images this run will do, so rate and ETA are right on resume.
        let bar: Progress | undefined;
        const progress: Progress = { tick: (n, failed) => bar?.tick(n, failed), stop: () => bar?.stop() };
        const onPlan = ({ skipped, todo }: { skipped: number; todo: number }) => {
          if (skipped > 0) notice(`resuming: ${skipped} images already finished in ${outDir}, ${todo} to do`);
          bar = createProgress('annotate', todo, 'images', { note: o.queue !== undefined });
        };
        // The job queue is loaded only when asked for: without --queue nothing needs Redis.
        const q = o.queue === undefined ? undefined : await import('../../queue/index.js');
        const executor = q?.queueAnnotateExecutor({
          url: o.queue!, shardSize: o.shardSize, resume: o.resume,
          onRun: (r) => notice(`${r.resumed ? 're-attached to' : 'queued as'} run ${r.id} (queue ${r.queue}); start workers with \`gsr worker annotate --queue URL\``),
          onProgress: (p) => bar?.note?.(q.formatQueueProgress(p, 'shards')),
        });
        let summary;
        try {
          summary = await annotate({
            targets,
            outDir,
            detector: o.detector,
            segmenter: orNull(o.segmenter),
            depth: orNull(o.depth),
            modelsDir: resolve(o.modelsDir),
            device: o.device as Device,
            threads: o.threads,
            precision: o.precision as Precision,
            lowMemory: o.lowMemory,
            lowMemoryChunk: o.lowMemoryChunk,
            session: o.flushDenormals ? { denormalAsZero: true } : undefined,
            decode: { alpha: o.decodeAlpha as AlphaRule, grey16: o.decodeGrey16 as Grey16Rule, icc: o.decodeIcc as IccRule },
            params: modelParams(o),
            batch: o.batch,
            overlays: o.overlays ?? false,
            restart: o.force ?? false,
            retryFailed: o.retryFailed ?? true,
            signal: controller.signal,
            progress,
            onPlan,
            executor,
          });
        } finally {
          process.removeListener('SIGINT', onSigint);
        }
        if (summary.interrupted) process.exitCode = EXIT.interrupted;
        else {
          const failures = summary.failures.map((f) => `${f.item_id} (${f.file}): ${f.error}`);
          reportItemFailures('images', { failed: summary.images_failed, total: summary.images_done + summary.images_failed, succeeded: summary.images_done }, failures);
        }
        if (o.json) {
          printJson(summary);
          return;
        }
        process.stdout.write(
          [
            `images: ${summary.images_done} done, ${summary.images_failed} failed, ${summary.images_skipped} already finished before (of ${summary.images_total})`,
            `objects: ${summary.objects_found} found, ${summary.objects_not_found} not found`,
            `this run: ${summary.images_processed} images in ${summary.seconds.toFixed(1)} s (models ${summary.load_seconds.toFixed(1)} s, then ${summary.images_per_second} images/s) on ${summary.device}${summary.interrupted ? ', interrupted' : ''}`,
            `wrote ${summary.annotations_file}${summary.images_failed > 0 ? ' (failures listed in its info.failures)' : ''}`,
          ].join('\n') + '\n',
        );
      }),
    );

  deprecatedOption(run, '--restart', '--force');

  group
    .command('quality')
    .description('Compare auto-annotations with exact ground truth (e.g. from gsr dataset synth)')
    .requiredOption('--pred <file>', 'annotations.json written by gsr annotate')
    .requiredOption('--truth <file>', 'true annotations.json (e.g. a synthetic set)')
    .option('--json', 'print the report as JSON')
    .action(
      action(async (o: { pred: string; truth: string; json?: boolean }) => {
        const { annotationQuality, formatQualityReport } = await lib();
        const { readCocoFile } = await import('../../formats/coco.js');
        const report = annotationQuality(await readCocoFile(resolve(o.pred)), await readCocoFile(resolve(o.truth)));
        if (o.json) printJson(report);
        else process.stdout.write(formatQualityReport(report) + '\n');
      }),
    );
}
