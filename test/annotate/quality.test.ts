import { describe, expect, it } from 'vitest';
import { annotationQuality, depthsOrdered, distribution, formatQualityReport } from '../../src/annotate/quality.js';
import type { CocoAnnotation, CocoFile, ObjectDepth } from '../../src/formats/coco.js';
import { rleEncode } from '../../src/geometry/rle.js';

const depth = (median: number, unit: ObjectDepth['unit']): ObjectDepth => ({ median, mean: median, p10: median, p90: median, unit, region: 'mask' });

function file(images: Array<{ item: string; anns: Array<Partial<CocoAnnotation> & Pick<CocoAnnotation, 'role' | 'bbox'>> }>): CocoFile {
  const out: CocoFile = { info: { tool: 't', version: '0', date_created: '', source: 'auto' }, images: [], annotations: [], categories: [] };
  images.forEach((img, i) => {
    out.images.push({ id: i + 1, item_id: img.item, file_name: `${img.item}.png`, width: 10, height: 10 });
    for (const a of img.anns) out.annotations.push({ id: out.annotations.length + 1, image_id: i + 1, category_id: 1, area: 0, iscrowd: 0, phrase: 'p', score: 1, ...a });
  });
  return out;
}

function squareMask(x0: number, y0: number, x1: number, y1: number) {
  const m = new Uint8Array(100);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) m[y * 10 + x] = 1;
  return rleEncode(m, 10, 10);
}

