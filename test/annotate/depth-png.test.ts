import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { decodeDepthPng, encodeDepthPng, quantizeDepth } from '../../src/formats/depth-png.js';

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
});
