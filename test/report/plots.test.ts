/** Plot building blocks without a browser: the palette and the cropped PNG of `--plot`. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { regress } from '../../src/analysis/regression.js';
import { metricLabel, palette } from '../../src/report/plots.js';
import { writeRegressionPlot } from '../../src/report/regression-plot.js';
import { closestPair as closest } from '../helpers/colour.js';

describe('palette', () => {
  it('stays distinct past ten series', () => {
    for (const n of [2, 10, 11, 15, 20]) expect(closest(palette(n)), `n = ${n}`).toBeGreaterThan(10);
    for (const n of [21, 30, 40]) {
      expect(new Set(palette(n)).size).toBe(n);
      expect(closest(palette(n)), `n = ${n}`).toBeGreaterThan(n <= 30 ? 8 : 5);
    }
  });
});

describe('axis titles', () => {
  it('names metric ids in words and leaves other names alone', () => {
    expect(metricLabel('reasoning:whatsup-a:circular')).toBe("CircularEval, What'sUp Subset A");
    expect(metricLabel('reasoning:whatsup-b:circular:dap')).toBe("CircularEval, What'sUp Subset B (DAP)");
    expect(metricLabel('grounding:coco-two/object')).toBe('G-Score, COCO-spatial two objects');
    expect(metricLabel('grounding:avg')).toBe('Avg G-Score');
    expect(metricLabel('x1')).toBeNull();
  });
});

describe('gsr analyze regression --plot FILE.png', () => {
  it('is cut to the chart: at most its 16 px border is blank', async () => {
    const labels = ['a', 'b', 'c', 'd', 'e'];
    const table = {
      labels,
      y: { name: 'reasoning:whatsup-a:circular', values: [0, 0.1, 0.3, 0.6, 0.9] },
      x: [{ name: 'grounding:whatsup-a/subject', values: [0, 0.2, 0.35, 0.7, 0.95] }],
      skipped: [],
    };
    const png = join(mkdtempSync(join(tmpdir(), 'gsr-plot-')), 'fit.png');
    await writeRegressionPlot(regress(table), table, png);
    const { width, height } = await sharp(png).metadata();
    const { info } = await sharp(png).trim({ background: '#ffffff', threshold: 10 }).toBuffer({ resolveWithObject: true });
    expect(width! - info.width).toBeLessThanOrEqual(34);
    expect(height! - info.height).toBeLessThanOrEqual(34);
  });
});
