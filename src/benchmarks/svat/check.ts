/**
 * Finds an item's target in a rendered picture by its colour alone (no geometry from the item) and
 * says which answer the hidden line gives where it was found: the labels' check
 * (test/benchmarks/svat/labels.test.ts, bench/svat.bench.ts).
 */
import { matchesHue, type Raster } from './raster.js';
import { PALETTE, lineAnswer, type Answer, type SvatItem } from './spec.js';

/** The answer at the median, along the line's axis, of the pixels of the target's colour (null: none found). */
export function detectedAnswer(r: Raster, item: Pick<SvatItem, 'target' | 'line'>): Answer | null {
  const hue = PALETTE.find((p) => p.name === item.target.colour)!.hue;
  const coords: number[] = [];
  const n = item.line.axis === 'x' ? r.width : r.height;
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      const j = (y * r.width + x) * 3;
      if (matchesHue(r.rgb[j], r.rgb[j + 1], r.rgb[j + 2], hue)) coords.push(((item.line.axis === 'x' ? x : y) + 0.5) / n);
    }
  }
  if (coords.length === 0) return null;
  coords.sort((a, b) => a - b);
  const median = coords[coords.length >> 1];
  return lineAnswer(item.line, { x: median, y: median });
}
