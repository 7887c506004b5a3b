/** Test images written with sharp, including the awkward kinds (corrupt, CMYK, EXIF-rotated, ...). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/** A plain RGB PNG of the given size. */
export async function writePng(path: string, width: number, height: number): Promise<void> {
  await sharp({ create: { width, height, channels: 3, background: { r: 120, g: 140, b: 160 } } }).png().toFile(path);
}

export interface AwkwardImage {
  name: string;
  /** Expected decoded size, or null when decoding must fail. */
  expect: { width: number; height: number } | null;
}

/** Writes one file of each awkward kind into `dir`, 100x50 unless rotated. */
export async function writeAwkwardImages(dir: string): Promise<AwkwardImage[]> {
  const base = () => sharp({ create: { width: 100, height: 50, channels: 3, background: { r: 200, g: 30, b: 30 } } });
  const jpeg = await base().jpeg().toBuffer();
  writeFileSync(join(dir, 'truncated.jpg'), jpeg.subarray(0, Math.floor(jpeg.length / 2)));
  writeFileSync(join(dir, 'empty.jpg'), Buffer.alloc(0));
  writeFileSync(join(dir, 'corrupt.png'), Buffer.from('this is not an image at all, just text'));
  await base().greyscale().toColourspace('b-w').png().toFile(join(dir, 'grey.png'));
  await base().png().toColourspace('rgb16').toFile(join(dir, 'sixteen.png'));
  await sharp({ create: { width: 100, height: 50, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).png().toFile(join(dir, 'alpha.png'));
  await base().toColourspace('cmyk').jpeg().toFile(join(dir, 'cmyk.jpg'));
  // EXIF orientation 6: stored 100x50, displayed rotated by 90 degrees, so 50x100.
  await base().jpeg().withMetadata({ orientation: 6 }).toFile(join(dir, 'rotated.jpg'));
  return [
    { name: 'truncated.jpg', expect: null },
    { name: 'empty.jpg', expect: null },
    { name: 'corrupt.png', expect: null },
    { name: 'grey.png', expect: { width: 100, height: 50 } },
    { name: 'sixteen.png', expect: { width: 100, height: 50 } },
    { name: 'alpha.png', expect: { width: 100, height: 50 } },
    { name: 'cmyk.jpg', expect: { width: 100, height: 50 } },
    { name: 'rotated.jpg', expect: { width: 50, height: 100 } },
  ];
}
