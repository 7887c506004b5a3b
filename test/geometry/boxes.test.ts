import { describe, expect, it } from 'vitest';
import {
  boxArea,
  boxIou,
  clipBox,
  convertBox,
  cxcywhToXyxy,
  denormalizeBox,
  normalizeBox,
  orderCorners,
  xywhToXyxy,
  xyxyToCxcywh,
  xyxyToXywh,
} from '../../src/geometry/index.js';

describe('box conversions', () => {
  it('xyxy <-> xywh <-> cxcywh', () => {
    expect(xywhToXyxy([10, 20, 30, 40])).toEqual([10, 20, 40, 60]);
    expect(xyxyToXywh([10, 20, 40, 60])).toEqual([10, 20, 30, 40]);
    expect(xyxyToCxcywh([10, 20, 40, 60])).toEqual([25, 40, 30, 40]);
    expect(cxcywhToXyxy([25, 40, 30, 40])).toEqual([10, 20, 40, 60]);
    expect(convertBox([25, 40, 30, 40], 'cxcywh', 'xywh')).toEqual([10, 20, 30, 40]);
    expect(convertBox([10, 20, 30, 40], 'xywh', 'xywh')).toEqual([10, 20, 30, 40]);
  });
  it('normalised <-> pixels', () => {
    expect(normalizeBox([64, 48, 320, 240], 640, 480)).toEqual([0.1, 0.1, 0.5, 0.5]);
    expect(denormalizeBox([0.1, 0.1, 0.5, 0.5], 640, 480)).toEqual([64, 48, 320, 240]);
  });
  it('orders swapped corners and clips', () => {
    expect(orderCorners([50, 60, 10, 20])).toEqual([10, 20, 50, 60]);
    expect(clipBox([-5, 10, 700, 500], 640, 480)).toEqual([0, 10, 640, 480]);
  });
});

describe('boxIou (continuous, no +1)', () => {
  it('known values', () => {
    expect(boxIou([0, 0, 10, 10], [0, 0, 10, 10])).toBe(1);
    // Overlap 5x10 = 50; union 100 + 100 - 50 = 150 (a +1 convention would give 55/187).
    expect(boxIou([0, 0, 10, 10], [5, 0, 15, 10])).toBeCloseTo(50 / 150, 15);
    expect(boxIou([0, 0, 2, 2], [1, 1, 3, 3])).toBeCloseTo(1 / 7, 15);
    // Containment: 25 / 100.
    expect(boxIou([0, 0, 10, 10], [2, 2, 7, 7])).toBeCloseTo(0.25, 15);
  });
  it('is symmetric', () => {
    expect(boxIou([3, 1, 9, 8], [0, 2, 5, 12])).toBe(boxIou([0, 2, 5, 12], [3, 1, 9, 8]));
  });
  it('disjoint, touching, degenerate and non-finite boxes give 0, never NaN', () => {
    expect(boxIou([0, 0, 10, 10], [20, 20, 30, 30])).toBe(0);
    expect(boxIou([0, 0, 10, 10], [10, 0, 20, 10])).toBe(0);
    expect(boxIou([5, 5, 5, 5], [5, 5, 5, 5])).toBe(0);
    expect(boxIou([0, 0, 0, 10], [0, 0, 10, 10])).toBe(0);
    expect(boxIou([10, 10, 0, 0], [0, 0, 10, 10])).toBe(0);
    expect(boxIou([NaN, 0, 10, 10], [0, 0, 10, 10])).toBe(0);
    expect(boxIou([0, 0, Infinity, 10], [0, 0, 10, 10])).toBe(0);
    expect(boxIou([0, 0, 1e308, 1e308], [0, 0, 1e308, 1e308])).not.toBeNaN();
  });
  it('boxArea', () => {
    expect(boxArea([0, 0, 3, 4])).toBe(12);
    expect(boxArea([3, 4, 0, 0])).toBe(0);
    expect(boxArea([0, 0, NaN, 4])).toBe(0);
  });
});
