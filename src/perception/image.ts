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

/** The one-line error for a failed decode: a missing or empty file is named as such. */
async function decodeError(source: ImageSource, name: string, err: unknown): Promise<GsrError> {
  if (err instanceof GsrError) return err;
  if (typeof source === 'string') {
    const size = await stat(source).then((s) => s.size, () => undefined);
    if (size === undefined) return new GsrError(`cannot read image ${name}: no such file`);
    if (size === 0) return new GsrError(`cannot decode image ${name}: file is empty (0 bytes)`);
  }
  const msg = errorMessage(err).split('\n')[0]!.replace(/^Input (file|buffer) /, '');
  return new GsrError(`cannot decode image ${name}: ${msg}`);
}

/**
 * The decoding pipeline: EXIF orientation applied, alpha composited on white (what Hugging Face's
 * `convert_rgb` does), any colour space (grey, 16-bit, CMYK via its ICC profile) to 8-bit sRGB.
 * Fails on truncated or damaged data instead of decoding a grey tail.
 */
function pipeline(source: ImageSource): sharp.Sharp {
  const input = typeof source === 'string' ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  return sharp(input, { failOn: 'warning' })
    .rotate()
    .flatten({ background: { r: 255, g: 255, b: 255 } })
    .toColourspace('srgb');
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
    const m = await pipeline(source).metadata();
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
