/**
 * Ray-casts a scene into an sRGB image, a metric depth map and an entity label map. Every pixel
 * takes its colour, depth and label from the nearest surface along its ray, so occlusion is
 * consistent with depth by construction and each entity's label pixels are exactly its visible part.
 */
import { solidBounds, intersect, type Hit } from './primitives.js';
import { project, type Vec3 } from './camera.js';
import type { Scene, Surface } from './scene.js';
import { hash32 } from '../../util/random.js';

/** Label of background pixels (floor and wall); entities are 1 (subject), 2 (object), 3+ (clutter). */
export const BACKGROUND = 0;

export interface Rendered {
  width: number;
  height: number;
  /** Interleaved 8-bit sRGB, row-major. */
  rgb: Uint8Array;
  /** Depth along the optical axis, metres, row-major. */
  depth: Float32Array;
  label: Uint8Array;
}

const LUT_SIZE = 4096;
const SRGB_LUT = (() => {
  const lut = new Uint8Array(LUT_SIZE + 1);
  for (let i = 0; i <= LUT_SIZE; i++) lut[i] = Math.round(255 * (i / LUT_SIZE) ** (1 / 2.2));
  return lut;
})();

/**
 * Sensor noise of -3..+3 grey levels: a fixed table of offsets 0..6 read at a per-scene offset
 * (cheaper than a hash per pixel), applied through a clamped lookup NOISY[offset * 256 + byte].
 */
const NOISE_SIZE = 1 << 16;
const NOISE_MASK = NOISE_SIZE - 1;
const NOISE = (() => {
  const t = new Uint8Array(NOISE_SIZE);
  for (let i = 0; i < NOISE_SIZE; i++) t[i] = hash32(i, 0x6e6f6973) % 7;
  return t;
})();
const NOISY = (() => {
  const t = new Uint8Array(7 * 256);
  for (let n = 0; n < 7; n++) for (let b = 0; b < 256; b++) t[n * 256 + b] = Math.min(255, Math.max(0, b + n - 3));
  return t;
})();

function toByte(linear: number): number {
  const i = linear * LUT_SIZE;
  return SRGB_LUT[i <= 0 ? 0 : i >= LUT_SIZE ? LUT_SIZE : i | 0];
}

/** Writes sRGB bytes plus noise at byte offset j. */
function putBytes(rgb: Uint8Array, j: number, r: number, g: number, b: number, noiseOffset: number): void {
  rgb[j] = NOISY[(NOISE[(j + noiseOffset) & NOISE_MASK] << 8) | r];
  rgb[j + 1] = NOISY[(NOISE[(j + 1 + noiseOffset) & NOISE_MASK] << 8) | g];
  rgb[j + 2] = NOISY[(NOISE[(j + 2 + noiseOffset) & NOISE_MASK] << 8) | b];
}

/** Writes one pixel from linear RGB. */
function put(rgb: Uint8Array, i: number, r: number, g: number, b: number, noiseOffset: number): void {
  putBytes(rgb, i * 3, toByte(r), toByte(g), toByte(b), noiseOffset);
}

function fillRow(out: Float32Array, c: Vec3): void {
  for (let j = 0; j < out.length; j += 3) {
    out[j] = c[0];
    out[j + 1] = c[1];
    out[j + 2] = c[2];
  }
}

/**
 * Linear albedo of the floor along one image row (depth t, forward distance z), into
 * out[3x..3x+2]. Plank tints change per plank, not per pixel, so they are computed once each.
 */
function floorRow(s: Surface, t: number, z: number, us: Float64Array, out: Float32Array): void {
  const w = us.length;
  if (s.pattern === 'plain') {
    fillRow(out, s.a);
    return;
  }
  if (s.pattern === 'checker') {
    const zCell = Math.floor(z / s.tile);
    for (let x = 0; x < w; x++) {
      const c = (Math.floor((t * us[x]) / s.tile) + zCell) & 1 ? s.b : s.a;
      out[x * 3] = c[0];
      out[x * 3 + 1] = c[1];
      out[x * 3 + 2] = c[2];
    }
    return;
  }
  let plank = NaN;
  let k = 1;
  for (let x = 0; x < w; x++) {
    const u = (t * us[x]) / s.tile;
    const p = Math.floor(u);
    if (p !== plank) {
      plank = p;
      k = 0.85 + 0.3 * ((hash32(p, 0x5eed) & 1023) / 1023) + 0.04 * Math.sin(z * 37 + p * 3.1);
    }
    const kk = u - p < 0.04 ? 0.55 : k;
    out[x * 3] = s.a[0] * kk;
    out[x * 3 + 1] = s.a[1] * kk;
    out[x * 3 + 2] = s.a[2] * kk;
  }
}

