/**
 * Checks a rendered scene against its caption (pure): both named objects clearly visible and
 * inside the frame, and the relation true in the picture. Scenes that fail are re-sampled.
 */
import { solidBounds } from './primitives.js';
import { screenBounds, type Rendered } from './render.js';
import type { Scene } from './scene.js';

export interface EntityStats {
  pixels: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  meanDepth: number;
}

/**
 * Visible pixel count, pixel bounds (inclusive) and mean depth of each entity label, scanning
 * `region` ([x0, x1) x [y0, y1), default the whole image), which must hold all their pixels.
 */
export function entityStats(r: Rendered, maxLabel: number, region = { x0: 0, x1: r.width, y0: 0, y1: r.height }): EntityStats[] {
  const stats: EntityStats[] = [];
  for (let e = 0; e <= maxLabel; e++) stats.push({ pixels: 0, x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity, meanDepth: 0 });
  const { width: w, label, depth } = r;
  for (let y = region.y0; y < region.y1; y++) {
    for (let x = region.x0, i = y * w + region.x0; x < region.x1; x++, i++) {
      const e = label[i];
      if (e === 0 || e > maxLabel) continue;
      const s = stats[e];
      s.pixels++;
      s.meanDepth += depth[i];
      if (x < s.x0) s.x0 = x;
      if (x > s.x1) s.x1 = x;
      if (y < s.y0) s.y0 = y;
      if (y > s.y1) s.y1 = y;
    }
  }
  for (const s of stats) if (s.pixels > 0) s.meanDepth /= s.pixels;
  return stats;
}

/**
 * `reason` is null when the picture shows what the correct caption says, else why not;
 * `entities[e]` are the statistics of entity e (index 0 unused).
 */
export function checkRendered(scene: Scene, r: Rendered): { reason: string | null; entities: EntityStats[] } {
  const named = scene.object === null ? 1 : 2;
  const entities = entityStats(r, named, namedObjectsRegion(scene) ?? undefined);
  return { reason: relationProblem(scene, r, entities), entities };
}

function relationProblem(scene: Scene, r: Rendered, stats: EntityStats[]): string | null {
  const named = scene.object === null ? 1 : 2;
  const minPixels = Math.max(60, Math.round(0.0008 * r.width * r.height));
  for (let e = 1; e <= named; e++) {
    const s = stats[e];
    if (s.pixels < minPixels) return `entity ${e} has only ${s.pixels} visible pixels`;
    if (s.x0 <= 0 || s.y0 <= 0 || s.x1 >= r.width - 1 || s.y1 >= r.height - 1) return `entity ${e} touches the image border`;
  }
  const sub = stats[1];
  const cx = (sub.x0 + sub.x1 + 1) / 2;
  const cy = (sub.y0 + sub.y1 + 1) / 2;
  if (scene.object === null) {
    const ok = { left: cx < 0.4 * r.width, right: cx > 0.6 * r.width, top: cy < 0.4 * r.height, bottom: cy > 0.6 * r.height }[scene.relation as 'left'];
    return ok ? null : `subject centre (${cx}, ${cy}) is not on the ${scene.relation}`;
  }
  const obj = stats[2];
  const ocy = (obj.y0 + obj.y1 + 1) / 2;
  switch (scene.relation) {
    case 'left':
      return sub.x1 < (obj.x0 + obj.x1) / 2 && cx < obj.x0 ? null : 'subject is not left of the object';
    case 'right':
      return sub.x0 > (obj.x0 + obj.x1) / 2 && cx > obj.x1 ? null : 'subject is not right of the object';
    case 'front':
      return sub.meanDepth < obj.meanDepth - 0.02 ? null : 'subject is not nearer than the object';
    case 'behind':
      return sub.meanDepth > obj.meanDepth + 0.02 ? null : 'subject is not farther than the object';
    case 'on':
      return sub.y1 < ocy ? null : 'subject is not above the furniture';
    case 'under':
      return cy > ocy ? null : 'subject is not below the furniture top';
    default:
      return `unchecked relation ${scene.relation}`;
  }
}

/**
 * Cheap test before rendering: the projected boxes of the named objects' solids stay clear of the
 * image border (they bound the silhouettes, so a scene failing this would fail after rendering too,
 * or come close to the border).
 */
export function namedObjectsInFrame(scene: Scene): boolean {
  const { width, height } = scene.camera;
  const s = namedObjectsRegion(scene);
  // screenBounds pads by one pixel and clips, so touching the clip means nearing the border.
  return s !== null && s.x0 > 0 && s.y0 > 0 && s.x1 < width && s.y1 < height;
}

/** Pixel rectangle holding every solid of the named objects (clipped to the image); null if one is off screen. */
function namedObjectsRegion(scene: Scene): { x0: number; x1: number; y0: number; y1: number } | null {
  const region = { x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity };
  for (const part of scene.parts) {
    if (part.entity > 2) continue;
    const b = solidBounds(part.solid);
    const s = screenBounds(scene, b.min, b.max);
    if (s === null) return null;
    region.x0 = Math.min(region.x0, s.x0);
    region.x1 = Math.max(region.x1, s.x1);
    region.y0 = Math.min(region.y0, s.y0);
    region.y1 = Math.max(region.y1, s.y1);
  }
  return region;
}
