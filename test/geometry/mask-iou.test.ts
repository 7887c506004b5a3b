/**
 * Mask IoU matrices against pycocotools' mask.iou(dt, gt, iscrowd) (fixture made by
 * test/fixtures/geometry/make_pycocotools_iou_reference.py), and against pixel counting.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeMask,
  maskIou,
  type Rle,
  rleArea,
  rleEncode,
  rleIou,
  rleIouMatrix,
  rleToBbox,
  runsToString,
  stringToRuns,
} from '../../src/geometry/index.js';
import { GsrError } from '../../src/util/errors.js';

interface Case {
  name: string;
  height: number;
  width: number;
  dt: string[];
  gt: string[];
  iscrowd: number[];
  iou: number[][];
}
const ref = JSON.parse(readFileSync(join(__dirname, '../fixtures/geometry/pycocotools-iou.json'), 'utf8')) as { cases: Case[] };

describe('rleIouMatrix matches pycocotools mask.iou', () => {
  it.each(ref.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const rle = (counts: string): Rle => ({ size: [c.height, c.width], counts });
    const dt = c.dt.map(rle);
    const gt = c.gt.map(rle);
    const got = rleIouMatrix(dt, gt, c.iscrowd);
    expect(got).toHaveLength(dt.length);
    got.forEach((row, d) => {
      expect(row).toHaveLength(gt.length);
      // Same arithmetic (one division of two integers), so the values are identical.
      row.forEach((v, g) => expect(v).toBe(c.iou[d][g]));
    });
    // Pre-decoded masks give the same matrix; without crowd flags, maskIou agrees with rleIou.
    const decoded = rleIouMatrix(dt.map(decodeMask), gt.map(decodeMask), c.iscrowd.map(Boolean));
    expect(decoded).toEqual(got);
    if (c.iscrowd.every((f) => f === 0)) for (let d = 0; d < dt.length; d++) for (let g = 0; g < gt.length; g++) expect(rleIou(dt[d], gt[g])).toBe(got[d][g]);
  });
});

/** Pixel-counting IoU of row-major masks, pycocotools' crowd rule included. */
function bruteIou(a: Uint8Array, b: Uint8Array, crowd: boolean): number {
  let inter = 0;
  let areaA = 0;
  let areaB = 0;
  for (let i = 0; i < a.length; i++) {
    areaA += a[i];
    areaB += b[i];
    inter += a[i] & b[i];
  }
  if (inter === 0) return 0;
  return inter / (crowd ? areaA : areaA + areaB - inter);
}

describe('rleIouMatrix agrees with pixel counting', () => {
  it('on random masks of random sizes, with crowd flags', () => {
    const sized = fc.record({ h: fc.integer({ min: 1, max: 12 }), w: fc.integer({ min: 1, max: 12 }) }).chain(({ h, w }) =>
      fc.record({
        h: fc.constant(h),
        w: fc.constant(w),
        dt: fc.array(fc.uint8Array({ minLength: h * w, maxLength: h * w, max: 1 }), { minLength: 1, maxLength: 4 }),
        gt: fc.array(fc.tuple(fc.uint8Array({ minLength: h * w, maxLength: h * w, max: 1 }), fc.boolean()), { minLength: 1, maxLength: 4 }),
      }),
    );
    fc.assert(
      fc.property(sized, ({ h, w, dt, gt }) => {
        const got = rleIouMatrix(
          dt.map((m) => rleEncode(m, h, w)),
          gt.map(([m]) => rleEncode(m, h, w)),
          gt.map(([, crowd]) => crowd),
        );
        dt.forEach((a, d) => gt.forEach(([b, crowd], g) => expect(got[d][g]).toBeCloseTo(bruteIou(a, b, crowd), 12)));
      }),
      { numRuns: 300, seed: 20261201 },
    );
  });

  it('pairs whose boxes do not meet are 0, masks that wrap across columns are not missed', () => {
    // 4x3, column-major: ones at rows 2-3 of column 0 and rows 0-1 of column 1 form one run.
    const wrap = rleEncode(Uint8Array.from([0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0]), 4, 3);
    const corner = rleEncode(Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), 4, 3);
    const below = rleEncode(Uint8Array.from([0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0]), 4, 3);
    expect(rleIouMatrix([wrap], [corner, below, wrap])[0]).toEqual(Float64Array.from([0, 0.5, 1]));
  });
});

describe('decodeMask', () => {
  it('has the area and pycocotools bbox of the RLE', () => {
    for (const c of ref.cases) {
      for (const counts of [...c.dt, ...c.gt]) {
        const rle: Rle = { size: [c.height, c.width], counts };
        const m = decodeMask(rle);
        expect(m.area).toBe(rleArea(rle));
        const [x, y, bw, bh] = rleToBbox(rle);
        if (m.area > 0) expect([m.x0, m.y0, m.x1 - m.x0 + 1, m.y1 - m.y0 + 1]).toEqual([x, y, bw, bh]);
        // columnRun[x] is the first run of ones that ends after the start of column x.
        for (let col = 0; col <= c.width; col++) {
          const r = m.columnRun[col];
          expect(r === m.ones.length / 2 || m.ones[2 * r + 1] > col * c.height).toBe(true);
          expect(r === 0 || m.ones[2 * r - 1] <= col * c.height).toBe(true);
        }
      }
    }
  });

  it('passes a decoded mask through unchanged', () => {
    const m = decodeMask(rleEncode(Uint8Array.from([1, 0, 1, 1]), 2, 2));
    expect(decodeMask(m)).toBe(m);
    expect(maskIou(m, m)).toBe(1);
  });
});

describe('bad input is a GsrError', () => {
  it('sizes that differ, crowd flags that do not match the ground truths', () => {
    const a = rleEncode(new Uint8Array(4).fill(1), 2, 2);
    const b = rleEncode(new Uint8Array(6).fill(1), 2, 3);
    expect(() => rleIouMatrix([a], [b])).toThrow(/RLE sizes differ/);
    expect(() => rleIou(a, b)).toThrow(GsrError);
    expect(() => rleIouMatrix([a], [a, a], [1])).toThrow(/iscrowd has 1 flags for 2 ground-truth masks/);
    expect(() => decodeMask({ size: [2, 2], counts: '52' })).toThrow(/runs sum to 7/);
  });
});

describe('RLE strings with counts past 30 bits', () => {
  it('round-trip exactly', () => {
    const runs = [2 ** 31 + 7, 3, 2 ** 40 + 1, 0, 5, 2 ** 29, 2 ** 30 - 1, 2 ** 30];
    expect(stringToRuns(runsToString(runs))).toEqual(runs);
  });
});
