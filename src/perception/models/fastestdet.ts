/**
 * FastestDet (COCO-80) port: stretch to 352x352 with OpenCV's INTER_AREA, BGR/255 CHW; decode the 22x22 grid
 * (objectness^0.6 * class^0.4, tanh offsets, sigmoid sizes), then NMS. Phrases map to COCO classes
 * through the synonym table; a phrase naming no COCO class finds nothing.
 */
import { GsrError } from '../../util/errors.js';
import { COCO_CLASSES, cocoClassesFor } from '../coco-classes.js';
import { loadGraph, manifestFor, numberParam } from '../load.js';
import { clipBox } from '../../geometry/boxes.js';
import { nonMaxSuppression } from '../nms.js';
import { interAreaBgrPlanes } from '../inter-area.js';
import { Float32Pool } from '../tensor-pool.js';
import { ort, releaseSession, runSession } from '../runtime.js';
import type { Detection, Detector, ModelLoadOptions, RgbImage } from '../types.js';

export const FASTESTDET_SIZE = 352;
const GRID = 22;
const CHANNELS = 85;

/** Decoded image -> the [1,3,352,352] BGR float32 input (from `pool` when given; give it back after the run). */
export function fastestDetInput(image: RgbImage, pool?: Float32Pool): Float32Array {
  const s = FASTESTDET_SIZE;
  const out = pool ? pool.take(3 * s * s) : new Float32Array(3 * s * s);
  return interAreaBgrPlanes(image.data, image.width, image.height, s, s, out);
}

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/**
 * Decodes the raw [1,85,22,22] output for the given classes: one candidate per cell (its best class
 * among `classes`) above `threshold`, in original-image pixels. Pure.
 */
export function decodeFastestDet(
  raw: Float32Array,
  classes: readonly number[],
  width: number,
  height: number,
  threshold: number,
): Detection[] {
  const cells = GRID * GRID;
  if (raw.length !== CHANNELS * cells) throw new GsrError(`fastestdet: output has ${raw.length} values, expected ${CHANNELS * cells}`);
  const dets: Detection[] = [];
  for (let h = 0; h < GRID; h++) {
    for (let w = 0; w < GRID; w++) {
      const cell = h * GRID + w;
      const obj = raw[cell]!;
      let best = -1;
      let bestScore = 0;
      for (const c of classes) {
        const cls = raw[(5 + c) * cells + cell]!;
        const score = Math.pow(Math.max(obj, 0), 0.6) * Math.pow(Math.max(cls, 0), 0.4);
        if (score > bestScore) {
          bestScore = score;
          best = c;
        }
      }
      if (best < 0 || bestScore <= threshold) continue;
      const cx = (w + Math.tanh(raw[cells + cell]!)) / GRID;
      const cy = (h + Math.tanh(raw[2 * cells + cell]!)) / GRID;
      const bw = sigmoid(raw[3 * cells + cell]!);
      const bh = sigmoid(raw[4 * cells + cell]!);
      const box = clipBox([(cx - bw / 2) * width, (cy - bh / 2) * height, (cx + bw / 2) * width, (cy + bh / 2) * height], width, height);
      dets.push({ box, score: bestScore, label: COCO_CLASSES[best]! });
    }
  }
  return dets;
}

/** Creates the FastestDet detector. Params: `score_threshold` (default 0.2), `nms_iou` (0.45). */
export async function createFastestDet(opts: ModelLoadOptions): Promise<Detector> {
  const manifest = await manifestFor('fastestdet');
  const post = manifest.postprocess as { score_threshold: number; nms_iou: number };
  const threshold = numberParam(opts, 'score_threshold', post.score_threshold);
  const nmsIou = numberParam(opts, 'nms_iou', post.nms_iou);
  const graph = await loadGraph(manifest, 'model', opts);
  const inputName = graph.opened.session.inputNames[0]!;
  const outputName = graph.opened.session.outputNames[0]!;
  // One forward pass per image, reused for every phrase asked about it.
  let last: { image: RgbImage; raw: Float32Array } | undefined;
  const inputs = new Float32Pool();

  async function forward(image: RgbImage): Promise<Float32Array> {
    if (last?.image === image) return last.raw;
    const s = FASTESTDET_SIZE;
    const data = fastestDetInput(image, inputs);
    let out;
    try {
      out = await runSession(graph.opened, { [inputName]: new ort.Tensor('float32', data, [1, 3, s, s]) }, 'fastestdet');
    } finally {
      inputs.give(data);
    }
    const raw = out[outputName]!.data as Float32Array;
    last = { image, raw };
    return raw;
  }

  return {
    id: 'fastestdet',
    device: graph.opened.device,
    canDetect: (phrase: string) => cocoClassesFor(phrase).length > 0,
    async detect(image: RgbImage, phrase: string): Promise<Detection[]> {
      const classes = cocoClassesFor(phrase);
      if (classes.length === 0) return [];
      const raw = await forward(image);
      return nonMaxSuppression(decodeFastestDet(raw, classes, image.width, image.height, threshold), nmsIou);
    },
    async dispose() {
      last = undefined;
      await releaseSession(graph.opened);
    },
  };
}
