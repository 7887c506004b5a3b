/**
 * Image decoding for every perception port: one place turns a file into 8-bit sRGB pixels.
 */
import { stat } from 'node:fs/promises';
import { imageSize as headerSize } from 'image-size';
import sharp from 'sharp';
import { GsrError, errorMessage } from '../util/errors.js';
import type { RgbImage } from './types.js';

/** A file path, or encoded bytes. */
export type ImageSource = string | Uint8Array;

function sourceName(source: ImageSource, label?: string): string {
  return label ?? (typeof source === 'string' ? source : 'image buffer');
}

/** An empty buffer fails before decoding; files are looked at only when decoding failed (no stat per image). */
function checkNotEmpty(source: ImageSource, name: string): void {
  if (typeof source !== 'string' && source.byteLength === 0) throw new GsrError(`cannot decode image ${name}: buffer is empty (0 bytes)`);
}

/**
 * Most pixels an image may have to be decoded, by default: PIL's `Image.MAX_IMAGE_PIXELS`
 * (89,478,485, about 9459 x 9459), at most about 270 MB as 8-bit RGB. With two images decoded
 * ahead (`--batch 2`) that keeps decoding well inside a 2-core, 24 GB machine next to the models.
 * `GSR_MAX_IMAGE_PIXELS` changes it (docs/perception.md).
 */
export const DEFAULT_MAX_IMAGE_PIXELS = 89_478_485;

/** The decode limit in force: `GSR_MAX_IMAGE_PIXELS` when set, else {@link DEFAULT_MAX_IMAGE_PIXELS}. */
export function maxImagePixels(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.GSR_MAX_IMAGE_PIXELS;
  if (text === undefined || text.trim() === '') return DEFAULT_MAX_IMAGE_PIXELS;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new GsrError(`GSR_MAX_IMAGE_PIXELS must be a positive integer, got "${text}"`);
  return n;
}

/** The one-line error for a failed decode: a missing or empty file is named as such. */
async function decodeError(source: ImageSource, name: string, err: unknown): Promise<GsrError> {
  if (err instanceof GsrError) return err;
  if (typeof source === 'string') {
    const size = await stat(source).then((s) => s.size, () => undefined);
    if (size === undefined) return new GsrError(`cannot read image ${name}: no such file`);
    if (size === 0) return new GsrError(`cannot decode image ${name}: file is empty (0 bytes)`);
  }
  const msg = errorMessage(err).split('\n')[0]!.replace(/^Input (file|buffer) /, '');
  if (/exceeds pixel limit/.test(msg)) {
    return new GsrError(`cannot decode image ${name}: it has more than ${maxImagePixels()} pixels (the decode limit; GSR_MAX_IMAGE_PIXELS raises it)`);
  }
  return new GsrError(`cannot decode image ${name}: ${msg}`);
}

/**
 * The decoding pipeline: EXIF orientation applied, alpha composited on white (rounding down; Hugging
 * Face's `convert_rgb` did so up to Transformers 4, Transformers 5 drops alpha: docs/perception.md),
 * any colour space (grey, 16-bit to its high byte, CMYK via its ICC profile) to 8-bit sRGB.
 * CMYK without a profile goes through {@link decodeCmyk} instead.
 * Fails on truncated or damaged data instead of decoding a grey tail.
 */
function pipeline(source: ImageSource, limit: number | false = maxImagePixels()): sharp.Sharp {
  const input = typeof source === 'string' ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  // The pixel limit is checked on the header, before any pixel is decoded.
  return sharp(input, { failOn: 'warning', limitInputPixels: limit })
    .rotate()
    .flatten({ background: { r: 255, g: 255, b: 255 } })
    .toColourspace('srgb');
}

/**
 * JPEG colour facts from its header, read in JS: component count (4: CMYK or YCCK) and whether an
 * ICC profile (APP2 `ICC_PROFILE`) is there. Null when it is not a JPEG or the header is unreadable.
 */
