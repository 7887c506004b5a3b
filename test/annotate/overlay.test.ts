import { describe, expect, it } from 'vitest';
import { depthHeatMap, heatColour, paintBox, paintMask, paintObjects, ROLE_COLOURS } from '../../src/annotate/overlay.js';

const px = (rgb: Uint8Array, w: number, x: number, y: number) => [...rgb.subarray((y * w + x) * 3, (y * w + x) * 3 + 3)];

describe('overlay painting', () => {
  it('outlines a box inside its edges, clipped to the image', () => {
    const w = 10;
    const rgb = new Uint8Array(w * 8 * 3);
    paintBox(rgb, w, 8, [2, 2, 7, 6], [255, 0, 0], 1);
    expect(px(rgb, w, 2, 2)).toEqual([255, 0, 0]);
    expect(px(rgb, w, 6, 5)).toEqual([255, 0, 0]);
    expect(px(rgb, w, 4, 4)).toEqual([0, 0, 0]); // interior untouched
    expect(px(rgb, w, 7, 2)).toEqual([0, 0, 0]); // x2 is exclusive
    paintBox(rgb, w, 8, [-5, -5, 100, 100], [0, 255, 0], 1);
    expect(px(rgb, w, 0, 0)).toEqual([0, 255, 0]);
    expect(px(rgb, w, 9, 7)).toEqual([0, 255, 0]);
  });

  it('tints masked pixels only', () => {
    const rgb = new Uint8Array([100, 100, 100, 100, 100, 100]);
    paintMask(rgb, new Uint8Array([1, 0]), [200, 0, 0], 0.5);
    expect([...rgb]).toEqual([150, 50, 50, 100, 100, 100]);
  });

  it('does not modify the source image', () => {
    const image = { data: new Uint8Array(4 * 4 * 3), width: 4, height: 4 };
    const out = paintObjects(image, [{ role: 'subject', box: [0, 0, 4, 4] }]);
    expect(px(out, 4, 0, 0)).toEqual(ROLE_COLOURS.subject);
    expect(image.data.every((v) => v === 0)).toBe(true);
  });

  it('colours near warm and far cold, whichever way the depth map points', () => {
    expect(heatColour(1)[0]).toBeGreaterThan(heatColour(1)[2]);
    expect(heatColour(0)[2]).toBeGreaterThan(heatColour(0)[0]);
    const metres = depthHeatMap({ data: new Float32Array([1, 5, NaN]), larger: 'farther' });
    expect([...metres.subarray(0, 3)]).toEqual(heatColour(1)); // 1 m is the nearest
    expect([...metres.subarray(3, 6)]).toEqual(heatColour(0));
    expect([...metres.subarray(6, 9)]).toEqual([0, 0, 0]);
    const disparity = depthHeatMap({ data: new Float32Array([1, 5]), larger: 'nearer' });
    expect([...disparity.subarray(3, 6)]).toEqual(heatColour(1));
  });

  it('every pixel of the heat map is heatColour of its stretched value', () => {
    const data = Float32Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? i / 7 : Math.sqrt(i)));
    for (const larger of ['nearer', 'farther'] as const) {
      const map = depthHeatMap({ data, larger });
      const sorted = Array.from(data).sort((a, b) => a - b);
      const lo = sorted[Math.floor((sorted.length - 1) * 0.02)]!;
      const span = sorted[Math.ceil((sorted.length - 1) * 0.98)]! - lo;
      for (let i = 0; i < data.length; i++) {
        const t = (data[i]! - lo) / span;
        expect([...map.subarray(3 * i, 3 * i + 3)]).toEqual(heatColour(larger === 'nearer' ? t : 1 - t));
      }
    }
  });
});
