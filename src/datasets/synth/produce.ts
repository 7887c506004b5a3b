/**
 * One scene from seed and index to encoded files and records: render, check, quantise depth,
 * build the COCO records and encode the image and the 16-bit depth PNG. Runs in-process or in a
 * worker thread (render-worker.ts); its output depends only on the job.
 */
import sharp from 'sharp';
import { encodeDepthValuesPng, quantizeDepth } from '../../formats/depth-png.js';
import { checkRendered, namedObjectsInFrame, type EntityStats } from './check.js';
import { Rng } from '../../util/random.js';
import { sceneId, sceneRecords, type SceneRecords } from './records.js';
import { renderScene, type Rendered } from './render.js';
import { STYLES, STYLE_RELATIONS, sampleScene, type Scene, type Style } from './scene.js';
import type { Relation } from '../../formats/manifest.js';

export interface SceneJob {
  seed: number;
  index: number;
  count: number;
  width: number;
  height: number;
  format: 'jpg' | 'png';
}

export interface ProducedScene {
  index: number;
  records: SceneRecords;
  image: Uint8Array;
  depthPng: Uint8Array;
  attempts: number;
}

const MAX_ATTEMPTS = 100;
/** Scenes drawn (and not rendered) while looking for the nouns a spec asks for. */
const MAX_NOUN_DRAWS = 20_000;

/** What a scene must show; by default style and relation cycle with the index. */
export interface SceneSpec {
  style: Style;
  relation: Relation;
  /** Object kinds to draw until they come up (e.g. a mug on a table). */
  subject?: string;
  object?: string | null;
}

/** The spec of scene `index` of a set: style cycles every scene, relation every three. */
export function specOfIndex(index: number): SceneSpec {
  const style = STYLES[index % STYLES.length];
  const relations = STYLE_RELATIONS[style];
  return { style, relation: relations[Math.floor(index / STYLES.length) % relations.length] };
}

/**
 * Samples and renders scene `index` of a set: everything comes from a PRNG seeded by (seed, index),
 * re-drawn until the picture matches the caption (and the spec's nouns, when it names them).
 */
export function renderSyntheticScene(
  seed: number,
  index: number,
  width: number,
  height: number,
  spec: SceneSpec = specOfIndex(index),
): { scene: Scene; rendered: Rendered; attempts: number; entities: EntityStats[] } {
  const { style, relation } = spec;
  const rng = new Rng(seed, index);
  let lastReason = '';
  let draws = 0;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; ) {
    const scene = sampleScene(rng, style, relation, width, height);
    if ((spec.subject !== undefined && scene.subject !== spec.subject) || (spec.object !== undefined && scene.object !== spec.object)) {
      if (++draws > MAX_NOUN_DRAWS) throw new Error(`synthetic scene ${index} (${style}, ${relation}): no ${spec.subject} / ${spec.object} in ${MAX_NOUN_DRAWS} draws`);
      continue;
    }
    attempt++;
    if (!namedObjectsInFrame(scene)) {
      lastReason = 'a named object leaves the frame';
      continue;
    }
    const rendered = renderScene(scene, rng.nextUint32());
    const { reason, entities } = checkRendered(scene, rendered);
    if (reason === null) return { scene, rendered, attempts: attempt - 1, entities };
    lastReason = reason;
  }
  throw new Error(`synthetic scene ${index} (${style}, ${relation}, ${width}x${height}) failed ${MAX_ATTEMPTS} layouts; last: ${lastReason}`);
}

/** Encodes the image as JPEG (quality 90) or PNG. */
export function encodeImage(r: Rendered, format: 'jpg' | 'png'): Promise<Buffer> {
  const img = sharp(r.rgb, { raw: { width: r.width, height: r.height, channels: 3 } });
  return format === 'jpg' ? img.jpeg({ quality: 90, optimiseCoding: false }).toBuffer() : img.png({ compressionLevel: 6 }).toBuffer();
}

export async function produceScene(job: SceneJob): Promise<ProducedScene> {
  const { seed, index, count, width, height, format } = job;
  const { scene, rendered, attempts, entities } = renderSyntheticScene(seed, index, width, height);
  const id = sceneId(index, count);
  // Statistics come from the stored millimetres, so they agree with the PNG.
  const { values, scale } = quantizeDepth({ data: rendered.depth, unit: 'm' });
  const records = sceneRecords(id, index + 1, scene, rendered, values, scale, entities, `images/${id}.${format}`, `depth/${id}.png`);
  const [image, depthPng] = await Promise.all([encodeImage(rendered, format), encodeDepthValuesPng(values, width, height, 3)]);
  return { index, records, image, depthPng, attempts };
}
