/**
 * SVAT pictures as pixel buffers (pure: no I/O, no native module): backgrounds (white, a colour,
 * procedural textures), the five shapes (solid, textured or striped) and pasted sprites. Geometry is in
 * fractions of the image, so any resolution draws the same layout; a pixel belongs to an object
 * when its centre falls inside the object's shape, so nothing is drawn outside the object's box.
 */
import { hash32, type Rng } from '../../util/random.js';
import type { Shape, Texture } from './spec.js';

export interface Raster {
  width: number;
  height: number;
  /** Interleaved 8-bit RGB, row-major. */
  rgb: Uint8Array;
}

/** An RGBA picture pasted over a raster (alpha 0 or 255). */
export interface Sprite {
  width: number;
  height: number;
  rgba: Uint8Array;
}

export type Rgb = [number, number, number];

export function blank(width: number, height: number, c: Rgb = [255, 255, 255]): Raster {
  const rgb = new Uint8Array(width * height * 3);
  for (let j = 0; j < rgb.length; j += 3) {
    rgb[j] = c[0];
    rgb[j + 1] = c[1];
    rgb[j + 2] = c[2];
  }
  return { width, height, rgb };
}

/** 8-bit RGB from hue (degrees), saturation and value (0..1). */
export function hsvBytes(hue: number, s: number, v: number): Rgb {
  const f = (n: number) => {
    const k = (n + hue / 60) % 6;
    return Math.round(255 * (v - v * s * Math.max(0, Math.min(k, 4 - k, 1))));
  };
  return [f(5), f(3), f(1)];
}

/**
 * True when a pixel has the given hue (within 15 degrees), is strongly saturated and not dark:
 * the colour test that finds an object of a palette colour (spec.ts PALETTE).
 */
export function matchesHue(r: number, g: number, b: number, hue: number): boolean {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max < 60 || max - min < 0.7 * max) return false;
  const d = max - min;
  let h = max === r ? (60 * (g - b)) / d : max === g ? 60 * (2 + (b - r) / d) : 60 * (4 + (r - g) / d);
  if (h < 0) h += 360;
  const diff = Math.abs(h - hue) % 360;
  return Math.min(diff, 360 - diff) <= 15;
}

/** Smooth value noise in [0, 1] on a lattice of `cellsX` x `cellsY` cells. */
function valueNoise(w: number, h: number, cellsX: number, cellsY: number, seed: number): Float32Array {
  const lx = cellsX + 1;
  const lattice = new Float32Array(lx * (cellsY + 1));
  for (let i = 0; i < lattice.length; i++) lattice[i] = hash32(i, seed) / 4294967296;
  const smooth = (t: number) => t * t * (3 - 2 * t);
  const ixs = new Int32Array(w);
  const txs = new Float32Array(w);
  for (let x = 0; x < w; x++) {
    const fx = ((x + 0.5) / w) * cellsX;
    ixs[x] = Math.min(cellsX - 1, Math.floor(fx));
    txs[x] = smooth(fx - ixs[x]);
  }
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const fy = ((y + 0.5) / h) * cellsY;
    const iy = Math.min(cellsY - 1, Math.floor(fy));
    const ty = smooth(fy - iy);
    const r0 = iy * lx;
    const r1 = r0 + lx;
    for (let x = 0; x < w; x++) {
      const ix = ixs[x];
      const tx = txs[x];
      const top = lattice[r0 + ix] + (lattice[r0 + ix + 1] - lattice[r0 + ix]) * tx;
      const bottom = lattice[r1 + ix] + (lattice[r1 + ix + 1] - lattice[r1 + ix]) * tx;
      out[y * w + x] = top + (bottom - top) * ty;
    }
  }
  return out;
}

/**
 * A hue's channel weights m (0..1): for saturation s and value v the channel is
 * 255 * v * (1 - s * m), as in hsvBytes. Textures keep a hue fixed and vary s and v per pixel.
 */
function hueWeights(hue: number): [number, number, number] {
  const h = (((hue % 360) + 360) % 360) / 60;
  const m = (n: number) => {
    const k = (n + h) % 6;
    return Math.max(0, Math.min(k, 4 - k, 1));
  };
  return [m(5), m(3), m(1)];
}

