/**
 * Test doubles of the perception plug-in interfaces, with exactly known outputs, for the
 * orchestration tests (end-to-end tests use the real ports). Boxes depend on the phrase and the
 * image size; depth is x / 10 metres; masks fill the prompted box; every call can be logged.
 */
import { appendFileSync } from 'node:fs';
import { depthEstimators, detectors, segmenters } from '../../../src/perception/registry.js';
import type { Detection, RgbImage } from '../../../src/perception/types.js';

export const DOUBLE_DETECTOR = 'test-double-detector';
export const DOUBLE_SEGMENTER = 'test-double-segmenter';
export const DOUBLE_DEPTH = 'test-double-depth';
export const DOUBLE_DETECTOR_THROWS = 'test-double-detector-throws';

/** Boxes per phrase in fractions of the image size, best first. */
const BOXES: Record<string, Array<{ f: [number, number, number, number]; score: number }>> = {
  left: [
    { f: [0.1, 0.2, 0.4, 0.8], score: 0.9 },
    { f: [0, 0, 0.2, 0.2], score: 0.4 },
  ],
  right: [{ f: [0.6, 0.2, 0.9, 0.8], score: 0.8 }],
  twin: [
    { f: [0.1, 0.2, 0.4, 0.8], score: 0.7 },
    { f: [0.6, 0.2, 0.9, 0.8], score: 0.6 },
  ],
  // Only the box of "left": a detector giving two nouns one box.
  'same-box': [{ f: [0.1, 0.2, 0.4, 0.8], score: 0.6 }],
  nothing: [],
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function registerDoubles(): void {
  if (detectors.has(DOUBLE_DETECTOR)) return;
  detectors.register(DOUBLE_DETECTOR, async ({ params }) => {
    const delay = Number(params?.delay_ms ?? 0);
    const log = params?.call_log as string | undefined;
    return {
      id: DOUBLE_DETECTOR,
      provenance: { sha256: 'ab'.repeat(32), device: 'cpu', thresholds: { box_threshold: 0.5 } },
      async detect(image: RgbImage, phrase: string): Promise<Detection[]> {
        if (log) appendFileSync(log, `${image.width}x${image.height} ${phrase}\n`);
        if (delay) await sleep(delay);
        // Boxes are returned unsorted on purpose: the annotator must pick the best itself.
        return [...(BOXES[phrase] ?? [])].reverse().map(({ f, score }) => ({
          box: [f[0] * image.width, f[1] * image.height, f[2] * image.width, f[3] * image.height],
          score,
          label: phrase,
        }));
      },
      async dispose() {},
    };
  });
  detectors.register(DOUBLE_DETECTOR_THROWS, async () => ({
    id: DOUBLE_DETECTOR_THROWS,
    async detect(image: RgbImage): Promise<Detection[]> {
      if (image.width === 13) throw new Error('model exploded on a 13-pixel-wide image');
      return [];
    },
    async dispose() {},
  }));
  segmenters.register(DOUBLE_SEGMENTER, async () => {
    let current: RgbImage | null = null;
    return {
      id: DOUBLE_SEGMENTER,
      async setImage(image: RgbImage) {
        current = image;
      },
      async segment(box: [number, number, number, number]) {
        const { width, height } = current!;
        const mask = new Uint8Array(width * height);
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) if (x + 0.5 > box[0] && x + 0.5 < box[2] && y + 0.5 > box[1] && y + 0.5 < box[3]) mask[y * width + x] = 1;
        }
        return { mask, score: 0.77 };
      },
      async dispose() {},
    };
  });
  depthEstimators.register(DOUBLE_DEPTH, async () => ({
    id: DOUBLE_DEPTH,
    async estimate(image: RgbImage) {
      const data = new Float32Array(image.width * image.height);
      for (let i = 0; i < data.length; i++) data[i] = (i % image.width) / 10;
      return { data, width: image.width, height: image.height, unit: 'm' as const, larger: 'farther' as const };
    },
    async dispose() {},
  }));
}
