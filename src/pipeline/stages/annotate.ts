/**
 * Stage `annotate`: writes `annotations.json` (COCO) from the synthetic renderer's exact truth, the
 * auto-annotator (`gsr annotate` models), or a file the user brings. On synthetic data it also runs
 * the auto-annotator when its models are installed and reports its quality against the exact truth.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { getManifest, modelFilePath, modelNotInstalled } from '../../perception/manifest.js';
import type { ComparisonOverlay } from '../../annotate/index.js';
import { GsrError } from '../../util/errors.js';
import { writeJsonAtomic } from '../../util/fs.js';
import type { PipelineConfig } from '../../formats/pipeline.js';
import type { Stage, StageContext } from '../engine.js';
import { sha256File } from '../../util/hash.js';
import { ANNOTATIONS_FILE, readCocoFile, type CocoFile } from '../../formats/coco.js';
import { MANIFEST_FILE } from '../../formats/manifest.js';

// Loaded when the stage runs, not at start-up: it pulls in sharp and onnxruntime (docs/cli.md, "Start-up").
const annotateLib = () => import('../../annotate/index.js');

export const DEFAULT_DETECTOR = 'grounding-dino-tiny';

export interface AnnotateStageSummary {
  source: 'exact' | 'models' | 'file';
  /** One line saying what perception was used, for the summary. */
  perception: string;
  images: number;
  annotations: number;
  /** Auto-annotator quality against the exact truth (synthetic data with models installed). */
  quality?: unknown;
  failed?: number;
  /** The first images that failed (item faults), with why. */
  failures?: Array<{ item_id: string; error: string }>;
  /** Synthetic scenes annotated by models: overlays of the first scenes, model beside truth (`overlays/`). */
  overlays?: ComparisonOverlay[];
}

/** Synthetic scenes annotated by models: this many get overlays beside the truth's, for the report. */
export const COMPARISON_OVERLAYS = 6;

type Source = 'exact' | 'models' | 'file';

/** Which annotation source a pipeline uses once `auto` is resolved. */
export function annotationSource(config: PipelineConfig): Source {
  const s = config.annotations.source;
  if (s !== 'auto') return s;
  if (config.annotations.file) return 'file';
  return config.dataset.synthetic ? 'exact' : 'models';
}

/** True when the pipeline scores against models' pseudo-labels and the dataset has exact truth (synthetic scenes). */
export function hasTruthBesidePseudoLabels(config: PipelineConfig): boolean {
  return annotationSource(config) === 'models' && config.dataset.synthetic !== undefined;
}

/**
 * The annotation file the answerers that read one (geometric, simulated) get. They stand in for
 * models that look at the picture, so where the dataset has exact truth beside pseudo-labels they
 * read the truth; otherwise the annotate stage's file.
 */
export function answererAnnotations(config: PipelineConfig, datasetDir: string, annotateDir: string): string {
  return join(hasTruthBesidePseudoLabels(config) ? datasetDir : annotateDir, ANNOTATIONS_FILE);
}

/** Model ids the annotator would use, with defaults. */
export function annotatorModels(config: PipelineConfig) {
  const m = config.annotations.models;
  return {
    detector: m?.detector ?? DEFAULT_DETECTOR,
    segmenter: m?.segmenter ?? null,
    depth: m?.depth ?? null,
    device: m?.device ?? 'auto',
    modelsDir: m?.models_dir ?? resolve('models'),
    params: Object.fromEntries(
      Object.entries({ box_threshold: m?.box_threshold, text_threshold: m?.text_threshold, score_threshold: m?.score_threshold }).filter(([, v]) => v !== undefined),
    ) as Record<string, number>,
    // Only when asked for, so the stage hash of a pipeline that decodes as the reference is unchanged.
    ...(m?.decode_alpha !== undefined || m?.decode_grey16 !== undefined || m?.decode_icc !== undefined
      ? { decode: { alpha: m.decode_alpha, grey16: m.decode_grey16, icc: m.decode_icc } }
      : {}),
  };
}

