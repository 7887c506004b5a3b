/**
 * Depth Anything V2 ports (relative and metric): DPT pre-processing (518 keep-aspect, multiple of
 * 14, bicubic, ImageNet mean/std); `predicted_depth` resized back to the original image.
 */
import { GsrError } from '../../util/errors.js';
import { loadGraph, manifestFor } from '../load.js';
import { prepareDepthAnything } from '../preprocess.js';
import { resizeBilinearFloat } from '../resize.js';
import { Float32Pool } from '../tensor-pool.js';
import { ort, releaseSession, runSession } from '../runtime.js';
import type { DepthEstimator, DepthMap, ModelLoadOptions, RgbImage } from '../types.js';

interface DepthOutputSemantics {
  unit: 'm' | 'relative-inverse';
  larger: 'farther' | 'nearer';
}

/** Creates a depth estimator for manifest `id`; its `output` gives unit and direction. */
export function depthAnythingFactory(id: string): (opts: ModelLoadOptions) => Promise<DepthEstimator> {
  return async (opts) => {
    const manifest = await manifestFor(id);
    const sem = manifest.output as unknown as DepthOutputSemantics;
    if ((sem.unit !== 'm' && sem.unit !== 'relative-inverse') || (sem.larger !== 'farther' && sem.larger !== 'nearer')) {
      throw new GsrError(`models/${id}.json: output must give unit (m | relative-inverse) and larger (farther | nearer)`);
    }
    const pre = manifest.preprocess as { size?: number; multiple_of?: number };
    const graph = await loadGraph(manifest, 'model', opts);
    const inputs = new Float32Pool();
    return {
      id,
      device: graph.opened.device,
      async estimate(image: RgbImage): Promise<DepthMap> {
        const p = await prepareDepthAnything(image, pre.size ?? 518, pre.multiple_of ?? 14, inputs);
        const [h, w] = p.tensorSize;
        let out;
        try {
          out = await runSession(graph.opened, { pixel_values: new ort.Tensor('float32', p.data, [1, 3, h, w]) }, id);
        } finally {
          inputs.give(p.data);
        }
        const depth = out.predicted_depth!;
        const dims = depth.dims as number[];
        const [dh, dw] = [dims[dims.length - 2]!, dims[dims.length - 1]!];
        const [oh, ow] = p.original;
        const data = resizeBilinearFloat(depth.data as Float32Array, dw, dh, ow, oh);
        return { data, width: ow, height: oh, unit: sem.unit, larger: sem.larger };
      },
      async dispose() {
        await releaseSession(graph.opened);
      },
    };
  };
}
