/**
 * `gsr annotate` as a library call: loads the models once, streams the images through them in
 * order (decoding up to `batch` images ahead), journals every finished image, and rebuilds
 * annotations.json atomically from the journal periodically and at the end. A bad image is
 * recorded as a failure and the run goes on; a resumed run skips what the journal holds.
 */
import { join } from 'node:path';
import { mkdir, stat } from 'node:fs/promises';
import { decodeRules, decodeSettings, loadImage } from '../perception/image.js';
import { readConfined } from '../util/confined.js';
import { lockOutputFolder } from '../util/lock.js';
import { notice } from '../util/log.js';
import { cudaProviderInstalled, SMALL_MODEL_BYTES } from '../perception/runtime.js';
import { getManifest, installedModelFile, precisionPath } from '../perception/manifest.js';
import { depthEstimators, detectors, segmenters } from '../perception/registry.js';
import type { DecodeOptions, Device, ModelLoadOptions, PluginProvenance, Precision, RgbImage, SessionTuning } from '../perception/types.js';
import { timeStage, timeStageAsync } from '../util/stage-clock.js';
import { GsrError, MachineFault, errorMessage, isMachineFault, isMachineFaultOnRead } from '../util/errors.js';
import type { Progress } from '../util/progress.js';
import { VERSION } from '../util/version.js';
import {
  assembleImage,
  chooseDetections,
  estimateDepth,
  runModels,
  segmentPicks,
  type DetectionPick,
  type ImageOutputOptions,
  type ObjectMask,
  type PerceptionModels,
} from './annotate-image.js';
import type { DepthMap } from '../perception/types.js';
import { writeAnnotationsFromJournal, type AnnotateSummary } from './assemble.js';
import type { AnnotationInfo } from '../formats/coco.js';
import { JOURNAL_FILE, openJournal, type JournalEntry, type RunSettings } from './journal.js';
import { describeModel, type ModelRecord } from './provenance.js';
import type { AnnotateTarget } from './targets.js';
import { ANNOTATIONS_FILE } from '../formats/coco.js';


export interface AnnotateOptions {
  targets: AnnotateTarget[];
  outDir: string;
  detector: string;
  /** Segmenter id, or null/undefined for boxes only. */
  segmenter?: string | null;
  /** Depth model id, or null/undefined for no depth. */
  depth?: string | null;
  modelsDir: string;
  device: Device;
  threads?: number;
  /** Model file variant: fp32 (default) or int8 (`<stem>.int8.onnx`, docs/perception.md). */
  precision?: Precision;
  /** onnxruntime session settings (docs/perception.md, "Speed"). */
  session?: SessionTuning;
  /** Image decoding rules other than the reference's (docs/perception.md, "Decoding"). */
  decode?: DecodeOptions;
  /** Port parameters (thresholds etc.), passed to every model and recorded in `info.thresholds`. */
  params?: Record<string, number | string>;
  /** Explicit model files by role, passed to the model factories. */
  files?: ModelLoadOptions['files'];
  /** With `lowMemory: false`: images decoded ahead of the models (default 2). */
  batch?: number;
  /**
   * Hand each image to the models' `prefetch` as soon as it is decoded, so its pre-processing runs
   * during the previous image's inference. Default: on when a model runs on the GPU; off on the CPU,
   * where it competes with onnxruntime's threads (docs/perception.md, "Speed").
   */
  prefetch?: boolean;
  overlays?: boolean;
  /** Discard an existing journal in `outDir` and start over. */
  restart?: boolean;
  /** Annotate again the images a previous run recorded as failed (default true, as `gsr run`; docs/cli.md). */
  retryFailed?: boolean;
  /** Lower-scoring boxes recorded per object (default 5). */
  maxRunnersUp?: number;
  /** Rebuild annotations.json at most this often during a run (default 60 s). */
  rebuildEveryMs?: number;
  /** Stops after the images in hand (the current one, and the one before it while its files are written); the output is still rebuilt and valid. */
  signal?: AbortSignal;
  progress?: Progress;
  /**
   * Take `outDir`'s lock for the run (default true), so a second writer into the same folder is refused
   * with a clear message. The pipeline passes false: it holds the lock of its whole output folder.
   */
  lock?: boolean;
  /** Called once the journal is read: how many images there are, were finished before, and remain. */
  onPlan?: (plan: { total: number; skipped: number; todo: number }) => void;
  /**
   * Keep one model in memory at a time (docs/perception.md, "Memory"): the images go through the
   * models in chunks of `lowMemoryChunk` (default 16), model by model, each model loaded for its turn
   * and released after it. Same outputs; peak memory is the largest single model's instead of all
   * models' together. An interrupt loses at most the current chunk's unfinished images. `false` keeps
   * every model loaded and streams the images through them (`batch`, `prefetch`), as does a run with
   * a detector alone (one model either way; each image is recorded as it is done). Default: one at a
   * time, unless every model's ONNX files are under SMALL_MODEL_BYTES (src/perception/runtime.ts) and
   * no `lowMemoryChunk` is given: small models are loaded together, since reloading them for every
   * chunk costs more than their memory does.
   */
  lowMemory?: boolean;
  lowMemoryChunk?: number;
  /** Who annotates the images (default: this process); the job queue passes its own (src/queue). */
  executor?: AnnotateExecutor;
}

