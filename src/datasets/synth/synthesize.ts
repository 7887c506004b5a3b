/**
 * `gsr dataset synth`: renders N scenes and writes DIR/manifest.jsonl, DIR/images/<id>.jpg|png,
 * DIR/depth/<id>.png (16-bit, mm) and DIR/annotations.json (COCO, exact ground truth). Output holds
 * no timestamps or absolute paths, so one seed gives byte-identical trees anywhere, whatever the
 * number of workers (each scene depends only on seed and index).
 */
import { availableParallelism } from 'node:os';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ANNOTATIONS_FILE, writeCocoFile, type CocoAnnotation, type CocoImage, type CocoParts } from '../../formats/coco.js';
import { METRIC_DEPTH_SCALE } from '../../formats/depth-png.js';
import { GsrError } from '../../util/errors.js';
import { writeFileAtomic } from '../../util/fs.js';
import { VERSION } from '../../util/version.js';
import { MANIFEST_FILE, writeManifest, type ManifestItem } from '../../formats/manifest.js';
import { HORIZONTAL_FOV_DEG } from './camera.js';
import { RenderPool } from './pool.js';
import { produceScene, type ProducedScene, type SceneJob } from './produce.js';
import { SYNTH_CATEGORIES } from './records.js';

export interface SynthOptions {
  out: string;
  count: number;
  seed: number;
  width?: number;
  height?: number;
  format?: 'jpg' | 'png';
  /**
   * Worker threads that render and encode scenes; 0 renders in-process. Default: one per CPU
   * (at most 8). Falls back to in-process when workers cannot start.
   */
  workers?: number;
  onScene?: (index: number) => void;
}

export interface SynthResult {
  scenes: number;
  /** Scenes per style. */
  counts: Record<string, number>;
  /** Scenes that needed re-sampling before the picture matched the caption. */
  resampled: number;
  seconds: number;
  scenesPerSecond: number;
}

/** Removes images and depth maps named like ours that this run did not write (a larger earlier run). */
async function removeStale(dir: string, keep: Set<string>): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => /^synth-\d+\.(jpg|png)$/.test(n) && !keep.has(n)).map((n) => rm(join(dir, n), { force: true })));
}

export async function synthesizeDataset(opts: SynthOptions): Promise<SynthResult> {
  const width = opts.width ?? 640;
  const height = opts.height ?? 480;
  const format = opts.format ?? 'jpg';
  // Below this the named objects cannot reliably cover the minimum visible area; above, memory grows fast.
  if (!(width >= 96 && height >= 72 && width <= 8192 && height <= 8192)) {
    throw new GsrError(`synthetic image size must be within 96x72 .. 8192x8192, got ${width}x${height}`);
  }
  // The camera's 60° horizontal field of view frames the scenes only for moderate aspect ratios.
  if (width / height < 0.75 || width / height > 2) {
    throw new GsrError(`synthetic image aspect ratio (width / height) must be within 0.75 .. 2, got ${width}x${height}`);
  }
  if (!Number.isInteger(opts.count) || opts.count < 1) throw new GsrError(`scene count must be a positive integer, got ${opts.count}`);
  const workers = opts.workers ?? Math.min(8, availableParallelism());
  const started = performance.now();
  const items: ManifestItem[] = new Array(opts.count);
  const images: CocoImage[] = new Array(opts.count);
  const annotations: CocoAnnotation[][] = new Array(opts.count);
  const counts: Record<string, number> = {};
  let resampled = 0;
  const pool = workers > 0 ? await RenderPool.start(workers) : null;
  const produce = (job: SceneJob): Promise<ProducedScene> => (pool ? pool.produce(job).catch(() => produceScene(job)) : produceScene(job));

  const store = async (p: ProducedScene): Promise<void> => {
    const { item, image, annotations: anns } = p.records;
    await Promise.all([writeFileAtomic(join(opts.out, image.file_name), p.image), writeFileAtomic(join(opts.out, image.depth_file!), p.depthPng)]);
    items[p.index] = item;
    images[p.index] = image;
    annotations[p.index] = anns;
    if (p.attempts > 1) resampled++;
    opts.onScene?.(p.index);
  };

  // Keep every worker busy with a short queue; in-process, overlap encoding with the next render.
  const inFlight = Math.max(2, 2 * (pool ? workers : 1));
  const pending = new Set<Promise<void>>();
  const failures: unknown[] = []; // the first one is rethrown once the pool is closed
  try {
    for (let i = 0; i < opts.count && failures.length === 0; i++) {
      const task: Promise<void> = produce({ seed: opts.seed, index: i, count: opts.count, width, height, format })
        .then(store)
        .catch((err: unknown) => {
          failures.push(err);
        })
        .finally(() => pending.delete(task));
      pending.add(task);
      if (pending.size >= inFlight) await Promise.race(pending);
    }
    await Promise.all(pending);
  } finally {
    await pool?.close();
  }
  if (failures.length > 0) throw failures[0];
  for (const item of items) counts[item.style!] = (counts[item.style!] ?? 0) + 1;

  let annId = 0;
  for (const list of annotations) for (const a of list) a.id = ++annId;
  const coco: CocoParts = {
    info: {
      tool: 'gsr-bench',
      version: VERSION,
      date_created: '',
      source: 'exact-synthetic',
      device: 'cpu',
      generator: { seed: opts.seed, count: opts.count, width, height, format },
      camera: {
        model: 'pinhole',
        horizontal_fov_deg: HORIZONTAL_FOV_DEG,
        note: 'fx = fy = 0.5 * width / tan(fov / 2), cx = width / 2, cy = height / 2; per-image height and pitch in images[].camera',
      },
      depth: { unit: 'm', scale: METRIC_DEPTH_SCALE, larger: 'farther' },
    },
    images,
    annotations: annotations.flat(),
    categories: [...SYNTH_CATEGORIES],
  };
  await writeManifest(join(opts.out, MANIFEST_FILE), items);
  await writeCocoFile(join(opts.out, ANNOTATIONS_FILE), coco);
  await removeStale(join(opts.out, 'images'), new Set(images.map((im) => im.file_name.slice('images/'.length))));
  await removeStale(join(opts.out, 'depth'), new Set(images.map((im) => im.depth_file!.slice('depth/'.length))));
  const seconds = (performance.now() - started) / 1000;
  return { scenes: opts.count, counts, resampled, seconds, scenesPerSecond: opts.count / seconds };
}
