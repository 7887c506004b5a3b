import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { decodeDepthPng, encodeDepthPng, quantizeDepth, roundNonNegative } from '../../src/formats/depth-png.js';
import { seededRandom } from '../../src/util/random.js';

describe('depth PNG', () => {
  it('stores metric depth in millimetres as 16-bit grey and reads it back', async () => {
    const data = new Float32Array([0.5, 1.234, 65.535, 80, NaN, -1]);
    const { png, scale } = await encodeDepthPng({ data, width: 3, height: 2, unit: 'm' });
    expect(scale).toBe(0.001);
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 3, height: 2, depth: 'ushort', channels: 1 });
    const back = await decodeDepthPng(png, scale);
    expect(back.data[0]).toBeCloseTo(0.5, 4);
    expect(back.data[1]).toBeCloseTo(1.234, 4);
    expect(back.data[2]).toBeCloseTo(65.535, 4);
    expect(back.data[3]).toBeCloseTo(65.535, 4); // clipped at the 16-bit maximum
    expect(back.data[4]).toBeNaN(); // 0 = no value
    expect(back.data[5]).toBeNaN();
  });

  it('gives relative depth a per-image scale mapping its maximum to 65535', () => {
    const { values, scale } = quantizeDepth({ data: new Float32Array([0, 2.5, 10]), unit: 'relative-inverse' });
    expect(scale).toBeCloseTo(10 / 65535, 12);
    expect([...values]).toEqual([0, 16384, 65535]);
  });

  it('rounds as Math.round for every value >= 0, the halves and the double below 0.5 included', () => {
    const edges = [0, Number.MIN_VALUE, 0.25, 0.49999999999999994, 0.5, 0.5000000000000001, 1.4999999999999998, 1.5, 2.5, 65534.5, 65535.49999999999, 65535.5, 2 ** 52 - 0.5, 2 ** 52, 2 ** 53];
    const rand = seededRandom(7);
    const values = [...edges, ...Array.from({ length: 100_000 }, (_, i) => rand() * (i % 2 ? 70_000 : 1))];
    // Halves and the doubles beside them, where floor(q + 0.5) could go wrong.
    for (let n = 0; n < 2000; n++) values.push(n + 0.5, n + 0.5 - Number.EPSILON * Math.max(1, n), n + 0.5 + Number.EPSILON * Math.max(1, n));
    expect(values.filter((q) => roundNonNegative(q) !== Math.round(q))).toEqual([]);
    // The one double where floor(q + 0.5) alone is wrong: the check above can fail.
    expect(Math.floor(0.49999999999999994 + 0.5)).toBe(1);
  });
});