function jpegColour(bytes: Uint8Array): { components: number; icc: boolean } | null {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let icc = false;
  for (let i = 2; i + 4 <= bytes.length; ) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    if (marker === 0xe2 && String.fromCharCode(...bytes.subarray(i + 4, i + 15)) === 'ICC_PROFILE') icc = true;
    // SOF0-15 except DHT (C4), JPG (C8) and DAC (CC): precision, height, width, then the component count.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { components: bytes[i + 9] ?? 0, icc };
    if (marker === 0xda) return null;
    i += 2 + length;
  }
  return null;
}

/**
 * CMYK with no ICC profile. sharp would convert it through a built-in CMYK profile; PIL's
 * `convert('RGB')` uses its plain formula instead (up to 118 levels apart on test/fixtures/perception/cmyk),
 * and PIL is the reference, so these images take {@link cmykToRgb}.
 */
async function isCmykWithoutIcc(source: ImageSource): Promise<boolean> {
  if (typeof source !== 'string') {
    const jpeg = jpegColour(source);
    if (jpeg !== null) return jpeg.components === 4 && !jpeg.icc;
  }
  const m = await sharp(typeof source === 'string' ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength), { limitInputPixels: false }).metadata().catch(() => null);
  return m?.space === 'cmyk' && !m.hasProfile;
}

/** PIL's CMYK to RGB (Convert.c `cmyk2rgb`): nk = 255 - K; each channel nk - round(C * nk / 255). */
function cmykToRgb(cmyk: Uint8Array, pixels: number): Uint8Array {
  const rgb = new Uint8Array(pixels * 3);
  for (let p = 0, i = 0, o = 0; p < pixels; p++, i += 4, o += 3) {
    const nk = 255 - cmyk[i + 3]!;
    for (let c = 0; c < 3; c++) {
      const t = cmyk[i + c]! * nk + 128;
      rgb[o + c] = nk - (((t >> 8) + t) >> 8);
    }
  }
  return rgb;
}

/** Decodes a CMYK image without a profile the way PIL does: the CMYK values as stored, then {@link cmykToRgb}. */
async function decodeCmyk(source: ImageSource): Promise<RgbImage> {
  const input = typeof source === 'string' ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  const { data, info } = await sharp(input, { failOn: 'warning', limitInputPixels: maxImagePixels() })
    .rotate()
    .pipelineColourspace('cmyk')
    .toColourspace('cmyk')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`decoded CMYK to ${info.channels} channels, expected 4`);
  return { data: cmykToRgb(data, info.width * info.height), width: info.width, height: info.height };
}

async function toRgb(p: sharp.Sharp): Promise<RgbImage> {
  const { data, info } = await p.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`decoded to ${info.channels} channels, expected 3`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * Decodes an image file (or its bytes) to interleaved 8-bit sRGB with EXIF orientation applied.
 * Corrupt, truncated, empty or unsupported files throw a one-line GsrError naming the file.
 */
export async function loadImage(source: ImageSource, label?: string): Promise<RgbImage> {
  const name = sourceName(source, label);
  checkNotEmpty(source, name);
  try {
    if (await isCmykWithoutIcc(source)) return await decodeCmyk(source);
    return await toRgb(pipeline(source));
  } catch (err) {
    throw await decodeError(source, name, err);
  }
}

/** Displayed size (EXIF orientation applied) from the header, without decoding pixels. */
export async function imageSize(source: ImageSource, label?: string): Promise<{ width: number; height: number }> {
  const name = sourceName(source, label);
  checkNotEmpty(source, name);
  // JPEG bytes: the header read in JS (about 15 µs here, against 1 ms for sharp's metadata call).
  // Other formats, and any JPEG it cannot read, go to sharp.
  if (typeof source !== 'string') {
    const quick = jpegSize(source);
    if (quick) return quick;
  }
  try {
    const m = await pipeline(source, false).metadata(); // reading a header decodes no pixels
    if (!m.width || !m.height) throw new Error('no image size in header');
    const swap = (m.orientation ?? 1) >= 5;
    return swap ? { width: m.height, height: m.width } : { width: m.width, height: m.height };
  } catch (err) {
    throw await decodeError(source, name, err);
  }
}

function jpegSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  try {
    const d = headerSize(bytes);
    if (d.type !== 'jpg' || !d.width || !d.height) return null;
    return (d.orientation ?? 1) >= 5 ? { width: d.height, height: d.width } : { width: d.width, height: d.height };
  } catch {
    return null;
  }
}
