/**
 * gsr-bench's own models, trained on its synthetic scenes by the committed scripts in training/
 * (training/README.md): `gsr-synth-det`, an anchor-free detector for the renderer's 15 kinds, and
 * `gsr-synth-depth`, relative inverse depth. Both take the image stretched to 320x240 with PIL's
 * bilinear resize, /255, ImageNet mean/std, CHW (as training/gsr_synth.py). The detector keeps the
 * peaks of the phrase's class heat map and reads each peak's box from the edge distances there;
 * the depth map is brought back to the image with a bilinear resize (align_corners false).
 */
import { GsrError } from '../../util/errors.js';
import { clipBox } from '../../geometry/boxes.js';
import { loadGraph, manifestFor, numberParam } from '../load.js';
import { resizeLikePil, toChw, IMAGENET_MEAN, IMAGENET_STD, type PreparedImage, type Resized } from '../preprocess.js';
import { Float32Pool } from '../tensor-pool.js';
import { ort, releaseSession, runSession } from '../runtime.js';
import type { Detection, Detector, ModelLoadOptions, RgbImage } from '../types.js';
import { depthFactory, postprocessDepthAnything } from './depth.js';

export const GSR_SYNTH_WIDTH = 320;
export const GSR_SYNTH_HEIGHT = 240;
/** Cells of the detector's output grid are this many input pixels wide. */
export const GSR_SYNTH_STRIDE = 4;

// Both models take the same resize of an image: made once per decoded image, while it lives.
const resizes = new WeakMap<RgbImage, Promise<Resized>>();

/** The models' input: the image stretched to 320x240 (PIL bilinear), ImageNet-normalised CHW. */
export async function prepareGsrSynth(image: RgbImage, pool?: Float32Pool): Promise<PreparedImage> {
  const size: [number, number] = [GSR_SYNTH_HEIGHT, GSR_SYNTH_WIDTH];
  let resized = resizes.get(image);
  if (!resized) resizes.set(image, (resized = resizeLikePil(image, () => size, 'bilinear')));
  const r = await resized;
  return { data: toChw(r.pixels, GSR_SYNTH_WIDTH, GSR_SYNTH_HEIGHT, { mean: IMAGENET_MEAN, std: IMAGENET_STD, pool }), tensorSize: size, resized: size, original: r.original };
}

/** A caption noun as a class index, or -1: lower case, articles dropped, a plural `s` tried off. */
export function gsrSynthClass(phrase: string, classes: readonly string[]): number {
  const p = phrase.toLowerCase().trim().replace(/^(a|an|the)\s+/, '');
  const i = classes.indexOf(p);
  return i >= 0 || !p.endsWith('s') ? i : classes.indexOf(p.slice(0, -1));
}

/**
 * Decodes class `c` of the raw outputs (heat [C, gh, gw], box [4, gh, gw]): cells at least as high
 * as their 8 neighbours and above `threshold`, best first (ties by cell order), at most `topK`;
 * each box is the cell centre minus/plus its edge distances, scaled to the original image in
 * float32 as training/gsr_synth.py's decode_class does, and clipped. Pure.
 */
export function decodeGsrSynthDet(
  heat: Float32Array,
  box: Float32Array,
  c: number,
  grid: [number, number],
  original: [number, number],
  threshold: number,
  topK: number,
  label: string,
): Detection[] {
  const [gh, gw] = grid;
  const cells = gh * gw;
  if (box.length !== 4 * cells || heat.length % cells !== 0 || c < 0 || (c + 1) * cells > heat.length) {
    throw new GsrError(`gsr-synth-det: outputs do not fit a ${gw}x${gh} grid`);
  }
  const plane = c * cells;
  const peaks: number[] = [];
  for (let y = 0; y < gh; y++) {
    for (let x = 0; x < gw; x++) {
      const v = heat[plane + y * gw + x]!;
      if (!(v > threshold)) continue;
      let peak = true;
      for (let dy = -1; dy <= 1 && peak; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy < 0 || yy >= gh || xx < 0 || xx >= gw) continue;
          if (heat[plane + yy * gw + xx]! > v) {
            peak = false;
            break;
          }
        }
      }
      if (peak) peaks.push(y * gw + x);
    }
  }
  peaks.sort((a, b) => heat[plane + b]! - heat[plane + a]! || a - b);
  const [height, width] = original;
  const sx = Math.fround(width / GSR_SYNTH_WIDTH);
  const sy = Math.fround(height / GSR_SYNTH_HEIGHT);
  const f = Math.fround;
  return peaks.slice(0, topK).map((cell) => {
    const cx = f(((cell % gw) + 0.5) * GSR_SYNTH_STRIDE);
    const cy = f((Math.floor(cell / gw) + 0.5) * GSR_SYNTH_STRIDE);
    const [l, t, r, b] = [0, 1, 2, 3].map((k) => box[k * cells + cell]!);
    const xyxy = [f(f(cx - l) * sx), f(f(cy - t) * sy), f(f(cx + r) * sx), f(f(cy + b) * sy)];
    return { box: clipBox(xyxy, width, height), score: heat[plane + cell]!, label };
  });
}

/** Creates the detector. Params: `score_threshold` (default 0.1), `max_boxes` (10). */
export async function createGsrSynthDet(opts: ModelLoadOptions): Promise<Detector> {
  const id = 'gsr-synth-det';
  const manifest = await manifestFor(id);
  const post = manifest.postprocess as { score_threshold: number; max_boxes: number; classes: string[] };
  const threshold = numberParam(opts, 'score_threshold', post.score_threshold);
  const topK = numberParam(opts, 'max_boxes', post.max_boxes);
  const graph = await loadGraph(manifest, 'model', opts);
  const inputs = new Float32Pool();
  // One forward pass per image, reused for every phrase asked about it.
  let last: { image: RgbImage; heat: Float32Array; box: Float32Array; grid: [number, number] } | undefined;

  async function forward(image: RgbImage) {
    if (last?.image === image) return last;
    const p = await prepareGsrSynth(image, inputs);
    let out;
    try {
      out = await runSession(graph.opened, { pixel_values: new ort.Tensor('float32', p.data, [1, 3, GSR_SYNTH_HEIGHT, GSR_SYNTH_WIDTH]) }, id);
    } finally {
      inputs.give(p.data);
    }
    const dims = out.heatmap!.dims as number[];
    last = { image, heat: out.heatmap!.data as Float32Array, box: out.box!.data as Float32Array, grid: [dims[2]!, dims[3]!] };
    return last;
  }

  return {
    id,
    device: graph.opened.device,
    provenance: { thresholds: { score_threshold: threshold } },
    canDetect: (phrase: string) => gsrSynthClass(phrase, post.classes) >= 0,
    async detect(image: RgbImage, phrase: string): Promise<Detection[]> {
      const c = gsrSynthClass(phrase, post.classes);
      if (c < 0) return [];
      const r = await forward(image);
      return decodeGsrSynthDet(r.heat, r.box, c, r.grid, [image.height, image.width], threshold, topK, post.classes[c]!);
    },
    async dispose() {
      last = undefined;
      await releaseSession(graph.opened);
    },
  };
}

/** Creates the depth model (relative inverse depth; bilinear back to the image by default). */
export const createGsrSynthDepth = depthFactory(
  'gsr-synth-depth',
  () => ({ prepare: (image, pool) => prepareGsrSynth(image, pool), post: postprocessDepthAnything }),
  ['bilinear', 'bicubic'],
);
