import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadImage } from '../../src/perception/image.js';
import { REPO_ROOT } from '../helpers/cli.js';

// Made by Pillow itself: test/fixtures/perception/make_cmyk_reference.py (Pillow version in cmyk-no-icc.json).
const DIR = join(REPO_ROOT, 'test', 'fixtures', 'perception', 'cmyk');
const JPEG = join(DIR, 'cmyk-no-icc.jpg');

describe('CMYK JPEG without an ICC profile', () => {
  it("decodes byte-identical to PIL's Image.open(...).convert('RGB'), from a file and from bytes", async () => {
    const ref = await sharp(join(DIR, 'cmyk-no-icc.pil-rgb.png')).raw().toBuffer({ resolveWithObject: true });
    for (const source of [JPEG, readFileSync(JPEG)]) {
      const img = await loadImage(source);
      expect([img.width, img.height]).toEqual([ref.info.width, ref.info.height]);
      expect(Buffer.from(img.data).equals(ref.data)).toBe(true);
    }
  });
});