/** What loads the models and is recorded in `info`. */
export type ModelSettings = Pick<AnnotateOptions, 'modelsDir' | 'device' | 'threads' | 'precision' | 'session' | 'decode' | 'params' | 'files' | 'detector' | 'segmenter' | 'depth'>;

export interface AnnotateRunSummary extends AnnotateSummary {
  images_total: number;
  /** Finished by an earlier run and not redone. */
  images_skipped: number;
  /** Annotated or failed in this run. */
  images_processed: number;
  interrupted: boolean;
  /** Wall time of the whole call, including model loading. */
  seconds: number;
  /** Model loading and provenance hashing. */
  load_seconds: number;
  /** Images processed in this run per second of the image loop (loading excluded). */
  images_per_second: number;
  annotations_file: string;
  device: string;
  /** The images that failed (as in `info.failures`): id, file and why. */
  failures: Array<{ item_id: string; file: string; error: string }>;
}

/**
 * The fewest pixels on a side of an image the annotator takes (our choice, docs/annotate.md): below it
 * no object can be told apart, yet a detector, which resizes every input, still returns boxes.
 */
export const MIN_IMAGE_SIDE = 8;

/** Decodes a target's image; a manifest item's image is read only when its real path stays inside its root. */
export function readTargetImage(target: AnnotateTarget, decode?: DecodeOptions): Promise<RgbImage> {
  return timeStageAsync('decode', async () => {
    const image = await readTargetImageUntimed(target, decode);
    if (Math.min(image.width, image.height) < MIN_IMAGE_SIDE) {
      throw new GsrError(`image ${target.fileName} is ${image.width}x${image.height} pixels, too small to annotate (fewer than ${MIN_IMAGE_SIDE} on a side)`);
    }
    return image;
  });
}

