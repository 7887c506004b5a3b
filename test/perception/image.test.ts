import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeRules, decodeSettings, imageSize, loadImage } from '../../src/perception/image.js';
import type { DecodeOptions } from '../../src/perception/types.js';
import { GsrError } from '../../src/util/errors.js';
import { FIXTURES } from './paths.js';

const dir = mkdtempSync(join(tmpdir(), 'gsr-image-'));
const RED = { r: 200, g: 50, b: 10 };
const base = () => sharp({ create: { width: 40, height: 20, channels: 3, background: RED } });

beforeAll(async () => {
  await base().png().toFile(join(dir, 'ok.png'));
  const jpg = await base().jpeg().toBuffer();
  writeFileSync(join(dir, 'truncated.jpg'), jpg.subarray(0, Math.floor(jpg.length / 2)));
  writeFileSync(join(dir, 'empty.jpg'), '');
  writeFileSync(join(dir, 'text.jpg'), 'not an image');
  await base().greyscale().png().toFile(join(dir, 'grey.png'));
  await sharp({ create: { width: 4, height: 2, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toFile(join(dir, 'alpha.png'));
  await base().toColourspace('rgb16').png().toFile(join(dir, 'deep.png'));
  await base().toColourspace('cmyk').withIccProfile('cmyk').jpeg().toFile(join(dir, 'cmyk.jpg'));
  // 40x20 stored, orientation 6 (rotate 90 clockwise to view): left half red, right half blue.
  const left = await sharp({ create: { width: 20, height: 20, channels: 3, background: RED } }).png().toBuffer();
  await sharp({ create: { width: 40, height: 20, channels: 3, background: { r: 0, g: 0, b: 255 } } })
    .composite([{ input: left, left: 0, top: 0 }])
    .png()
    .withMetadata({ orientation: 6 })
    .toFile(join(dir, 'exif6.png'));
});

describe('loadImage', () => {
  it('decodes RGB to interleaved 8-bit', async () => {
    const im = await loadImage(join(dir, 'ok.png'));
    expect([im.width, im.height, im.data.length]).toEqual([40, 20, 2400]);
    expect(Array.from(im.data.subarray(0, 3))).toEqual([200, 50, 10]);
  });

  it('expands grayscale to three equal channels', async () => {
    const im = await loadImage(join(dir, 'grey.png'));
    expect(im.data.length).toBe(40 * 20 * 3);
    expect(im.data[0]).toBe(im.data[1]);
    expect(im.data[1]).toBe(im.data[2]);
  });

  it('scales 16-bit RGB to its high byte', async () => {
    const im = await loadImage(join(dir, 'deep.png'));
    expect(Array.from(im.data.subarray(0, 3))).toEqual([200, 50, 10]);
  });

  it('drops alpha by default, keeping the colour under it; composites on white with alpha: white', async () => {
    expect(Array.from((await loadImage(join(dir, 'alpha.png'))).data.subarray(0, 3))).toEqual([0, 0, 0]);
    expect(Array.from((await loadImage(join(dir, 'alpha.png'), undefined, { alpha: 'white' })).data.subarray(0, 3))).toEqual([255, 255, 255]);
  });

  // The PIL references of every rule are checked in test/perception/preprocess.test.ts, from files.
  it('decodes bytes as it decodes the file, with every option', async () => {
    const ref = JSON.parse(readFileSync(join(FIXTURES, 'preprocess-reference.json'), 'utf8')) as {
      images: Array<{ file: string; decoded_sha256: string; options?: Array<{ decode: DecodeOptions; sha256: string; rgb_zlib_base64?: string }> }>;
    };
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    for (const entry of ref.images) {
      const path = join(FIXTURES, entry.file);
      const bytes = readFileSync(path);
      expect(sha((await loadImage(bytes, entry.file)).data), entry.file).toBe(entry.decoded_sha256);
      for (const o of entry.options ?? []) {
        // The ICC conversion's rule is Pillow's littleCMS, within a level of the port's: compared with the file's decoding instead.
        const want = o.rgb_zlib_base64 === undefined ? o.sha256 : sha((await loadImage(path, undefined, o.decode)).data);
        expect(sha((await loadImage(bytes, entry.file, o.decode)).data), `${entry.file} ${JSON.stringify(o.decode)}`).toBe(want);
      }
    }
  });

  it('names only the rules that differ from the reference', () => {
    expect(decodeSettings()).toEqual({});
    expect(decodeSettings({ alpha: 'drop', grey16: 'clip' })).toEqual({});
    expect(decodeSettings({ alpha: 'drop', grey16: 'clip', icc: 'ignore' })).toEqual({});
    expect(decodeSettings({ alpha: 'white', grey16: 'high-byte', icc: 'convert' })).toEqual({ decode_alpha: 'white', decode_grey16: 'high-byte', decode_icc: 'convert' });
    expect(decodeRules()).toEqual({ decode_alpha: 'drop', decode_grey16: 'clip', decode_icc: 'ignore' });
    expect(decodeRules({ icc: 'convert' })).toEqual({ decode_alpha: 'drop', decode_grey16: 'clip', decode_icc: 'convert' });
  });

  // By default CMYK follows PIL's formula, profile or not (test/perception/cmyk.test.ts, preprocess.test.ts).
  it('converts CMYK with an ICC profile to sRGB through the profile under icc: convert', async () => {
    const im = await loadImage(join(dir, 'cmyk.jpg'), undefined, { icc: 'convert' });
    const viaProfile = await sharp(join(dir, 'cmyk.jpg')).toColourspace('srgb').raw().toBuffer();
    expect(Buffer.from(im.data).equals(viaProfile)).toBe(true);
    expect(Buffer.from((await loadImage(join(dir, 'cmyk.jpg'))).data).equals(viaProfile)).toBe(false);
    const [r, g, b] = im.data;
    expect(Math.abs(r! - 200)).toBeLessThan(30);
    expect(Math.abs(g! - 50)).toBeLessThan(30);
    expect(Math.abs(b! - 10)).toBeLessThan(30);
  });

  it('applies EXIF orientation', async () => {
    const im = await loadImage(join(dir, 'exif6.png'));
    expect([im.width, im.height]).toEqual([20, 40]);
    // After a 90 degree clockwise turn the stored left (red) half is on top.
    expect(Array.from(im.data.subarray(0, 3))).toEqual([200, 50, 10]);
    const last = (im.width * im.height - 1) * 3;
    expect(Array.from(im.data.subarray(last, last + 3))).toEqual([0, 0, 255]);
  });

  it.each([
    ['truncated.jpg', /cannot decode image .*truncated\.jpg: .*premature end/],
    ['empty.jpg', /cannot decode image .*empty\.jpg: file is empty/],
    ['text.jpg', /cannot decode image .*text\.jpg: .*unsupported image format/],
    ['missing.jpg', /cannot read image .*missing\.jpg: no such file/],
  ])('rejects %s with a one-line GsrError', async (name, pattern) => {
    const err = await loadImage(join(dir, name)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GsrError);
    expect((err as Error).message).toMatch(pattern);
    expect((err as Error).message).not.toContain('\n');
  });
});

describe('imageSize', () => {
  it('reads JPEG bytes in JS and every other case through sharp, with the same answers', async () => {
    for (const orientation of [1, 3, 6, 8]) {
      const bytes = await base().jpeg().withMetadata({ orientation }).toBuffer();
      const want = orientation >= 5 ? { width: 20, height: 40 } : { width: 40, height: 20 };
      expect(await imageSize(bytes)).toEqual(want);
      const file = join(dir, `o${orientation}.jpg`);
      writeFileSync(file, bytes);
      expect(await imageSize(file)).toEqual(want);
    }
    expect(await imageSize(join(dir, 'exif6.png'))).toEqual({ width: 20, height: 40 });
  });

  it('a header it cannot read falls back to sharp and its one-line error', async () => {
    const junk = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x02, 0x00]);
    const err = await imageSize(junk, 'junk.jpg').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GsrError);
    expect((err as Error).message).toMatch(/^cannot decode image junk\.jpg: /);
  });
});