/** Renders a scene; `noiseSeed` varies the sensor noise between scenes. */
export function renderScene(scene: Scene, noiseSeed: number): Rendered {
  const cam = scene.camera;
  const { width: w, height: h } = cam;
  const rgb = new Uint8Array(w * h * 3);
  const depth = new Float32Array(w * h);
  const label = new Uint8Array(w * h);
  const { light, floor, wall } = scene;
  const sinP = Math.sin(cam.pitch);
  const cosP = Math.cos(cam.pitch);
  const us = new Float64Array(w);
  for (let x = 0; x < w; x++) us[x] = (x + 0.5 - cam.cx) / cam.fx;
  // Soft vignette, as lenses and room lights give: 1 - vx[x] - vy[y]. Across a row it is kept in
  // 8-pixel steps (under 0.3% apart), so runs of equal colour reuse their bytes.
  const vx = new Float64Array(w);
  for (let x = 0; x < w; x++) vx[x] = 0.5 * ((((x >> 3) << 3) + 4 - cam.cx) / w) ** 2;
  const vy = new Float64Array(h);
  for (let y = 0; y < h; y++) vy[y] = 0.5 * ((y + 0.5 - cam.cy) / h) ** 2;
  const noiseOffset = noiseSeed & (NOISE_SIZE - 1);
  const floorLight = light.ambient + light.diffuse * Math.max(0, light.dir[1]);
  const wallLight = light.ambient * 0.9 + light.diffuse * Math.max(0, -light.dir[2]) * 0.8 + 0.08;
  const rowAlbedo = new Float32Array(w * 3);
  const floorRowFlags = new Uint8Array(h);

  // Background: with no roll, each row sees either the floor or the wall, at one depth.
  for (let y = 0; y < h; y++) {
    const v = (y + 0.5 - cam.cy) / cam.fy;
    const dy = -v * cosP - sinP;
    const dz = -v * sinP + cosP;
    const tFloor = dy < 0 ? -cam.heightM / dy : Infinity;
    const tWall = dz > 0 ? wall.z / dz : Infinity;
    const onFloor = tFloor <= tWall;
    floorRowFlags[y] = onFloor ? 1 : 0;
    const t = Math.min(tFloor, tWall, 65);
    depth.fill(t, y * w, (y + 1) * w);
    let rowLight: number;
    if (onFloor) {
      floorRow(floor, t, t * dz, us, rowAlbedo);
      rowLight = floorLight;
    } else {
      const worldY = cam.heightM + t * dy;
      const a = worldY < wall.baseboard ? wall.baseboardAlbedo : wall.albedo;
      const k = 1 - 0.15 * Math.min(1, worldY / 2.5);
      fillRow(rowAlbedo, a);
      rowLight = wallLight * k;
    }
    const kr = rowLight * light.tint[0];
    const kg = rowLight * light.tint[1];
    const kb = rowLight * light.tint[2];
    const vyy = 1 - vy[y];
    let pr = NaN;
    let pg = NaN;
    let pb = NaN;
    let pv = NaN;
    let br = 0;
    let bg = 0;
    let bb = 0;
    for (let x = 0, j = y * w * 3; x < w; x++, j += 3) {
      const ar = rowAlbedo[x * 3];
      const ag = rowAlbedo[x * 3 + 1];
      const ab = rowAlbedo[x * 3 + 2];
      const vv = vx[x];
      if (ar !== pr || ag !== pg || ab !== pb || vv !== pv) {
        const l = vyy - vv;
        br = toByte(ar * kr * l);
        bg = toByte(ag * kg * l);
        bb = toByte(ab * kb * l);
        pr = ar;
        pg = ag;
        pb = ab;
        pv = vv;
      }
      putBytes(rgb, j, br, bg, bb, noiseOffset);
    }
  }

  // Shadows darken the floor only.
  for (const sh of scene.shadows) {
    const bounds = screenBounds(scene, [sh.x - sh.rx, 0, sh.z - sh.rz], [sh.x + sh.rx, 0, sh.z + sh.rz]);
    if (!bounds) continue;
    for (let y = bounds.y0; y < bounds.y1; y++) {
      if (!floorRowFlags[y]) continue;
      const v = (y + 0.5 - cam.cy) / cam.fy;
      const dz = -v * sinP + cosP;
      for (let x = bounds.x0; x < bounds.x1; x++) {
        const i = y * w + x;
        const t = depth[i];
        const px = (t * us[x] - sh.x) / sh.rx;
        const pz = (t * dz - sh.z) / sh.rz;
        const d2 = px * px + pz * pz;
        if (d2 >= 1) continue;
        const k = 1 - sh.strength * (1 - d2) * (1 - d2);
        rgb[i * 3] = rgb[i * 3] * k;
        rgb[i * 3 + 1] = rgb[i * 3 + 1] * k;
        rgb[i * 3 + 2] = rgb[i * 3 + 2] * k;
      }
    }
  }

  const origin: Vec3 = [0, cam.heightM, 0];
  const dir: Vec3 = [0, 0, 0];
  const hit: Hit = { t: 0, nx: 0, ny: 0, nz: 0 };
  for (const part of scene.parts) {
    const b = solidBounds(part.solid);
    const bounds = screenBounds(scene, b.min, b.max);
    if (!bounds) continue;
    for (let y = bounds.y0; y < bounds.y1; y++) {
      const v = (y + 0.5 - cam.cy) / cam.fy;
      dir[1] = -v * cosP - sinP;
      dir[2] = -v * sinP + cosP;
      for (let x = bounds.x0; x < bounds.x1; x++) {
        dir[0] = us[x];
        if (!intersect(part.solid, origin, dir, hit)) continue;
        const i = y * w + x;
        if (hit.t >= depth[i]) continue;
        depth[i] = hit.t;
        label[i] = part.entity;
        const lambert = Math.max(0, hit.nx * light.dir[0] + hit.ny * light.dir[1] + hit.nz * light.dir[2]);
        const l = (light.ambient * (0.8 + 0.2 * hit.ny) + light.diffuse * lambert) * (1 - vx[x] - vy[y]);
        put(rgb, i, part.albedo[0] * l * light.tint[0], part.albedo[1] * l * light.tint[1], part.albedo[2] * l * light.tint[2], noiseOffset);
      }
    }
  }

  return { width: w, height: h, rgb, depth, label };
}