async function readTargetImageUntimed(target: AnnotateTarget, decode?: DecodeOptions): Promise<RgbImage> {
  if (target.root === undefined) return loadImage(target.imagePath, target.fileName, decode);
  let bytes: Buffer;
  try {
    bytes = await readConfined(target.imagePath, target.root);
  } catch (err) {
    if (err instanceof GsrError || isMachineFaultOnRead(err)) throw err;
    throw new GsrError(`cannot read image ${target.fileName}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
  }
  return loadImage(bytes, target.fileName, decode);
}

function provenanceOf(model: object | undefined): PluginProvenance {
  return (model as { provenance?: PluginProvenance } | undefined)?.provenance ?? {};
}

function loadOptions(o: ModelSettings): ModelLoadOptions {
  return {
    modelsDir: o.modelsDir,
    device: o.device,
    threads: o.threads,
    precision: o.precision,
    session: o.session,
    params: o.params,
    files: o.files,
  };
}

export async function loadModels(o: ModelSettings): Promise<PerceptionModels> {
  const load = loadOptions(o);
  const models: PerceptionModels = { detector: await detectors.get(o.detector)(load) };
  try {
    if (o.segmenter) models.segmenter = await segmenters.get(o.segmenter)(load);
    if (o.depth) models.depth = await depthEstimators.get(o.depth)(load);
  } catch (err) {
    await disposeModels(models);
    throw err;
  }
  return models;
}

/** Starts every model's pre-processing of `image` (pipelining); a failure surfaces on its turn. */
function prefetchAll(models: PerceptionModels, image: RgbImage): void {
  try {
    models.detector.prefetch?.(image);
    models.segmenter?.prefetch?.(image);
    models.depth?.prefetch?.(image);
  } catch {
    // The same call fails again, and is recorded, when the image's turn comes.
  }
}

export async function disposeModels(models: Partial<PerceptionModels>): Promise<void> {
  for (const m of [models.detector, models.segmenter, models.depth]) await m?.dispose().catch(() => undefined);
}

/** The device a run used, as far as it can be known without the plug-ins saying. */
function deviceOf(o: ModelSettings): string {
  if (o.device === 'auto' && !cudaProviderInstalled()) return 'cpu';
  return o.device;
}

export async function buildInfo(o: ModelSettings, created: string, models: PerceptionModels | null): Promise<AnnotationInfo> {
  const thresholds: Record<string, number> = {};
  const pluginThresholds: Record<string, number> = {};
  const list: ModelRecord[] = [];
  const devices = new Set<string>();
  const tasks: Array<[string, string | null | undefined, object | undefined]> = [
    ['detection', o.detector, models?.detector],
    ['segmentation', o.segmenter, models?.segmenter],
    ['depth', o.depth, models?.depth],
  ];
  for (const [task, id, model] of tasks) {
    if (!id) continue;
    const described = models ? await describeModel(id, task, o) : { record: { id, task, sha256: null }, thresholds: {} };
    const p = provenanceOf(model);
    if (p.sha256 !== undefined) described.record.sha256 = p.sha256;
    if (p.settings) described.record.settings = p.settings;
    if (o.precision === 'int8') described.record.settings = { ...described.record.settings, precision: 'int8' };
    if (o.session?.denormalAsZero) described.record.settings = { ...described.record.settings, denormals: 'flushed to zero' };
    const decoding = decodeSettings(o.decode);
    if (Object.keys(decoding).length > 0) described.record.settings = { ...described.record.settings, ...decoding };
    list.push(described.record);
    Object.assign(thresholds, described.thresholds);
    Object.assign(pluginThresholds, p.thresholds ?? {});
    devices.add(p.device ?? deviceOf(o));
  }
  // What a plug-in reports it uses wins over the parameters asked for.
  for (const [k, v] of Object.entries(o.params ?? {})) if (typeof v === 'number') thresholds[k] = v;
  Object.assign(thresholds, pluginThresholds);
  return {
    tool: 'gsr-bench',
    version: VERSION,
    date_created: created,
    source: 'auto',
    models: list,
    thresholds,
    device: [...devices].join('+') || deviceOf(o),
  };
}

/** Where an executor delivers its results: the run's provenance once, then each image's record in target order. */
export interface AnnotateSink {
  info(info: AnnotationInfo): void;
  entry(entry: JournalEntry): Promise<void>;
}

/**
 * Annotates `todo` in order and hands each record to the sink; the default runs the models here, the
 * job queue (src/queue) on workers. The journal, annotations.json and the summary are the run's.
 */
export type AnnotateExecutor = (todo: AnnotateTarget[], o: AnnotateOptions, sink: AnnotateSink) => Promise<{ interrupted: boolean }>;

const failedEntry = (target: AnnotateTarget, err: unknown): JournalEntry => ({
  type: 'failed',
  item_id: target.itemId,
  file: target.imagePath,
  error: errorMessage(err).split('\n')[0]!,
});

/**
 * The image's `failed` record for an item fault; a fault of the machine (src/util/errors.ts,
 * isMachineFault) is thrown on instead: it stops the run and is never recorded against the image.
 */
function itemFailure(target: AnnotateTarget, err: unknown): JournalEntry {
  if (isMachineFault(err)) throw err instanceof GsrError ? err : new MachineFault(`${target.itemId}: ${errorMessage(err).split('\n')[0]}`, { cause: err });
  return failedEntry(target, err);
}

/** One image start to finish: decoded, annotated, its files written; an item fault becomes its `failed` record. */
export async function annotateTarget(target: AnnotateTarget, image: Promise<RgbImage>, models: PerceptionModels, options: ImageOutputOptions): Promise<JournalEntry> {
  return (await startTarget(target, image, models, options)).written;
}

/**
 * {@link annotateTarget} in two steps: the image is decoded and run through the models before this
 * settles; `written` then writes its files (depth PNG, overlay) and settles to its record. A machine
 * fault rejects this call (in the models) or `written` (in the writing).
 */
async function startTarget(target: AnnotateTarget, image: Promise<RgbImage>, models: PerceptionModels, options: ImageOutputOptions): Promise<{ written: Promise<JournalEntry> }> {
  let decoded: RgbImage;
  let outputs: Awaited<ReturnType<typeof runModels>>;
  try {
    decoded = await image;
    outputs = await runModels(decoded, target, models);
  } catch (err) {
    return { written: Promise.resolve(itemFailure(target, err)) };
  }
  const written = assembleImage(decoded, target, outputs, options).catch((err: unknown) => itemFailure(target, err));
  written.catch(() => undefined); // a machine fault is thrown where the record is taken
  return { written };
}

/** The output options of a run, as every executor applies them. */
export function imageOutputOptions(o: Pick<AnnotateOptions, 'outDir' | 'overlays' | 'maxRunnersUp'>): ImageOutputOptions {
  return { outDir: o.outDir, overlays: o.overlays ?? false, maxRunnersUp: o.maxRunnersUp ?? 5 };
}

/** The local executor: models loaded once, images decoded `batch` ahead and annotated one at a time. */
async function annotateLocally(todo: AnnotateTarget[], o: AnnotateOptions, sink: AnnotateSink): Promise<{ interrupted: boolean }> {
  const models = await loadModels(o);
  // Images whose files are still being written, in target order, each recorded once written. Their
  // PNG encoding and writing runs on libuv's threads while the next image's models run on this one,
  // so one image is written ahead when there are files to write (none: each image is recorded before
  // the next starts, as a detector alone does).
  const writing: Array<Promise<JournalEntry>> = [];
  const writeAhead = o.depth || o.overlays ? 1 : 0;
  const record = async (keep: number) => {
    while (writing.length > keep) await sink.entry(await writing.shift()!);
  };
  try {
    sink.info(await buildInfo(o, '', models));
    const batch = Math.max(1, o.batch ?? 2);
    const prefetch = o.prefetch ?? [models.detector, models.segmenter, models.depth].some((m) => m?.device === 'cuda');
    const queue: Array<{ target: AnnotateTarget; image: Promise<RgbImage> }> = [];
    let next = 0;
    const fill = () => {
      while (queue.length < batch && next < todo.length) {
        const target = todo[next++];
        const image = readTargetImage(target, o.decode);
        image.catch(() => undefined); // handled when its turn comes
        if (prefetch) void image.then((img) => prefetchAll(models, img), () => undefined);
        queue.push({ target, image });
      }
    };
    fill();
    while (queue.length > 0) {
      if (o.signal?.aborted) {
        await record(0);
        return { interrupted: true };
      }
      const { target, image } = queue.shift()!;
      fill();
      try {
        writing.push((await startTarget(target, image, models, imageOutputOptions(o))).written);
      } catch (err) {
        await record(0).catch(() => undefined); // the images before this one are done: keep them
        throw err;
      }
      await record(writeAhead);
    }
    await record(0);
    return { interrupted: false };
  } finally {
    // A run stopped by a fault leaves no write running behind it.
    await Promise.allSettled(writing);
    await disposeModels(models);
  }
}

type Role = keyof PerceptionModels;

/** Holds at most one loaded model: asking for another role releases the current one first. */
class OneModel {
  private current: { role: Role; model: PerceptionModels[Role] } | null = null;
  /** Every model loaded so far, by role (provenance stays readable after release). */
  readonly seen: Partial<PerceptionModels> = {};
  constructor(private readonly o: ModelSettings) {}

  async get<R extends Role>(role: R): Promise<NonNullable<PerceptionModels[R]>> {
    if (this.current?.role !== role) {
      await this.release();
      const load = loadOptions(this.o);
      const first = !(role in this.seen);
      let model;
      try {
        model =
          role === 'detector' ? await detectors.get(this.o.detector)(load)
          : role === 'segmenter' ? await segmenters.get(this.o.segmenter!)(load)
          : await depthEstimators.get(this.o.depth!)(load);
      } catch (err) {
        // Loaded once already: a model file that vanished (or a disk that fails) is the machine's, not the images'.
        if (first) throw err;
        throw new MachineFault(`cannot load the ${role} model again (it loaded earlier in this run; was its folder removed?): ${errorMessage(err).split('\n')[0]}`, { cause: err });
      }
      this.current = { role, model };
      (this.seen as Record<Role, unknown>)[role] = model;
    }
    return this.current!.model as NonNullable<PerceptionModels[R]>;
  }

  async release(): Promise<void> {
    const m = this.current?.model;
    this.current = null;
    await m?.dispose().catch(() => undefined);
  }
}

interface ChunkItem {
  target: AnnotateTarget;
  image?: RgbImage;
  picks?: DetectionPick[];
  depth?: DepthMap;
  masks?: ObjectMask[];
  error?: unknown;
}

/**
 * The low-memory executor (`lowMemory`): chunks of images go through the detector, then the depth
 * model, then the segmenter, with only the model of the current turn loaded. Each image is recorded
 * once its last model is done, in target order.
 */
async function annotateOneModelAtATime(todo: AnnotateTarget[], o: AnnotateOptions, sink: AnnotateSink): Promise<{ interrupted: boolean }> {
  const models = new OneModel(o);
  try {
    // Every model is loaded once up front for the run's provenance; the detector stays for chunk 1.
    if (o.segmenter) await models.get('segmenter');
    if (o.depth) await models.get('depth');
    await models.get('detector');
    sink.info(await buildInfo(o, '', models.seen as PerceptionModels));
    const chunk = Math.max(1, o.lowMemoryChunk ?? 16);
    const output = imageOutputOptions(o);
    for (let start = 0; start < todo.length; start += chunk) {
      const items: ChunkItem[] = await Promise.all(
        todo.slice(start, start + chunk).map(async (target) => {
          try {
            return { target, image: await readTargetImage(target, o.decode) };
          } catch (error) {
            itemFailure(target, error); // throws a machine fault
            return { target, error };
          }
        }),
      );
      const turn = async (step: (item: ChunkItem, image: RgbImage) => Promise<void>) => {
        for (const item of items) {
          if (o.signal?.aborted) return false;
          if (item.error !== undefined) continue;
          try {
            await step(item, item.image!);
          } catch (error) {
            itemFailure(item.target, error); // throws a machine fault
            item.error = error;
          }
        }
        return true;
      };
      if (!(await turn(async (it, image) => void (it.picks = await chooseDetections(image, it.target, await models.get('detector')))))) return { interrupted: true };
      if (o.depth && !(await turn(async (it, image) => void (it.depth = await estimateDepth(image, await models.get('depth')))))) return { interrupted: true };
      const needsMasks = (it: ChunkItem) => it.error === undefined && it.picks!.some((p) => p.chosen !== null);
      if (o.segmenter && items.some(needsMasks) && !(await turn(async (it, image) => void (it.masks = await segmentPicks(image, it.picks!, await models.get('segmenter')))))) {
        return { interrupted: true };
      }
      for (const it of items) {
        let entry: JournalEntry = failedEntry(it.target, it.error);
        if (it.error === undefined) {
          try {
            entry = await assembleImage(it.image!, it.target, { picks: it.picks!, depth: it.depth, masks: o.segmenter ? (it.masks ?? []) : undefined }, output);
          } catch (error) {
            entry = itemFailure(it.target, error);
          }
        }
        await sink.entry(entry);
      }
    }
    return { interrupted: false };
  } finally {
    await models.release();
  }
}

/**
 * True when every ONNX file of the run's models is under SMALL_MODEL_BYTES (src/perception/runtime.ts);
 * false when one is larger or cannot be found (a model without a manifest, a missing file).
 */
export async function smallModels(o: Pick<ModelSettings, 'detector' | 'segmenter' | 'depth' | 'modelsDir' | 'files' | 'precision'>): Promise<boolean> {
  for (const id of [o.detector, o.segmenter, o.depth]) {
    if (!id) continue;
    try {
      const manifest = await getManifest(id);
      for (const f of manifest.files.filter((x) => x.path.endsWith('.onnx'))) {
        const path = precisionPath(installedModelFile(manifest, f.role, o.modelsDir, o.files), o.precision);
        if ((await stat(path)).size >= SMALL_MODEL_BYTES) return false;
      }
    } catch {
      return false;
    }
  }
  return true;
}

/** Runs the annotation; returns the summary over everything in the output folder. */
export async function annotate(o: AnnotateOptions): Promise<AnnotateRunSummary> {
  // Taking the lock creates the folder once nothing above it is held, so a refused run writes nothing.
  const lock = o.lock === false ? null : lockOutputFolder(o.outDir, 'gsr annotate');
  if (lock === null) await mkdir(o.outDir, { recursive: true });
  try {
    return await annotateUnlocked(o);
  } finally {
    lock?.release();
  }
}

/**
 * The settings of a journal header written before every decoding rule was recorded (versions that
 * decoded alpha, 16-bit grey or ICC profiles otherwise by default): the rules it names, and this
 * run's for the others, which it cannot tell. Null when the header records them all.
 */
function olderDecoding(recorded: RunSettings, rules: Record<string, string>): RunSettings | null {
  const named = recorded.decode ?? {};
  if (typeof named !== 'object' || named === null || Object.keys(rules).every((k) => k in named)) return null;
  return { ...recorded, decode: { ...rules, ...named } };
}

async function annotateUnlocked(o: AnnotateOptions): Promise<AnnotateRunSummary> {
  const started = Date.now();
  // Precision is recorded only when not the default, so journals of earlier default runs still
  // resume; the decoding rules always, since their defaults changed (olderDecoding).
  const settings = {
    detector: o.detector,
    segmenter: o.segmenter ?? null,
    depth: o.depth ?? null,
    params: o.params ?? {},
    ...(o.precision === 'int8' ? { precision: 'int8' } : {}),
    decode: decodeRules(o.decode),
  };
  const journal = await openJournal(join(o.outDir, JOURNAL_FILE), settings, {
    restart: o.restart,
    fillOlder: (recorded) => olderDecoding(recorded, settings.decode),
    onMachineFailures: (f) => notice(
      `${join(o.outDir, JOURNAL_FILE)}: ${f.failed} image${f.failed === 1 ? ' was' : 's were'} recorded as failed for a fault of the machine, not of the image (first: ${f.first.item_id}: ${f.first.error}); annotating them again, with the ${f.dropped} record${f.dropped === 1 ? '' : 's'} from the first of them on`,
    ),
  });
  if (journal.older) {
    notice(`${journal.path} was started by an older version of gsr-bench, whose decoding of images with alpha, 16-bit grey or an ICC profile may differ from this run's (docs/perception.md, "Decoding"); resuming it`);
  }
  const annotationsPath = join(o.outDir, ANNOTATIONS_FILE);
  const isFinished = (t: AnnotateTarget) => {
    const status = journal.finished.get(t.itemId);
    return status === 'done' || (status === 'failed' && o.retryFailed === false);
  };
  const todo = o.targets.filter((t) => !isFinished(t));
  o.onPlan?.({ total: o.targets.length, skipped: o.targets.length - todo.length, todo: todo.length });
  let processed = 0;
  let loopStarted = Date.now();
  let info = await buildInfo(o, journal.header.created, null);
  let lastRebuild = Date.now();
  const sink: AnnotateSink = {
    info(next) {
      info = { ...next, date_created: journal.header.created };
      journal.append({ type: 'info', info });
      loopStarted = Date.now();
    },
    async entry(entry) {
      timeStage('write', () => journal.append(entry));
      processed++;
      o.progress?.tick(1, entry.type === 'failed');
      if (Date.now() - lastRebuild >= (o.rebuildEveryMs ?? 60_000)) {
        await writeAnnotationsFromJournal(journal.path, annotationsPath, info);
        lastRebuild = Date.now();
      }
    },
  };
  let interrupted = false;
  try {
    // A detector alone is one model either way: stream it, so each image is recorded as it is done.
    // By default small models (all files under SMALL_MODEL_BYTES) stay loaded together too: their
    // memory is small beside the images', and reloading them per chunk is not (docs/perception.md, "Memory").
    const oneAtATime = Boolean(o.segmenter || o.depth) && (o.lowMemory ?? (o.lowMemoryChunk !== undefined || !(await smallModels(o))));
    const executor = o.executor ?? (oneAtATime ? annotateOneModelAtATime : annotateLocally);
    if (todo.length > 0) interrupted = (await executor(todo, o, sink)).interrupted;
  } finally {
    o.progress?.stop();
    journal.close();
  }
  const loopSeconds = (Date.now() - loopStarted) / 1000;
  const failures: AnnotateRunSummary['failures'] = [];
  const summary = await writeAnnotationsFromJournal(journal.path, annotationsPath, info, failures);
  const seconds = (Date.now() - started) / 1000;
  const r3 = (v: number) => Math.round(v * 1000) / 1000;
  return {
    images_total: o.targets.length,
    images_skipped: o.targets.length - todo.length,
    images_processed: processed,
    ...summary,
    interrupted,
    seconds: r3(seconds),
    load_seconds: r3((loopStarted - started) / 1000),
    // Three significant digits: at real model size on a CPU a run does a few hundredths of an image per second.
    images_per_second: processed > 0 && loopSeconds > 0 ? Number((processed / loopSeconds).toPrecision(3)) : 0,
    annotations_file: annotationsPath,
    device: info.device ?? o.device,
    failures,
  };
}