function putSv(rgb: Uint8Array, j: number, w: [number, number, number], s: number, v: number): void {
  const val = 255 * (v < 0 ? 0 : v > 1 ? 1 : v);
  rgb[j] = Math.round(val * (1 - s * w[0]));
  rgb[j + 1] = Math.round(val * (1 - s * w[1]));
  rgb[j + 2] = Math.round(val * (1 - s * w[2]));
}

/**
 * A procedural texture (saturation at most 0.55, below the object colour test's threshold):
 * wood grain, grass blades, snow, or a two-colour weave.
 */
export function texture(kind: Texture, width: number, height: number, rng: Rng): Raster {
  const out = blank(width, height);
  const { rgb } = out;
  const seed = rng.nextUint32();
  const coarse = valueNoise(width, height, 6, 6, seed);
  const fine = valueNoise(width, height, 48, kind === 'grass' ? 6 : 48, seed ^ 0x9e3779b9);
  const n = width * height;
  if (kind === 'wood') {
    const w = hueWeights(rng.uniform(22, 38));
    const s = rng.uniform(0.35, 0.55);
    const rings = rng.uniform(10, 22);
    const vertical = rng.chance(0.5);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const along = vertical ? x / width : y / height;
        const g = Math.sin((along * rings + coarse[i] * 4) * Math.PI * 2);
        putSv(rgb, i * 3, w, s, 0.5 + 0.15 * g + 0.1 * (fine[i] - 0.5));
      }
    }
  } else if (kind === 'grass') {
    const w = hueWeights(rng.uniform(80, 130));
    for (let i = 0; i < n; i++) putSv(rgb, i * 3, w, 0.3 + 0.25 * coarse[i], 0.2 + 0.5 * fine[i]);
  } else if (kind === 'snow') {
    const w = hueWeights(rng.uniform(190, 220));
    for (let i = 0; i < n; i++) {
      const speck = hash32(i, seed) % 97 === 0 ? 0.12 : 0;
      putSv(rgb, i * 3, w, 0.1 * coarse[i], 0.78 + 0.2 * fine[i] - speck);
    }
  } else {
    const hueA = rng.uniform(0, 360);
    const wA = hueWeights(hueA);
    const wB = hueWeights(hueA + rng.uniform(90, 270));
    const sA = rng.uniform(0.15, 0.45);
    const sB = rng.uniform(0.15, 0.45);
    const thread = Math.max(2, Math.round(Math.min(width, height) / 96));
    for (let y = 0; y < height; y++) {
      const ty = Math.floor(y / thread);
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const warp = (Math.floor(x / thread) + ty) & 1;
        putSv(rgb, i * 3, warp ? wA : wB, warp ? sA : sB, 0.55 + 0.25 * coarse[i] + 0.1 * (fine[i] - 0.5));
      }
    }
  }
  return out;
}

/** A regular pentagon, a vertex up, inscribed in the unit circle (v down). */
const PENTAGON: Array<[number, number]> = Array.from({ length: 5 }, (_, k) => {
  const a = -Math.PI / 2 + (k * 2 * Math.PI) / 5;
  return [Math.cos(a), Math.sin(a)];
});

