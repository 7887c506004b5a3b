/**
 * The `objects` set: the synthetic renderer's 3-D object kinds (src/datasets/synth/kinds.ts),
 * ray-cast alone under a white light and cut out by their label pixels. Shading changes only the
 * brightness of a palette colour, never its hue, so the colour test still finds them.
 */
import { floorPointAt, makeCamera } from '../../datasets/synth/camera.js';
import { OBJECT_KINDS, objectKind } from '../../datasets/synth/kinds.js';
import { renderScene } from '../../datasets/synth/render.js';
import type { Scene } from '../../datasets/synth/scene.js';
import { Rng } from '../../util/random.js';
import type { Rgb, Sprite } from './raster.js';

export const SPRITE_KINDS: readonly string[] = OBJECT_KINDS.map((k) => k.name);

const SIZE = 224;
const cache = new Map<string, Sprite>();

/** The kind in the colour, as a cut-out (memoised: a handful of kinds and colours). */
export function objectSprite(kind: string, colour: Rgb): Sprite {
  const key = `${kind}:${colour.join(',')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const k = objectKind(kind);
  const camera = makeCamera(SIZE, SIZE, 1, (55 * Math.PI) / 180);
  const p = floorPointAt(camera, SIZE / 2, SIZE * 0.6)!;
  const albedo = colour.map((c) => (c / 255) ** 2.2) as Rgb;
  const scale = 0.45 / Math.max(2 * k.radius, k.height);
  const dir: Rgb = [0.35, 0.85, -0.4];
  const n = Math.hypot(...dir);
  const grey: Rgb = [0.4, 0.4, 0.4];
  const scene: Scene = {
    style: 'one-object', relation: 'left', camera,
    light: { dir: [dir[0] / n, dir[1] / n, dir[2] / n], ambient: 0.5, diffuse: 0.55, tint: [1, 1, 1] },
    floor: { pattern: 'plain', a: grey, b: grey, tile: 1 },
    wall: { z: 50, albedo: grey, baseboard: 0, baseboardAlbedo: grey },
    parts: k.build(p[0], 0, p[2], scale, albedo, 1, new Rng(1)),
    shadows: [], subject: kind, object: null, clutter: [], options: [], answer: 0,
  };
  const r = renderScene(scene, 0);
  let x0 = SIZE;
  let y0 = SIZE;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      if (r.label[y * SIZE + x] !== 1) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  if (x1 < 0) throw new Error(`sprite ${kind}: the object is not in view`);
  const width = x1 - x0 + 1;
  const height = y1 - y0 + 1;
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y + y0) * SIZE + x + x0;
      if (r.label[i] !== 1) continue;
      const k4 = (y * width + x) * 4;
      rgba[k4] = r.rgb[i * 3];
      rgba[k4 + 1] = r.rgb[i * 3 + 1];
      rgba[k4 + 2] = r.rgb[i * 3 + 2];
      rgba[k4 + 3] = 255;
    }
  }
  const sprite = { width, height, rgba };
  cache.set(key, sprite);
  return sprite;
}
