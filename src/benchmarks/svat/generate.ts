/**
 * `gsr dataset synth svat`: generates SVAT items for every combination of the chosen difficulty
 * settings (phi), renders their images and writes them as PNG under OUT/images. Drawing is pure
 * (episode.ts, raster.ts); this file decodes the background photographs and encodes and writes
 * the images. Same settings and seed, same bytes.
 */
import { readdir, realpath } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import sharp from 'sharp';
import { renderSyntheticScene } from '../../datasets/synth/produce.js';
import { GsrError } from '../../util/errors.js';
import { writeFileAtomic } from '../../util/fs.js';
import { readConfined } from '../../util/confined.js';
import { Rng } from '../../util/random.js';
import type { ItemSet } from '../types.js';
import { renderShot, sampleEpisode, type Backgrounds } from './episode.js';
import type { Raster } from './raster.js';
import { SvatGenerateSchema } from './settings.js';
import { DESCRIPTIONS, FIDUCIAL_WORDS, PHOTO_STAND_IN, TEMPLATES, phiLevel, type Answer, type SvatItem } from './spec.js';

/** How many synthetic room scenes make up I4 (and I5 without `photos`). */
export const ROOM_SCENES = 16;

export function parseSvatGenerateSettings(raw: unknown) {
  const r = SvatGenerateSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`SVAT settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

/** The context.json of an SVAT item set: the vocabulary its questions came from and how its objects were drawn. */
export function svatContext(s: Pick<ReturnType<typeof parseSvatGenerateSettings>, 'colours' | 'placement' | 'distractor_placement'>) {
  return {
    benchmark: 'svat', templates: TEMPLATES, fiducial_words: [...FIDUCIAL_WORDS], descriptions: DESCRIPTIONS,
    drawing: { colours: s.colours, placement: s.placement, distractor_placement: s.distractor_placement },
  };
}

async function listImages(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => (e.isFile() || e.isSymbolicLink()) && /\.(jpe?g|png)$/i.test(e.name)).map((e) => join(e.parentPath, e.name)).sort();
}

/** Decodes the photographs of a folder at the item size (cover crop). */
export async function loadPhotos(dir: string, width: number, height: number): Promise<Backgrounds['I5']> {
  let root: string;
  try {
    root = await realpath(resolve(dir));
  } catch {
    throw new GsrError(`SVAT photos: ${dir} does not exist`);
  }
  const files = await listImages(root);
  if (files.length === 0) throw new GsrError(`SVAT photos: no jpg or png files under ${dir}`);
  const out = [];
  for (const f of files) {
    try {
      const bytes = await readConfined(f, root);
      const { data } = await sharp(bytes).removeAlpha().resize(width, height, { fit: 'cover' }).raw().toBuffer({ resolveWithObject: true });
      out.push({ name: relative(root, f), raster: { width, height, rgb: new Uint8Array(data.buffer, data.byteOffset, data.length) } });
    } catch (err) {
      throw new GsrError(`SVAT photos: ${f}: ${err instanceof GsrError ? err.message : 'not a readable image'}`);
    }
  }
  return out;
}

/**
 * The I4 set: synthetic room scenes of the What'sUp-like renderer, drawn from the seed. Scenes
 * need about 256 pixels to lay out, so small sizes are rendered at 256 and sampled down.
 */
export function roomScenes(seed: number, width: number, height: number, first = 0, name = 'room'): Backgrounds['I4'] {
  const scale = Math.max(1, 256 / Math.min(width, height));
  const w = Math.round(width * scale);
  const h = Math.round(height * scale);
  return Array.from({ length: ROOM_SCENES }, (_, k) => ({ name: `${name}-${k}`, raster: nearestResize(renderSyntheticScene(seed, first + k, w, h).rendered, width, height) }));
}

/**
 * I5 when no `photos` folder is given: the repository holds no photographs, so rendered scenes
 * stand in for them (the renderer's next 16 scenes after I4's); `--photos DIR` gives real ones.
 */
export function photoStandIns(seed: number, width: number, height: number): Backgrounds['I5'] {
  return roomScenes(seed, width, height, ROOM_SCENES, PHOTO_STAND_IN);
}

function nearestResize(r: Raster, width: number, height: number): Raster {
  if (r.width === width && r.height === height) return { width, height, rgb: r.rgb };
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const sy = Math.floor(((y + 0.5) * r.height) / height);
    for (let x = 0; x < width; x++) {
      const sx = Math.floor(((x + 0.5) * r.width) / width);
      rgb.set(r.rgb.subarray((sy * r.width + sx) * 3, (sy * r.width + sx) * 3 + 3), (y * width + x) * 3);
    }
  }
  return { width, height, rgb };
}

/** Query answers for `count` items: half yes, half no (the odd one drawn), in random order. */
export function balancedAnswers(count: number, rng: Rng): Answer[] {
  const xs: Answer[] = Array.from({ length: count }, (_, i) => (i < Math.floor(count / 2) ? 'yes' : 'no'));
  if (count % 2 === 1) xs[count - 1] = rng.chance(0.5) ? 'yes' : 'no';
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

export function encodePng(r: Raster): Promise<Buffer> {
  return sharp(r.rgb, { raw: { width: r.width, height: r.height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
}

/** The phi combinations of the settings, in a fixed order. */
export function combinations(s: ReturnType<typeof parseSvatGenerateSettings>): SvatItem['phi'][] {
  const out: SvatItem['phi'][] = [];
  for (const background of s.background) for (const objects of s.objects) for (const m of s.distractors) for (const text of s.text) out.push({ background, objects, m, text });
  return out;
}

/**
 * Generates the items and writes their images under `out`/images (atomically, file by file);
 * the caller writes items.jsonl and context.json. `onItem` reports progress.
 */
export async function generateSvat(raw: unknown, onItem?: (done: number, total: number) => void): Promise<ItemSet<SvatItem>> {
  const s = parseSvatGenerateSettings(raw);
  const combos = combinations(s);
  const needs = (set: string) => combos.some((c) => c.background === set);
  const backgrounds: Backgrounds = {
    I4: needs('I4') ? roomScenes(s.seed, s.width, s.height) : [],
    I5: needs('I5') ? (s.photos === undefined ? photoStandIns(s.seed, s.width, s.height) : await loadPhotos(s.photos, s.width, s.height)) : [],
  };
  const total = combos.length * s.count;
  const items: SvatItem[] = [];
  const pending = new Set<Promise<void>>();
  let done = 0;
  const digits = String(s.count - 1).length;
  for (const [ci, phi] of combos.entries()) {
    const answers = balancedAnswers(s.count, new Rng(s.seed, ci, 0x5a17));
    for (let i = 0; i < s.count; i++) {
      const id = `${phiLevel(phi).replace(/\//g, '-')}-${String(i).padStart(digits, '0')}`;
      const ep = sampleEpisode(new Rng(s.seed, ci, i), { phi, shots: s.shots, width: s.width, height: s.height, id, answer: answers[i], colours: s.colours, placement: s.placement, distractor_placement: s.distractor_placement }, backgrounds);
      const { backgroundRaster, ...draft } = ep;
      const shots = [...draft.demos.map((d, k) => ({ ...d, image: `images/${id}-d${k + 1}.png` })), { ...draft.query, image: `images/${id}-q.png` }];
      const item: SvatItem = { ...draft, demos: shots.slice(0, -1), query: shots[shots.length - 1] };
      items.push(item);
      const job = Promise.all(shots.map(async (shot) => writeFileAtomic(join(s.out, shot.image), await encodePng(renderShot(item, backgroundRaster, shot))))).then(() => {
        pending.delete(job);
        onItem?.(++done, total);
      });
      pending.add(job);
      if (pending.size >= 4) await Promise.race(pending);
    }
  }
  await Promise.all(pending);
  return { items, context: svatContext(s) };
}