/** Pixel rectangle [x0, x1) x [y0, y1) covering a world box (clipped to the image), or null when it is off screen. */
export function screenBounds(scene: Scene, min: Vec3, max: Vec3): { x0: number; x1: number; y0: number; y1: number } | null {
  const cam = scene.camera;
  let x0 = Infinity;
  let x1 = -Infinity;
  let y0 = Infinity;
  let y1 = -Infinity;
  for (let k = 0; k < 8; k++) {
    const p = project(cam, [k & 1 ? max[0] : min[0], k & 2 ? max[1] : min[1], k & 4 ? max[2] : min[2]]);
    if (p === null) return { x0: 0, x1: cam.width, y0: 0, y1: cam.height };
    x0 = Math.min(x0, p.x);
    x1 = Math.max(x1, p.x);
    y0 = Math.min(y0, p.y);
    y1 = Math.max(y1, p.y);
  }
  const bx0 = Math.max(0, Math.floor(x0) - 1);
  const bx1 = Math.min(cam.width, Math.ceil(x1) + 1);
  const by0 = Math.max(0, Math.floor(y0) - 1);
  const by1 = Math.min(cam.height, Math.ceil(y1) + 1);
  return bx0 < bx1 && by0 < by1 ? { x0: bx0, x1: bx1, y0: by0, y1: by1 } : null;
}