describe('annotationQuality', () => {
  const truth = file([
    {
      item: 'a',
      anns: [
        { role: 'subject', bbox: [0, 0, 4, 4], segmentation: squareMask(0, 0, 4, 4), depth: depth(1, 'm') },
        { role: 'object', bbox: [5, 5, 4, 4], segmentation: squareMask(5, 5, 9, 9), depth: depth(2, 'm') },
      ],
    },
    { item: 'b', anns: [{ role: 'subject', bbox: [0, 0, 10, 10], depth: depth(3, 'm') }, { role: 'object', bbox: [0, 0, 2, 2], depth: depth(1, 'm') }] },
    { item: 'c', anns: [{ role: 'subject', bbox: [0, 0, 2, 2] }] },
  ]);

  it('pairs by item and role and reports IoU, recall, mask IoU, depth order and AbsRel', () => {
    const pred = file([
      {
        item: 'a',
        anns: [
          // same box: IoU 1; mask shifted by one column: IoU 12/20
          { role: 'subject', bbox: [0, 0, 4, 4], segmentation: squareMask(1, 0, 5, 4), depth: depth(1.5, 'm') },
          // half-overlapping box: IoU 8/24
          { role: 'object', bbox: [7, 5, 4, 4], depth: depth(2, 'm') },
        ],
      },
      // b: order reversed in the prediction (relative-inverse: larger = nearer, so subject nearer here)
      { item: 'b', anns: [{ role: 'subject', bbox: [0, 0, 10, 5], depth: depth(9, 'relative-inverse') }, { role: 'object', bbox: [0, 0, 2, 2], depth: depth(1, 'relative-inverse') }] },
      { item: 'extra', anns: [{ role: 'subject', bbox: [0, 0, 1, 1] }] },
    ]);
    const r = annotationQuality(pred, truth);
    expect(r.images).toEqual({ truth: 3, predicted: 2, not_predicted: 1 });
    expect(r.objects).toEqual({ truth: 5, predicted: 4, not_predicted: 1 });
    expect(r.box_iou.n).toBe(4);
    expect(r.box_iou.max).toBe(1);
    expect(r.box_iou.min).toBeCloseTo(8 / 24, 12);
    expect(r.box_iou.median).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(r.box_iou.histogram).toEqual([0, 0, 0, 1, 0, 1, 0, 0, 0, 2]);
    // hits: a/subject, b/subject (IoU 0.5), b/object; misses: a/object, c/subject (not predicted)
    expect(r.recall_at_50).toBeCloseTo(3 / 5, 12);
    expect(r.recall_at_50_by_role).toEqual({ subject: 2 / 3, object: 1 / 2 });
    expect(r.mask_iou.n).toBe(1);
    expect(r.mask_iou.mean).toBeCloseTo(12 / 20, 12);
    // a: truth subject nearer (1 m < 2 m), prediction 1.5 < 2: agrees. b: truth object nearer, prediction subject nearer.
    expect(r.depth_order).toEqual({ pairs: 2, agree: 1, agreement: 0.5, unordered: 0, margin: 0.05 });
    // AbsRel only over metric pairs: |1.5-1|/1 and |2-2|/2
    expect(r.depth_absrel.n).toBe(2);
    expect(r.depth_absrel.value).toBeCloseTo(0.25, 12);
    expect(formatQualityReport(r)).toMatch(/recall@0.5: 0.600/);
  });

  it('says why AbsRel is missing when the prediction is relative depth', () => {
    const pred = file([{ item: 'b', anns: [{ role: 'subject', bbox: [0, 0, 10, 10], depth: depth(1, 'relative-inverse') }, { role: 'object', bbox: [0, 0, 2, 2], depth: depth(1, 'relative-inverse') }] }]);
    const r = annotationQuality(pred, truth);
    expect(r.depth_absrel).toEqual({ n: 0, value: null, skipped_reason: 'predicted or true depth is relative, not metric' });
    // a tie in the prediction does not count as agreement
    expect(r.depth_order).toEqual({ pairs: 1, agree: 0, agreement: 0, unordered: 0, margin: 0.05 });
  });

  it('counts pairs whose true depths are within the margin apart: no order, not scored', () => {
    const near = file([
      { item: 'a', anns: [{ role: 'subject', bbox: [0, 0, 2, 2], depth: depth(2.0, 'm') }, { role: 'object', bbox: [0, 0, 2, 2], depth: depth(2.09, 'm') }] },
      { item: 'b', anns: [{ role: 'subject', bbox: [0, 0, 2, 2], depth: depth(2.0, 'm') }, { role: 'object', bbox: [0, 0, 2, 2], depth: depth(2.1, 'm') }] },
    ]);
    // both predicted the wrong way round (subject farther)
    const pred = file(['a', 'b'].map((item) => ({ item, anns: [{ role: 'subject' as const, bbox: [0, 0, 2, 2], depth: depth(1, 'relative-inverse') }, { role: 'object' as const, bbox: [0, 0, 2, 2], depth: depth(2, 'relative-inverse') }] })));
    // a: 0.09 / 2.0 = 4.5% < 5%: no order; b: exactly 5%: ordered, and wrong
    expect(annotationQuality(pred, near).depth_order).toEqual({ pairs: 1, agree: 0, agreement: 0, unordered: 1, margin: 0.05 });
    expect(depthsOrdered(depth(10, 'relative-inverse'), depth(10.4, 'relative-inverse'))).toBe(false);
    expect(depthsOrdered(depth(10, 'relative-inverse'), depth(10.5, 'relative-inverse'))).toBe(true);
    expect(depthsOrdered(depth(2, 'm'), depth(2.01, 'm'), 0)).toBe(true);
    expect(depthsOrdered(depth(2, 'm'), depth(2, 'm'), 0)).toBe(false);
    expect(formatQualityReport(annotationQuality(pred, near))).toMatch(/1 within 5% of each other: no order/);
  });

  it('handles an empty prediction without NaN', () => {
    const r = annotationQuality(file([]), truth);
    expect(r.recall_at_50).toBe(0);
    expect(r.box_iou).toMatchObject({ n: 0, mean: null, median: null });
    expect(JSON.stringify(r)).not.toMatch(/NaN/);
  });
});

describe('distribution', () => {
  it('puts 1.0 in the last bin', () => {
    expect(distribution([0, 0.05, 0.5, 1]).histogram).toEqual([2, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
  });
});