/** Model ids among `ids` whose files are not all present in `modelsDir` (unknown ids count as missing). */
export async function missingModels(ids: string[], modelsDir: string): Promise<string[]> {
  const missing: string[] = [];
  for (const id of ids) {
    try {
      const manifest = await getManifest(id);
      if (!manifest.files.every((f) => existsSync(modelFilePath(manifest, f.role, modelsDir)))) missing.push(id);
    } catch {
      missing.push(id);
    }
  }
  return missing;
}

/** The sha256 each model's manifest lists for its files (null where unknown). */
async function listedHashes(ids: string[]): Promise<Array<Array<string | null> | null>> {
  return Promise.all(ids.map((id) => getManifest(id).then((mf) => mf.files.map((f) => f.sha256), () => null)));
}

/** Depth PNG paths are relative to the annotation file; re-anchor them for the file's new folder. */
function reanchorDepth(coco: CocoFile, fromDir: string, toDir: string): CocoFile {
  return { ...coco, images: coco.images.map((im) => (im.depth_file ? { ...im, depth_file: relative(toDir, resolve(fromDir, im.depth_file)).split('\\').join('/') } : im)) };
}

async function runAnnotator(config: PipelineConfig, ctx: StageContext, manifest: string, outDir: string, limit = Infinity) {
  const { annotate, targetsFromManifest } = await annotateLib();
  const m = annotatorModels(config);
  const targets = (await targetsFromManifest(manifest)).slice(0, limit);
  ctx.progress.start(targets.length, 'images');
  // With `queue:` the images go to queue workers; the module (and Redis) is loaded only then.
  const executor = config.queue && (await import('../../queue/index.js')).queueAnnotateExecutor({ url: config.queue.url, shardSize: config.queue.shard_size, resume: true });
  const r = await annotate({
    targets, outDir, detector: m.detector, segmenter: m.segmenter, depth: m.depth, modelsDir: m.modelsDir, device: m.device, params: m.params, decode: m.decode, executor: executor || undefined,
    progress: { tick: (n, failed) => ctx.progress.tick(n, failed), stop() {} }, signal: ctx.signal,
    lock: false, // the engine holds the lock of the whole output folder
  });
  if (r.interrupted) throw new Error('interrupted (annotated images are kept in the journal; run again to resume)');
  return r;
}

/** An annotator run's failed images for a stage summary: the count and the first few (the pipeline reports them, and exits 3). */
export function failuresOf(r: { images_failed: number; failures: Array<{ item_id: string; error: string }> }): { failed: number; failures?: Array<{ item_id: string; error: string }> } {
  if (r.images_failed === 0) return { failed: 0 };
  return { failed: r.images_failed, failures: r.failures.slice(0, 5).map((f) => ({ item_id: f.item_id, error: f.error })) };
}

