import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boxPixelRange, regionDepthStats } from '../../src/geometry/depth-stats.js';
import { quantileSorted, quantilesInPlace } from '../../src/util/stats.js';

describe('quantileSorted', () => {
  it('interpolates linearly like numpy.percentile', () => {
    // numpy: percentile([1,2,3,4], [10, 50, 90]) = [1.3, 2.5, 3.7]
    expect(quantileSorted([1, 2, 3, 4], 0.1)).toBeCloseTo(1.3, 12);
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBeCloseTo(2.5, 12);
    expect(quantileSorted([1, 2, 3, 4], 0.9)).toBeCloseTo(3.7, 12);
    expect(quantileSorted([5], 0.9)).toBe(5);
    expect(quantileSorted([], 0.5)).toBeNaN();
  });
});

describe('quantilesInPlace', () => {
  it('gives exactly what sorting and quantileSorted give, ties and repeats included', () => {
    const qs = [0.5, 0.1, 0.9, 0, 1, 0.25];
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -3, max: 3 })), { minLength: 1, maxLength: 400 }), (xs) => {
        const sorted = Float64Array.from(xs).sort();
        expect(quantilesInPlace(Float64Array.from(xs), qs)).toEqual(qs.map((q) => quantileSorted(sorted, q)));
      }),
      { numRuns: 300, seed: 20261201 },
    );
    expect(quantilesInPlace(new Float64Array(0), [0.5])).toEqual([NaN]);
  });
});

describe('boxPixelRange', () => {
  it('takes the pixels whose centres are inside', () => {
    expect(boxPixelRange([10, 10, 40, 40], 100, 50)).toEqual({ x0: 10, x1: 40, y0: 10, y1: 40 });
    expect(boxPixelRange([10.6, 0, 12.4, 3], 100, 50)).toEqual({ x0: 11, x1: 12, y0: 0, y1: 3 });
  });
  it('keeps at least the centre pixel of a tiny box and clips to the image', () => {
    expect(boxPixelRange([5.1, 5.1, 5.2, 5.2], 10, 10)).toEqual({ x0: 5, x1: 6, y0: 5, y1: 6 });
    expect(boxPixelRange([-20, -5, 500, 500], 10, 8)).toEqual({ x0: 0, x1: 10, y0: 0, y1: 8 });
  });
});

describe('regionDepthStats', () => {
  // 100x50 map with depth = x / 10.
  const width = 100;
  const height = 50;
  const depth = new Float32Array(width * height);
  for (let i = 0; i < depth.length; i++) depth[i] = (i % width) / 10;

  it('computes median, mean and p10/p90 inside a box', () => {
    const s = regionDepthStats(depth, width, height, 'm', { box: [10, 10, 40, 40] })!;
    // 30 columns x = 10..39, 30 rows each: sorted index 89.9 lies between x = 12 and x = 13.
    expect(s.region).toBe('box');
    expect(s.unit).toBe('m');
    expect(s.median).toBeCloseTo(2.45, 5);
    expect(s.mean).toBeCloseTo(2.45, 5);
    expect(s.p10).toBeCloseTo(1.2 + 0.9 * 0.1, 5);
    expect(s.p90).toBeCloseTo(3.6 + 0.1 * 0.1, 5);
  });

  it('uses the mask when there is one and falls back to the box when it is empty', () => {
    const mask = new Uint8Array(width * height);
    mask[5 * width + 70] = 1;
    mask[6 * width + 90] = 1;
    const s = regionDepthStats(depth, width, height, 'relative-inverse', { mask, box: [0, 0, 10, 10] })!;
    expect(s).toMatchObject({ region: 'mask', unit: 'relative-inverse' });
    expect(s.median).toBeCloseTo(8, 5);
    const empty = regionDepthStats(depth, width, height, 'm', { mask: new Uint8Array(width * height), box: [0, 0, 10, 10] })!;
    expect(empty.region).toBe('box');
    expect(empty.median).toBeCloseTo(0.45, 5);
  });

  it('ignores non-finite values and returns null when none is left', () => {
    const nan = new Float32Array(4).fill(NaN);
    expect(regionDepthStats(nan, 2, 2, 'm', { box: [0, 0, 2, 2] })).toBeNull();
    nan[3] = 7;
    expect(regionDepthStats(nan, 2, 2, 'm', { box: [0, 0, 2, 2] })!.median).toBe(7);
  });
});
