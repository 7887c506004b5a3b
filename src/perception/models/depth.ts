/**
 * Depth ports. Depth Anything V2 (relative and metric): DPT pre-processing (518 keep-aspect, multiple
 * of 14, bicubic, ImageNet mean/std). ZoeDepth: its image processor's reflect padding, float
 * bilinear resize (keep aspect, multiple of 32) and mean/std 0.5. Both bring `predicted_depth` back
 * to the image as Transformers' `post_process_depth_estimation` does (bicubic, align_corners=False;
 * ZoeDepth first removes the padding), with bilinear as a named option.
 */
import { GsrError } from '../../util/errors.js';
import { resizeBicubicFloat, type DepthResize } from '../interpolate.js';
import { choiceParam, loadGraph, manifestFor } from '../load.js';
import type { ModelManifest } from '../manifest.js';
import { prepareDepthAnything, type PreparedImage } from '../preprocess.js';
import { resizeBilinearFloat } from '../resize.js';
import { Ahead } from '../ahead.js';
import { Float32Pool } from '../tensor-pool.js';
import { prepareZoeDepth, zoePadding } from '../zoedepth.js';
import { ort, releaseSession, runSession } from '../runtime.js';
import type { DepthEstimator, DepthMap, ModelLoadOptions, RgbImage } from '../types.js';
import { timeStage, timeStageAsync } from '../../util/stage-clock.js';

interface DepthOutputSemantics {
  unit: 'm' | 'relative-inverse';
  larger: 'farther' | 'nearer';
}

function outputSemantics(manifest: ModelManifest): DepthOutputSemantics {
  const sem = manifest.output as unknown as DepthOutputSemantics;
  if ((sem.unit !== 'm' && sem.unit !== 'relative-inverse') || (sem.larger !== 'farther' && sem.larger !== 'nearer')) {
    throw new GsrError(`models/${manifest.id}.json: output must give unit (m | relative-inverse) and larger (farther | nearer)`);
  }
  return sem;
}

/** Float map resize with the chosen kernel (PyTorch semantics, align_corners=False). */
export function resizeDepth(src: Float32Array, sw: number, sh: number, dw: number, dh: number, how: DepthResize): Float32Array {
  return how === 'bicubic' ? resizeBicubicFloat(src, sw, sh, dw, dh) : resizeBilinearFloat(src, sw, sh, dw, dh);
}

/** Rows and columns `[top, left]` cut from each side, then the window copied out. Pure. */
function crop(src: Float32Array, sw: number, sh: number, top: number, left: number): Float32Array {
  const w = sw - 2 * left;
  const h = sh - 2 * top;
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) out.set(src.subarray((y + top) * sw + left, (y + top) * sw + left + w), y * w);
  return out;
}

/**
 * Depth Anything's post-processing: the raw [dh, dw] map resized to the original [oh, ow]. Pure.
 */
export function postprocessDepthAnything(raw: Float32Array, rawSize: [number, number], original: [number, number], how: DepthResize = 'bicubic'): Float32Array {
  return resizeDepth(raw, rawSize[1], rawSize[0], original[1], original[0], how);
}

/**
 * ZoeDepth's post-processing (`ZoeDepthImageProcessor.post_process_depth_estimation` with the
 * source size): resize to the padded original, cut the padding, and (a no-op at the source size,
 * kept to mirror the reference's second call) nothing else. Pure.
 */
export function postprocessZoeDepth(raw: Float32Array, rawSize: [number, number], original: [number, number], how: DepthResize = 'bicubic'): Float32Array {
  const [oh, ow] = original;
  const [ph, pw] = zoePadding(oh, ow);
  const padded = resizeDepth(raw, rawSize[1], rawSize[0], ow + 2 * pw, oh + 2 * ph, how);
  return ph === 0 && pw === 0 ? padded : crop(padded, ow + 2 * pw, oh + 2 * ph, ph, pw);
}

export interface DepthPort {
  prepare: (image: RgbImage, pool: Float32Pool) => Promise<PreparedImage>;
  post: (raw: Float32Array, rawSize: [number, number], original: [number, number], how: DepthResize) => Float32Array;
}

/**
 * A depth port's factory: manifest, contract-checked session, `pixel_values` in and
 * `predicted_depth` out; `resizes` are the `depth_resize` choices, the default first.
 */
export function depthFactory(
  id: string,
  port: (manifest: ModelManifest) => DepthPort,
  resizes: readonly [DepthResize, ...DepthResize[]] = ['bicubic', 'bilinear'],
): (opts: ModelLoadOptions) => Promise<DepthEstimator> {
  return async (opts) => {
    const manifest = await manifestFor(id);
    const sem = outputSemantics(manifest);
    const resize = choiceParam(opts, 'depth_resize', resizes);
    const { prepare, post } = port(manifest);
    const graph = await loadGraph(manifest, 'model', opts);
    const inputs = new Float32Pool();
    const ahead = new Ahead(
      (image: RgbImage) => timeStageAsync(`pre:${id}`, () => prepare(image, inputs)),
      (p) => inputs.give(p.data),
    );
    return {
      id,
      device: graph.opened.device,
      provenance: { settings: { depth_resize: resize } },
      prefetch: (image: RgbImage) => ahead.start(image),
      async estimate(image: RgbImage): Promise<DepthMap> {
        const p = await ahead.take(image);
        const [h, w] = p.tensorSize;
        let out;
        try {
          out = await runSession(graph.opened, { pixel_values: new ort.Tensor('float32', p.data, [1, 3, h, w]) }, id);
        } finally {
          inputs.give(p.data);
        }
        const depth = out.predicted_depth!;
        const dims = depth.dims as number[];
        const rawSize: [number, number] = [dims[dims.length - 2]!, dims[dims.length - 1]!];
        const [oh, ow] = p.original;
        const data = timeStage(`post:${id}`, () => post(depth.data as Float32Array, rawSize, p.original, resize));
        return { data, width: ow, height: oh, unit: sem.unit, larger: sem.larger };
      },
      async dispose() {
        ahead.clear();
        await releaseSession(graph.opened);
      },
    };
  };
}

/** Creates a Depth Anything estimator for manifest `id`; its `output` gives unit and direction. */
export function depthAnythingFactory(id: string): (opts: ModelLoadOptions) => Promise<DepthEstimator> {
  return depthFactory(id, (manifest) => {
    const pre = manifest.preprocess as { size?: number; multiple_of?: number };
    return {
      prepare: (image, pool) => prepareDepthAnything(image, pre.size ?? 518, pre.multiple_of ?? 14, pool),
      post: postprocessDepthAnything,
    };
  });
}

/** Creates a ZoeDepth estimator for manifest `id` (metric metres, larger = farther). */
export function zoeDepthFactory(id: string): (opts: ModelLoadOptions) => Promise<DepthEstimator> {
  return depthFactory(id, (manifest) => {
    const pre = manifest.preprocess as { height?: number; width?: number; multiple_of?: number };
    return {
      prepare: (image, pool) => prepareZoeDepth(image, pre.height ?? 384, pre.width ?? 512, pre.multiple_of ?? 32, pool),
      post: postprocessZoeDepth,
    };
  });
}
