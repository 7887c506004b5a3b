/**
 * Box IoU and box formats against torchvision's own box_iou / box_convert (0.29.1 on torch 2.13),
 * computed once by test/fixtures/geometry/make_torchvision_reference.py on 158 box pairs: random,
 * disjoint, touching, nested, equal, zero-width, normalised and far from the origin.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boxIou, convertBox } from '../../src/geometry/index.js';

const ref = JSON.parse(readFileSync(join(__dirname, '../fixtures/geometry/torchvision-boxes.json'), 'utf8')) as {
  pairs: Array<{ a: number[]; b: number[]; iou: number }>;
  convert_input: number[][];
  convert: Record<string, number[][]>;
};

describe('boxes match torchvision', () => {
  it('box_iou on 158 pairs, to 1e-12', () => {
    let worst = 0;
    for (const p of ref.pairs) worst = Math.max(worst, Math.abs(boxIou(p.a, p.b) - p.iou));
    expect(worst).toBeLessThan(1e-12);
    expect(ref.pairs.filter((p) => p.iou === 0).length).toBeGreaterThan(2); // disjoint, touching, zero-width
  });

  it('box_convert between xyxy, xywh and cxcywh', () => {
    for (const [name, boxes] of Object.entries(ref.convert)) {
      const [from, to] = name.split('->') as ['xyxy' | 'xywh' | 'cxcywh', 'xyxy' | 'xywh' | 'cxcywh'];
      ref.convert_input.forEach((input, i) => {
        const got = convertBox(input, from, to);
        got.forEach((v, k) => expect(Math.abs(v - boxes[i]![k]!), `${name} #${i}`).toBeLessThan(1e-9));
      });
    }
  });

  it('where torchvision gives NaN (two zero-area boxes), boxIou gives 0', () => {
    expect(boxIou([0, 0, 0, 0], [0, 0, 0, 0])).toBe(0);
  });
});
