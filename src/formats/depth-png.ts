/**
 * 16-bit depth PNGs. Metric depth is stored in millimetres (scale 0.001, so value * scale = metres,
 * up to 65.535 m). Relative depth has no fixed range, so each image gets its own scale
 * (its maximum maps to 65535), recorded on the image record. 0 means "no value".
 */
import type { DepthUnit } from './coco.js';

/** A depth map at image size: row-major values in `unit` (NaN or <= 0 = no value). */
export interface DepthValues {
  data: Float32Array;
  width: number;
  height: number;
  unit: DepthUnit;
}

// sharp is a native module: load it on first use so that importing this layer loads none.
let sharpModule: Promise<typeof import('sharp')> | undefined;
const loadSharp = () => (sharpModule ??= import('sharp').then((m) => m.default));

/** Millimetres: metric depth PNG value * 0.001 = metres. */
export const METRIC_DEPTH_SCALE = 0.001;

/** The largest double below 0.5: the one q >= 0 whose q + 0.5 rounds up to 1. */
const BELOW_HALF = 0.49999999999999994;

/**
 * Math.round(q) for q >= 0, as floor(q + 0.5), which is exact for every such q but BELOW_HALF; V8
 * runs it in half the time of Math.round in this loop (a 640x480 map: 3 against 6 ms). Pinned against
 * Math.round by test/annotate/depth-png.test.ts.
 */
export const roundNonNegative = (q: number): number => (q === BELOW_HALF ? 0 : Math.floor(q + 0.5));

/** Quantises a depth map to 16 bits; `scale` converts stored values back (value * scale). */
export function quantizeDepth(map: Pick<DepthValues, 'data' | 'unit'>): { values: Uint16Array; scale: number } {
  const { data } = map;
  let scale = METRIC_DEPTH_SCALE;
  if (map.unit !== 'm') {
    let max = 0;
    for (let i = 0; i < data.length; i++) if (data[i] > max && Number.isFinite(data[i])) max = data[i];
    scale = max > 0 ? max / 65535 : 1;
  }
  const values = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v) || v <= 0) continue;
    values[i] = Math.min(65535, roundNonNegative(v / scale));
  }
  return { values, scale };
}

/** Encodes a depth map as a 16-bit greyscale PNG. */
export async function encodeDepthPng(map: DepthValues): Promise<{ png: Buffer; scale: number }> {
  const { values, scale } = quantizeDepth(map);
  const png = await encodeDepthValuesPng(values, map.width, map.height);
  return { png, scale };
}

/** Encodes already quantised 16-bit values (row-major) as a greyscale PNG (zlib level 0-9). */
export async function encodeDepthValuesPng(values: Uint16Array, width: number, height: number, compressionLevel = 6): Promise<Buffer> {
  const sharp = await loadSharp();
  // sharp takes the sample depth from the typed array's type, so a Uint16Array stays 16-bit.
  return sharp(values, { raw: { width, height, channels: 1 } }).toColourspace('grey16').png({ compressionLevel }).toBuffer();
}

/** Decodes a depth PNG written by {@link encodeDepthPng} back to depth values in its unit. */
export async function decodeDepthPng(png: Buffer | string, scale: number): Promise<{ data: Float32Array; width: number; height: number }> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(png).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer({ resolveWithObject: true });
  const raw = new Uint16Array(data.buffer, data.byteOffset, data.length / 2);
  const out = new Float32Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw[i] === 0 ? NaN : raw[i] * scale;
  return { data: out, width: info.width, height: info.height };
}
