/**
 * COCO RLE against pycocotools itself: strings, area, bbox, IoU, union and intersection computed once
 * by test/fixtures/geometry/make_pycocotools_reference.py (pycocotools 2.0.11) on 26 masks, from 1x1
 * to 480x640 with thousands of runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rleArea, rleDecode, rleEncode, rleIntersect, rleIou, rleMerge, rleToBbox } from '../../src/geometry/index.js';

interface RefMask {
  height: number;
  width: number;
  bits_base64: string;
  counts: string;
  area: number;
  bbox: number[];
}
const ref = JSON.parse(readFileSync(join(__dirname, '../fixtures/geometry/pycocotools-rle.json'), 'utf8')) as {
  masks: RefMask[];
  pairs: Array<{ a: number; b: number; iou: number; union: string; intersection: string }>;
};

/** The row-major 0/1 mask from numpy.packbits bytes (most significant bit first). */
function unpack(m: RefMask): Uint8Array {
  const bytes = Buffer.from(m.bits_base64, 'base64');
  const out = new Uint8Array(m.height * m.width);
  for (let i = 0; i < out.length; i++) out[i] = (bytes[i >> 3]! >> (7 - (i & 7))) & 1;
  return out;
}

describe('COCO RLE matches pycocotools', () => {
  it.each(ref.masks.map((m, i) => [i, `${m.height}x${m.width}`, m] as const))('mask %i (%s): string, decode, area, bbox', (_i, _size, m) => {
    const mask = unpack(m);
    const rle = rleEncode(mask, m.height, m.width);
    expect(rle).toEqual({ size: [m.height, m.width], counts: m.counts });
    expect(rleDecode({ size: [m.height, m.width], counts: m.counts })).toEqual(mask);
    expect(rleArea(rle)).toBe(m.area);
    expect(rleToBbox(rle)).toEqual(m.bbox);
  });

  it.each(ref.pairs.map((p) => [p.a, p.b, p] as const))('masks %i and %i: IoU, union, intersection', (a, b, p) => {
    const [ra, rb] = [ref.masks[a]!, ref.masks[b]!].map((m) => ({ size: [m.height, m.width] as [number, number], counts: m.counts }));
    expect(rleIou(ra!, rb!)).toBeCloseTo(p.iou, 12);
    expect(rleMerge([ra!, rb!]).counts).toBe(p.union);
    expect(rleIntersect([ra!, rb!]).counts).toBe(p.intersection);
  });
});
