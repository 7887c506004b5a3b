/**
 * SAM port, Hugging Face ONNX layout with a box prompt (docs/reference.md, "ONNX contracts"): the
 * image encoder runs once per image; per box, the decoder's best mask by predicted IoU is upsampled
 * to 1024, cropped to the resized image, resized to the original and thresholded at 0.
 */
import { GsrError } from '../../util/errors.js';
import { loadGraph, manifestFor } from '../load.js';
import { prepareSam } from '../preprocess.js';
import { Ahead } from '../ahead.js';
import { Float32Pool } from '../tensor-pool.js';
import { resizeBilinearFloat32 } from '../interpolate.js';
import { ort, releaseSession, runSession } from '../runtime.js';
import type { ModelLoadOptions, RgbImage, SegmentResult, Segmenter } from '../types.js';
import { timeStage, timeStageAsync } from '../../util/stage-clock.js';

const SIDE = 1024;

/**
 * Low-res mask logits [lh, lw] -> 0/1 mask at the original size: upsample to 1024x1024, crop the
 * resized [rh, rw] region, resize to [oh, ow] (bilinear, align_corners=False), threshold > 0. Pure.
 */
export function postprocessSamMask(
  lowRes: Float32Array,
  lowSize: [number, number],
  resized: [number, number],
  original: [number, number],
): Uint8Array {
  const [lh, lw] = lowSize;
  const up = resizeBilinearFloat32(lowRes, lw, lh, SIDE, SIDE);
  const [rh, rw] = resized;
  const [oh, ow] = original;
  const full = resizeBilinearFloat32(up, rw, rh, ow, oh, SIDE);
  const mask = new Uint8Array(ow * oh);
  for (let i = 0; i < mask.length; i++) mask[i] = full[i]! > 0 ? 1 : 0;
  return mask;
}

interface ImageState {
  embeddings: ort.Tensor;
  positional?: ort.Tensor;
  resized: [number, number];
  original: [number, number];
}

/** Creates a SAM segmenter for manifest `id` (files `encoder` and `decoder`). */
export function samFactory(id: string): (opts: ModelLoadOptions) => Promise<Segmenter> {
  return async (opts) => {
    const manifest = await manifestFor(id);
    const encoder = await loadGraph(manifest, 'encoder', opts);
    let decoder;
    try {
      decoder = await loadGraph(manifest, 'decoder', opts);
    } catch (err) {
      await releaseSession(encoder.opened);
      throw err;
    }
    const decoderInputs = new Set(decoder.opened.session.inputNames);
    let state: ImageState | undefined;
    const inputs = new Float32Pool();
    const ahead = new Ahead(
      (image: RgbImage) => timeStageAsync(`pre:${id}`, () => prepareSam(image, SIDE, inputs)),
      (p) => inputs.give(p.data),
    );

    return {
      id,
      device: encoder.opened.device,
      prefetch: (image: RgbImage) => ahead.start(image),
      async setImage(image: RgbImage) {
        state = undefined;
        const prepared = await ahead.take(image);
        const pixels = new ort.Tensor('float32', prepared.data, [1, 3, SIDE, SIDE]);
        let out;
        try {
          out = await runSession(encoder.opened, { pixel_values: pixels }, `${id} encoder`);
        } finally {
          inputs.give(prepared.data);
        }
        state = {
          embeddings: out.image_embeddings!,
          positional: out.image_positional_embeddings,
          resized: prepared.resized,
          original: prepared.original,
        };
      },
      async segment(box): Promise<SegmentResult> {
        if (!state) throw new GsrError(`${id}: segment() called before setImage()`);
        const [rh, rw] = state.resized;
        const [oh, ow] = state.original;
        const sx = rw / ow;
        const sy = rh / oh;
        const feeds: Record<string, ort.Tensor> = {
          image_embeddings: state.embeddings,
          input_boxes: new ort.Tensor('float32', Float32Array.from([box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy]), [1, 1, 4]),
        };
        if (decoderInputs.has('image_positional_embeddings')) {
          if (!state.positional) throw new GsrError(`${id}: decoder needs image_positional_embeddings, which the encoder did not output`);
          feeds.image_positional_embeddings = state.positional;
        }
        if (decoderInputs.has('input_points')) {
          // Exports with both prompt kinds: one padding point (label -10), which SAM ignores.
          feeds.input_points = new ort.Tensor('float32', new Float32Array(2), [1, 1, 1, 2]);
          feeds.input_labels = new ort.Tensor('int64', BigInt64Array.from([-10n]), [1, 1, 1]);
        }
        const out = await runSession(decoder.opened, feeds, `${id} decoder`);
        const scores = out.iou_scores!.data as Float32Array;
        const masks = out.pred_masks!;
        const dims = masks.dims as number[];
        const [lh, lw] = [dims[dims.length - 2]!, dims[dims.length - 1]!];
        let best = 0;
        for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
        const plane = lh * lw;
        const lowRes = (masks.data as Float32Array).subarray(best * plane, (best + 1) * plane);
        const { resized, original } = state;
        return { mask: timeStage(`post:${id}`, () => postprocessSamMask(lowRes, [lh, lw], resized, original)), score: scores[best]! };
      },
      async dispose() {
        ahead.clear();
        state = undefined;
        await releaseSession(encoder.opened);
        await releaseSession(decoder.opened);
      },
    };
  };
}