export function annotateStage(config: PipelineConfig): Stage {
  const source = annotationSource(config);
  const m = annotatorModels(config);
  const wanted = [m.detector, m.segmenter, m.depth].filter((x): x is string => x !== null);
  return {
    name: 'annotate',
    stopping: 'finishing the images in hand (annotated images are kept in the journal)',
    code: [import.meta.url],
    after: ['dataset'],
    settings: { source, models: source === 'file' ? null : m, compare: source === 'exact' && config.annotations.compare_models ? config.annotations.compare_limit : null },
    async fingerprint() {
      if (source === 'file') return { file: await sha256File(config.annotations.file!) };
      // Installing a model changes what an exact-truth run does (it adds the quality comparison); the
      // hashes a manifest lists change when its shipped file is made again (training/README.md).
      return { missing: await missingModels(wanted, m.modelsDir), sha256: await listedHashes(wanted) };
    },
    async run(ctx): Promise<AnnotateStageSummary> {
      const datasetDir = ctx.input('dataset');
      const manifest = join(datasetDir, MANIFEST_FILE);
      const out = join(ctx.dir, ANNOTATIONS_FILE);
      const finalDir = ctx.finalDir;
      if (source === 'file') {
        const file = config.annotations.file!;
        const coco = await readCocoFile(file);
        await writeJsonAtomic(out, reanchorDepth(coco, dirname(file), finalDir));
        return { source, perception: `annotations from ${file}`, images: coco.images.length, annotations: coco.annotations.length };
      }
      if (source === 'exact') {
        const exactPath = join(datasetDir, ANNOTATIONS_FILE);
        if (!existsSync(exactPath)) throw new GsrError('annotations.source is exact, but the dataset has no exact annotations (only synthetic scenes do)');
        const truth = await readCocoFile(exactPath);
        await writeJsonAtomic(out, reanchorDepth(truth, datasetDir, finalDir));
        const summary: AnnotateStageSummary = { source, perception: '', images: truth.images.length, annotations: truth.annotations.length };
        const missing = await missingModels(wanted, m.modelsDir);
        if (!config.annotations.compare_models) {
          summary.perception = 'exact synthetic ground truth';
        } else if (missing.length > 0) {
          summary.perception = `exact synthetic ground truth (no ${missing.includes(m.detector) ? 'detector' : 'model'} installed: run \`gsr models pull ${missing[0]}\`)`;
        } else {
          const limit = config.annotations.compare_limit;
          const auto = await runAnnotator(config, ctx, manifest, join(ctx.dir, 'auto'), limit);
          // Compared on the scenes it annotated only, so the rest do not count as misses.
          const pred = await readCocoFile(auto.annotations_file);
          const done = new Set(pred.images.map((im) => im.item_id));
          const images = truth.images.filter((im) => done.has(im.item_id));
          const ids = new Set(images.map((im) => im.id));
          const { annotationQuality } = await annotateLib();
          const quality = annotationQuality(pred, { ...truth, images, annotations: truth.annotations.filter((a) => ids.has(a.image_id)) });
          await writeJsonAtomic(join(ctx.dir, 'quality.json'), quality);
          summary.quality = quality;
          Object.assign(summary, failuresOf(auto));
          const r50 = quality.recall_at_50 === null ? 'n/a' : `${(quality.recall_at_50 * 100).toFixed(1)}%`;
          summary.perception = `exact synthetic ground truth; auto-annotator (${wanted.join(' + ')}) on ${images.length} scenes: box recall@0.5 ${r50} against it`;
        }
        return summary;
      }
      const missing = await missingModels(wanted, m.modelsDir);
      if (missing.length > 0) throw modelNotInstalled(missing[0], m.modelsDir);
      const r = await runAnnotator(config, ctx, manifest, ctx.dir);
      const summary: AnnotateStageSummary = { source, perception: `auto-annotator: ${wanted.join(' + ')} on ${r.device}`, images: r.images_total, annotations: r.objects_found, ...failuresOf(r) };
      const exactPath = join(datasetDir, ANNOTATIONS_FILE);
      if (!existsSync(exactPath)) return summary;
      // Synthetic scenes: the pseudo-labels against the exact truth, and the first scenes' overlays.
      const truth = await readCocoFile(exactPath);
      const pred = await readCocoFile(r.annotations_file);
      const { annotationQuality, writeComparisonOverlays } = await annotateLib();
      const quality = annotationQuality(pred, truth);
      await writeJsonAtomic(join(ctx.dir, 'quality.json'), quality);
      summary.quality = quality;
      summary.overlays = await writeComparisonOverlays({ coco: pred, dir: ctx.dir }, { coco: truth, dir: datasetDir }, datasetDir, join(ctx.dir, 'overlays'), COMPARISON_OVERLAYS);
      const pctOf = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
      summary.perception = `pseudo-labels from ${wanted.join(' + ')} on ${r.device}, against the exact truth of ${truth.images.length} synthetic scenes: box recall@0.5 ${pctOf(quality.recall_at_50)}, subject-object depth order ${pctOf(quality.depth_order.agreement)}`;
      return summary;
    },
  };
}
