/**
 * Image decoding for every perception port: one place turns a file into 8-bit sRGB pixels.
 */
import { open, stat } from 'node:fs/promises';
import { imageSize as headerSize } from 'image-size';
import sharp from 'sharp';
import { GsrError, errorMessage } from '../util/errors.js';
import type { DecodeOptions, RgbImage } from './types.js';

/** A file path, or encoded bytes. */
export type ImageSource = string | Uint8Array;

/** Every rule of `o`, the reference's where absent, by the names runs record them under (the journal header). */
export function decodeRules(o: DecodeOptions = {}): Record<string, string> {
  return { decode_alpha: o.alpha ?? 'drop', decode_grey16: o.grey16 ?? 'clip', decode_icc: o.icc ?? 'ignore' };
}

/** The rules of `o` that differ from the reference (as `info.models[].settings` records them): empty for the reference decoding. */
export function decodeSettings(o: DecodeOptions = {}): Record<string, string> {
  const reference = decodeRules();
  return Object.fromEntries(Object.entries(decodeRules(o)).filter(([k, v]) => v !== reference[k]));
}

const bufferOf = (source: ImageSource) => (typeof source === 'string' ? source : Buffer.from(source.buffer, source.byteOffset, source.byteLength));
/**
 * sharp on `source`, failing on damaged data; `limit` is checked on the header, before any pixel is
 * decoded. An embedded ICC profile is ignored unless `decode.icc` is `convert`.
 */
const sharpOf = (source: ImageSource, decode: DecodeOptions, limit: number | false = maxImagePixels()) =>
  sharp(bufferOf(source), { failOn: 'warning', limitInputPixels: limit, ignoreIcc: decode.icc !== 'convert' });

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
 * The decoding pipeline: EXIF orientation applied, an ICC profile ignored and alpha dropped (or
 * composited on white, rounding down, under `alpha: 'white'`), as PIL's `exif_transpose` and
 * `convert('RGB')` do. The caller picks the colour conversion. Fails on truncated or damaged data
 * instead of decoding a grey tail.
 */
function pipeline(source: ImageSource, decode: DecodeOptions): sharp.Sharp {
  const p = sharpOf(source, decode).rotate();
  return decode.alpha === 'white' ? p.flatten({ background: { r: 255, g: 255, b: 255 } }) : p.removeAlpha();
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

/** A PNG's colour type (IHDR byte 25), or null when it is not a PNG. */
async function pngColourType(source: ImageSource): Promise<number | null> {
  const head: Uint8Array = typeof source === 'string' ? new Uint8Array(26) : source;
  if (typeof source === 'string') {
    const f = await open(source, 'r');
    try {
      await f.read(head, 0, 26, 0);
    } finally {
      await f.close();
    }
  }
  return head.length >= 26 && head[0] === 0x89 && head[1] === 0x50 && head[2] === 0x4e && head[3] === 0x47 ? head[25]! : null;
}

/**
 * Which conversion an image takes:
 * - `cmyk`: CMYK, unless it has an ICC profile and `icc: 'convert'` asks for it. sharp would convert
 *   it through its profile, or a built-in CMYK profile when it has none; PIL's `convert('RGB')` uses
 *   its plain formula for both (up to 118 levels apart on test/fixtures/perception/cmyk), and PIL is
 *   the reference, so these take {@link cmykToRgb}.
 * - `grey16`: what PIL opens as mode I;16 (16-bit grey with no alpha channel: a PNG's colour type 0,
 *   with or without a transparent value) under `grey16: 'clip'`. sharp would keep the high byte.
 *   16-bit grey with an alpha channel is RGBA to PIL, high bytes, as sharp converts it.
 * - `srgb`: everything else, sharp's conversion to 8-bit sRGB.
 */
async function conversionOf(source: ImageSource, decode: DecodeOptions): Promise<'cmyk' | 'grey16' | 'srgb'> {
  const viaProfile = (hasProfile: boolean | undefined) => hasProfile === true && decode.icc === 'convert';
  if (typeof source !== 'string') {
    const jpeg = jpegColour(source);
    if (jpeg !== null) return jpeg.components === 4 && !viaProfile(jpeg.icc) ? 'cmyk' : 'srgb';
  }
  const m = await sharp(bufferOf(source), { limitInputPixels: false }).metadata().catch(() => null);
  if (m?.space === 'cmyk' && !viaProfile(m.hasProfile)) return 'cmyk';
  if (m?.space === 'grey16' && decode.grey16 !== 'high-byte' && (!m.hasAlpha || (await pngColourType(source)) === 0)) return 'grey16';
  return 'srgb';
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

/** Decodes a CMYK image the way PIL does: the CMYK values as stored (any profile ignored), then {@link cmykToRgb}. */
async function decodeCmyk(source: ImageSource): Promise<RgbImage> {
  const { data, info } = await sharpOf(source, { icc: 'ignore' })
    .rotate()
    .pipelineColourspace('cmyk')
    .toColourspace('cmyk')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error(`decoded CMYK to ${info.channels} channels, expected 4`);
  return { data: cmykToRgb(data, info.width * info.height), width: info.width, height: info.height };
}

/** 16-bit grey as PIL's I;16 to RGB: sharp's cast from 16 to 8 bits clips, then the grey goes to all three channels. */
async function decodeGrey16Clipped(p: sharp.Sharp): Promise<RgbImage> {
  const { data, info } = await p.toColourspace('grey16').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`decoded 16-bit grey to ${info.channels} channels, expected 1`);
  const rgb = new Uint8Array(data.length * 3);
  for (let i = 0, o = 0; i < data.length; i++, o += 3) rgb[o] = rgb[o + 1] = rgb[o + 2] = data[i]!;
  return { data: rgb, width: info.width, height: info.height };
}

async function toRgb(p: sharp.Sharp): Promise<RgbImage> {
  const { data, info } = await p.raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`decoded to ${info.channels} channels, expected 3`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * Decodes an image file (or its bytes) to interleaved 8-bit sRGB with EXIF orientation applied, by
 * default as Transformers' `load_image` does (`decode` names the deliberate differences).
 * Corrupt, truncated, empty or unsupported files throw a one-line GsrError naming the file.
 */
export async function loadImage(source: ImageSource, label?: string, decode: DecodeOptions = {}): Promise<RgbImage> {
  const name = sourceName(source, label);
  checkNotEmpty(source, name);
  try {
    const conversion = await conversionOf(source, decode);
    if (conversion === 'cmyk') return await decodeCmyk(source);
    if (conversion === 'grey16') return await decodeGrey16Clipped(pipeline(source, decode));
    return await toRgb(pipeline(source, decode).toColourspace('srgb'));
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
    const m = await sharpOf(source, {}, false).metadata(); // reading a header decodes no pixels
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
