/**
 * Finds an image's target in a rendered picture by its colour alone (no geometry from the item) and
 * says which answer the decision boundary gives where it was found: the labels' check
 * (test/benchmarks/svat/labels.test.ts, bench/svat.bench.ts). It needs targets drawn from the
 * checking palette (the `colours: palette` option, episode.ts CHECK_DRAWING).
 */
import { matchesHue, type Raster } from './raster.js';
import { PALETTE, lineAnswer, type Answer, type SvatItem, type SvatObject } from './spec.js';

/** The answer at the median, along the line's axis, of the pixels of the target's colour (null: none found). */
export function detectedAnswer(r: Raster, line: SvatItem['line'], target: Pick<SvatObject, 'colour'>): Answer | null {
  const hue = PALETTE.find((p) => p.name === target.colour)?.hue;
  if (hue === undefined) throw new RangeError('the label check needs a target drawn from the palette (colours: palette)');
  const coords: number[] = [];
  const n = line.axis === 'x' ? r.width : r.height;
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      const j = (y * r.width + x) * 3;
      if (matchesHue(r.rgb[j], r.rgb[j + 1], r.rgb[j + 2], hue)) coords.push(((line.axis === 'x' ? x : y) + 0.5) / n);
    }
  }
  if (coords.length === 0) return null;
  coords.sort((a, b) => a - b);
  const median = coords[coords.length >> 1];
  return lineAnswer(line, { x: median, y: median });
}
