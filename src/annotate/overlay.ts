/**
 * Inspection overlays: the photo with each object's mask tinted and box outlined (subject red,
 * object blue), and beside it, when depth was estimated, a heat-map (warm = nearer).
 * Painting is pure pixel work on RGB buffers; only {@link renderOverlayPng} calls sharp.
 */
import sharp from 'sharp';
import type { DepthMap, RgbImage } from '../perception/types.js';
import type { Box } from '../geometry/boxes.js';

export interface OverlayObject {
  role: 'subject' | 'object';
  box: Box;
  mask?: Uint8Array;
}

export const ROLE_COLOURS: Record<OverlayObject['role'], [number, number, number]> = {
  subject: [230, 40, 40],
  object: [40, 90, 230],
};

const MASK_ALPHA = 0.45;

/** Tints the pixels under `mask` (row-major 0/1) towards `colour`, in place. */
export function paintMask(rgb: Uint8Array, mask: Uint8Array, colour: [number, number, number], alpha = MASK_ALPHA): void {
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const o = i * 3;
    for (let c = 0; c < 3; c++) rgb[o + c] = Math.round(rgb[o + c] * (1 - alpha) + colour[c] * alpha);
  }
}

/** Draws a box outline `thickness` pixels wide, inside the box edges and clipped to the image. */
export function paintBox(rgb: Uint8Array, width: number, height: number, box: Box, colour: [number, number, number], thickness: number): void {
  const x0 = Math.max(0, Math.round(box[0]));
  const y0 = Math.max(0, Math.round(box[1]));
  const x1 = Math.min(width, Math.round(box[2]));
  const y1 = Math.min(height, Math.round(box[3]));
  if (x1 <= x0 || y1 <= y0) return;
  const t = Math.max(1, Math.min(thickness, Math.ceil((x1 - x0) / 2), Math.ceil((y1 - y0) / 2)));
  for (let y = y0; y < y1; y++) {
    const edgeRow = y < y0 + t || y >= y1 - t;
    for (let x = x0; x < x1; x++) {
      if (!edgeRow && x >= x0 + t && x < x1 - t) continue;
      const o = (y * width + x) * 3;
      rgb[o] = colour[0];
      rgb[o + 1] = colour[1];
      rgb[o + 2] = colour[2];
    }
  }
}

// Heat-map stops from far (dark blue) to near (dark red).
const HEAT_STOPS: Array<[number, number, number]> = [
  [20, 20, 90],
  [30, 110, 220],
  [60, 200, 200],
  [240, 220, 60],
  [220, 40, 30],
];

/** Colour for t in 0..1 (0 = far, 1 = near). */
export function heatColour(t: number): [number, number, number] {
  const x = Math.min(Math.max(t, 0), 1) * (HEAT_STOPS.length - 1);
  const i = Math.min(Math.floor(x), HEAT_STOPS.length - 2);
  const f = x - i;
  const a = HEAT_STOPS[i];
  const b = HEAT_STOPS[i + 1];
  return [0, 1, 2].map((c) => Math.round(a[c] + (b[c] - a[c]) * f)) as [number, number, number];
}

/**
 * Depth as RGB, stretched between the 2nd and 98th percentiles so outliers do not wash it out.
 * Non-finite values are black.
 */
export function depthHeatMap(depth: Pick<DepthMap, 'data' | 'larger'>): Uint8Array {
  const { data } = depth;
  const finite: number[] = [];
  const step = Math.max(1, Math.floor(data.length / 20000));
  for (let i = 0; i < data.length; i += step) if (Number.isFinite(data[i])) finite.push(data[i]);
  finite.sort((a, b) => a - b);
  const lo = finite.length ? finite[Math.floor((finite.length - 1) * 0.02)] : 0;
  const hi = finite.length ? finite[Math.ceil((finite.length - 1) * 0.98)] : 1;
  const span = hi - lo || 1;
  const out = new Uint8Array(data.length * 3);
  const nearer = depth.larger === 'nearer';
  const last = HEAT_STOPS.length - 1;
  // heatColour inlined (same arithmetic), without its per-pixel arrays.
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) continue;
    const t = (v - lo) / span;
    const x = Math.min(Math.max(nearer ? t : 1 - t, 0), 1) * last;
    const k = Math.min(Math.floor(x), last - 1);
    const f = x - k;
    const a = HEAT_STOPS[k];
    const b = HEAT_STOPS[k + 1];
    out[i * 3] = Math.round(a[0] + (b[0] - a[0]) * f);
    out[i * 3 + 1] = Math.round(a[1] + (b[1] - a[1]) * f);
    out[i * 3 + 2] = Math.round(a[2] + (b[2] - a[2]) * f);
  }
  return out;
}

/** Paints masks, then boxes, onto a copy of the image. */
export function paintObjects(image: RgbImage, objects: OverlayObject[]): Uint8Array {
  const rgb = Uint8Array.from(image.data);
  for (const o of objects) if (o.mask) paintMask(rgb, o.mask, ROLE_COLOURS[o.role]);
  const thickness = Math.max(2, Math.round(Math.min(image.width, image.height) / 200));
  for (const o of objects) paintBox(rgb, image.width, image.height, o.box, ROLE_COLOURS[o.role], thickness);
  return rgb;
}

/** The overlay, not yet encoded: annotated photo, plus the depth heat-map to its right when given. */
function overlayImage(image: RgbImage, objects: OverlayObject[], depth?: DepthMap): sharp.Sharp {
  const { width, height } = image;
  const p = paintObjects(image, objects);
  const painted = Buffer.from(p.buffer, p.byteOffset, p.byteLength);
  const raw = { width, height, channels: 3 as const };
  if (!depth) return sharp(painted, { raw });
  const h = depthHeatMap(depth);
  const heat = Buffer.from(h.buffer, h.byteOffset, h.byteLength);
  return sharp({ create: { width: width * 2, height, channels: 3, background: { r: 0, g: 0, b: 0 } } }).composite([
    { input: painted, raw, left: 0, top: 0 },
    { input: heat, raw, left: width, top: 0 },
  ]);
}

/** The overlay PNG: annotated photo, plus the depth heat-map to its right when given. */
export async function renderOverlayPng(image: RgbImage, objects: OverlayObject[], depth?: DepthMap): Promise<Buffer> {
  return overlayImage(image, objects, depth).png().toBuffer();
}

/** The pixels {@link renderOverlayPng} encodes, raw (for another encoding without a PNG between). */
export async function renderOverlayRaw(image: RgbImage, objects: OverlayObject[], depth?: DepthMap): Promise<{ data: Buffer; info: sharp.OutputInfo }> {
  return overlayImage(image, objects, depth).raw().toBuffer({ resolveWithObject: true });
}
