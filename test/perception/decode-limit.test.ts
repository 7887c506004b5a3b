import { afterEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { DEFAULT_MAX_IMAGE_PIXELS, imageSize, loadImage, maxImagePixels } from '../../src/perception/image.js';

const saved = process.env.GSR_MAX_IMAGE_PIXELS;
afterEach(() => {
  if (saved === undefined) delete process.env.GSR_MAX_IMAGE_PIXELS;
  else process.env.GSR_MAX_IMAGE_PIXELS = saved;
});

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#808080' } }).png().toBuffer();

describe('decode limit', () => {
  it("defaults to PIL's MAX_IMAGE_PIXELS and is read from GSR_MAX_IMAGE_PIXELS", () => {
    expect(DEFAULT_MAX_IMAGE_PIXELS).toBe(89_478_485);
    expect(maxImagePixels({})).toBe(DEFAULT_MAX_IMAGE_PIXELS);
    expect(maxImagePixels({ GSR_MAX_IMAGE_PIXELS: '1000' })).toBe(1000);
    expect(() => maxImagePixels({ GSR_MAX_IMAGE_PIXELS: '-3' })).toThrow(/GSR_MAX_IMAGE_PIXELS must be a positive integer, got "-3"/);
  });

  it('an image over the limit is refused from its header with a one-line error; one at the limit decodes', async () => {
    process.env.GSR_MAX_IMAGE_PIXELS = String(100 * 100);
    await expect(loadImage(await png(101, 100), 'big.png')).rejects.toThrow(/^cannot decode image big\.png: it has more than 10000 pixels \(the decode limit; GSR_MAX_IMAGE_PIXELS raises it\)$/);
    expect((await loadImage(await png(100, 100), 'ok.png')).width).toBe(100);
    // Reading the size alone is not decoding, and stays allowed.
    expect(await imageSize(await png(101, 100))).toEqual({ width: 101, height: 100 });
  });
});