function insidePolygon(poly: ReadonlyArray<[number, number]>, u: number, v: number): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if (yi > v !== yj > v && u < ((xj - xi) * (v - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Whether (u, v) in [-1, 1]^2 (v down) is inside the shape. */
export function insideShape(shape: Shape, u: number, v: number): boolean {
  switch (shape) {
    case 'circle': return u * u + v * v <= 1;
    case 'pentagon': return insidePolygon(PENTAGON, u, v);
    case 'rectangle': return Math.abs(v) <= 0.6;
    case 'square': return true;
    case 'triangle': return v <= 0.9 && Math.abs(u) <= (v + 1) / 2;
  }
}

/** The pixel range whose centres fall inside [c - half, c + half) (fractions), clipped to [0, n). */
function pixelSpan(c: number, half: number, n: number): [number, number] {
  return [Math.max(0, Math.ceil((c - half) * n - 0.5)), Math.min(n - 1, Math.ceil((c + half) * n - 0.5) - 1)];
}

/** An object's box in fractions: centre, half width and half height (square in pixels). */
export function halfExtents(size: number, width: number, height: number): { hx: number; hy: number } {
  const side = size * Math.min(width, height);
  return { hx: side / 2 / width, hy: side / 2 / height };
}

/** How a shape is filled: a solid colour, diagonal stripes of two colours, or a texture. */
export type Fill = { rgb: Rgb } | { rgb: Rgb; stripe: Rgb } | { texture: Raster };

/** The side in pixels of an object's box of `size` (fraction of the shorter side), rounded up: a texture for it. */
export const boxPixels = (size: number, width: number, height: number) => Math.ceil(size * Math.min(width, height)) + 1;

/**
 * Draws a shape centred at (cx, cy) (fractions) with side `size` (fraction of the shorter image
 * side), clipped to the image. A texture fill is laid from the box's top-left pixel, so it moves
 * with the object.
 */
export function drawShape(r: Raster, shape: Shape, cx: number, cy: number, size: number, fill: Fill): void {
  const { width: w, height: h, rgb } = r;
  const { hx, hy } = halfExtents(size, w, h);
  const [x0, x1] = pixelSpan(cx, hx, w);
  const [y0, y1] = pixelSpan(cy, hy, h);
  const side = size * Math.min(w, h);
  const period = Math.max(4, Math.round(side / 6));
  // The box's first pixel, unclipped: the texture's origin.
  const bx = Math.ceil((cx - hx) * w - 0.5);
  const by = Math.ceil((cy - hy) * h - 0.5);
  for (let y = y0; y <= y1; y++) {
    const v = ((y + 0.5) / h - cy) / hy;
    for (let x = x0; x <= x1; x++) {
      const u = ((x + 0.5) / w - cx) / hx;
      if (!insideShape(shape, u, v)) continue;
      const j = (y * w + x) * 3;
      if ('texture' in fill) {
        const t = fill.texture;
        const k = (Math.min(t.height - 1, Math.max(0, y - by)) * t.width + Math.min(t.width - 1, Math.max(0, x - bx))) * 3;
        rgb[j] = t.rgb[k];
        rgb[j + 1] = t.rgb[k + 1];
        rgb[j + 2] = t.rgb[k + 2];
        continue;
      }
      const c = 'stripe' in fill && Math.floor((x + y) / (period / 2)) % 2 === 1 ? fill.stripe : fill.rgb;
      rgb[j] = c[0];
      rgb[j + 1] = c[1];
      rgb[j + 2] = c[2];
    }
  }
}

/** Pastes a sprite scaled (nearest pixel, aspect kept) to fit the object's box centred at (cx, cy). */
export function drawSprite(r: Raster, s: Sprite, cx: number, cy: number, size: number): void {
  const { width: w, height: h, rgb } = r;
  const { hx, hy } = halfExtents(size, w, h);
  const [x0, x1] = pixelSpan(cx, hx, w);
  const [y0, y1] = pixelSpan(cy, hy, h);
  const side = size * Math.min(w, h);
  const scale = Math.max(s.width, s.height) / side;
  // The sprite is centred in the box; source pixel of a box pixel by its centre.
  const ox = cx * w - (s.width / scale) / 2;
  const oy = cy * h - (s.height / scale) / 2;
  for (let y = y0; y <= y1; y++) {
    const sy = Math.floor((y + 0.5 - oy) * scale);
    if (sy < 0 || sy >= s.height) continue;
    for (let x = x0; x <= x1; x++) {
      const sx = Math.floor((x + 0.5 - ox) * scale);
      if (sx < 0 || sx >= s.width) continue;
      const k = (sy * s.width + sx) * 4;
      if (s.rgba[k + 3] === 0) continue;
      const j = (y * w + x) * 3;
      rgb[j] = s.rgba[k];
      rgb[j + 1] = s.rgba[k + 1];
      rgb[j + 2] = s.rgba[k + 2];
    }
  }
}

/** Share of a raster's pixels that pass `matchesHue` for `hue` (sampled on a grid of at most 64K pixels). */
export function hueShare(r: Raster, hue: number): number {
  const n = r.width * r.height;
  const step = Math.max(1, Math.floor(n / 65536));
  let hits = 0;
  let seen = 0;
  for (let i = 0; i < n; i += step) {
    seen++;
    if (matchesHue(r.rgb[i * 3], r.rgb[i * 3 + 1], r.rgb[i * 3 + 2], hue)) hits++;
  }
  return hits / seen;
}
