/**
 * `gsr dataset synth`: renders N scenes and writes DIR/manifest.jsonl, DIR/images/<id>.jpg|png,
 * DIR/depth/<id>.png (16-bit, mm) and DIR/annotations.json (COCO, exact ground truth). Output holds
 * no timestamps or absolute paths, so one seed gives byte-identical trees anywhere.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { CocoAnnotation, CocoFile, CocoImage } from '../../annotate/coco.js';
import { writeFileAtomic, writeJsonAtomic, writeJsonlAtomic } from '../../util/fs.js';
import { VERSION } from '../../version.js';
import { METRIC_DEPTH_SCALE, encodeDepthValuesPng, quantizeDepth } from '../../annotate/depth-png.js';
import type { ManifestItem } from '../manifest.js';
import { HORIZONTAL_FOV_DEG } from './camera.js';
import { checkRendered, namedObjectsInFrame, type EntityStats } from './check.js';
import { Rng } from './prng.js';
import { SYNTH_CATEGORIES, sceneId, sceneRecords } from './records.js';
import { renderScene, type Rendered } from './render.js';
import { STYLES, STYLE_RELATIONS, sampleScene, type Scene } from './scene.js';

export interface SynthOptions {
  out: string;
  count: number;
  seed: number;
  width?: number;
  height?: number;
  format?: 'jpg' | 'png';
  /** Scenes encoded and written at once while the next ones render. Default 4. */
  concurrency?: number;
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

const MAX_ATTEMPTS = 100;

/**
 * Samples and renders scene `index` of a set: style and relation cycle with the index, everything
 * else comes from a PRNG seeded by (seed, index), re-drawn until the picture matches the caption.
 */
export function renderSyntheticScene(
  seed: number,
  index: number,
  width: number,
  height: number,
): { scene: Scene; rendered: Rendered; attempts: number; entities: EntityStats[] } {
  const style = STYLES[index % STYLES.length];
  const relations = STYLE_RELATIONS[style];
  const relation = relations[Math.floor(index / STYLES.length) % relations.length];
  const rng = new Rng(seed, index);
  let lastReason = '';
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const scene = sampleScene(rng, style, relation, width, height);
    if (!namedObjectsInFrame(scene)) {
      lastReason = 'a named object leaves the frame';
      continue;
    }
    const rendered = renderScene(scene, rng.nextUint32());
    const { reason, entities } = checkRendered(scene, rendered);
    if (reason === null) return { scene, rendered, attempts: attempt, entities };
    lastReason = reason;
  }
  throw new Error(`synthetic scene ${index} (${style}, ${relation}, ${width}x${height}) failed ${MAX_ATTEMPTS} layouts; last: ${lastReason}`);
}

/** Encodes the image as JPEG (quality 90) or PNG. */
function encodeImage(r: Rendered, format: 'jpg' | 'png'): Promise<Buffer> {
  const img = sharp(r.rgb, { raw: { width: r.width, height: r.height, channels: 3 } });
  return format === 'jpg' ? img.jpeg({ quality: 90 }).toBuffer() : img.png({ compressionLevel: 6 }).toBuffer();
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
  const concurrency = opts.concurrency ?? 4;
  const started = performance.now();
  const items: ManifestItem[] = new Array(opts.count);
  const images: CocoImage[] = new Array(opts.count);
  const annotations: CocoAnnotation[][] = new Array(opts.count);
  const counts: Record<string, number> = {};
  let resampled = 0;
  const pending = new Set<Promise<void>>();
  let failure: unknown = null;

  for (let i = 0; i < opts.count && failure === null; i++) {
    const { scene, rendered, attempts, entities } = renderSyntheticScene(opts.seed, i, width, height);
    if (attempts > 1) resampled++;
    counts[scene.style] = (counts[scene.style] ?? 0) + 1;
    const id = sceneId(i, opts.count);
    const depthMap = { data: rendered.depth, width, height, unit: 'm' as const, larger: 'farther' as const };
    // Statistics come from the stored millimetres, so they agree with the PNG.
    const { values: mm, scale } = quantizeDepth(depthMap);
    const rec = sceneRecords(id, i + 1, scene, rendered, mm, scale, entities, `images/${id}.${format}`, `depth/${id}.png`);
    items[i] = rec.item;
    images[i] = rec.image;
    annotations[i] = rec.annotations;
    const task = (async () => {
      const [img, depth] = await Promise.all([encodeImage(rendered, format), encodeDepthValuesPng(mm, width, height)]);
      await Promise.all([writeFileAtomic(join(opts.out, rec.image.file_name), img), writeFileAtomic(join(opts.out, rec.image.depth_file!), depth)]);
      opts.onScene?.(i);
    })()
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => pending.delete(task));
    pending.add(task);
    if (pending.size >= concurrency) await Promise.race(pending);
  }
  await Promise.all(pending);
  if (failure !== null) throw failure;

  let annId = 0;
  for (const list of annotations) for (const a of list) a.id = ++annId;
  const coco: CocoFile = {
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
  await writeJsonlAtomic(join(opts.out, 'manifest.jsonl'), items);
  await writeJsonAtomic(join(opts.out, 'annotations.json'), coco);
  await removeStale(join(opts.out, 'images'), new Set(images.map((im) => im.file_name.slice('images/'.length))));
  await removeStale(join(opts.out, 'depth'), new Set(images.map((im) => im.depth_file!.slice('depth/'.length))));
  const seconds = (performance.now() - started) / 1000;
  return { scenes: opts.count, counts, resampled, seconds, scenesPerSecond: opts.count / seconds };
}
