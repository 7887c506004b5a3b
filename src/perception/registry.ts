import { Registry } from '../util/registry.js';
import type { DepthEstimator, Detector, ModelLoadOptions, Segmenter } from './types.js';
import { depthAnythingFactory, zoeDepthFactory } from './models/depth.js';
import { createFastestDet } from './models/fastestdet.js';
import { createGroundingDino } from './models/grounding-dino.js';
import { createGsrSynthDepth, createGsrSynthDet } from './models/gsr-synth.js';
import { samFactory } from './models/sam.js';

export type DetectorFactory = (options: ModelLoadOptions) => Promise<Detector>;
export type SegmenterFactory = (options: ModelLoadOptions) => Promise<Segmenter>;
export type DepthFactory = (options: ModelLoadOptions) => Promise<DepthEstimator>;

/** Detectors by model id (e.g. `grounding-dino-tiny`, `fastestdet`). */
export const detectors = new Registry<DetectorFactory>('detector');
/** Segmenters by model id (e.g. `sam-vit-base`). */
export const segmenters = new Registry<SegmenterFactory>('segmenter');
/** Depth estimators by model id (e.g. `depth-anything-v2-small`). */
export const depthEstimators = new Registry<DepthFactory>('depth model');

// Built-in ports. The factories import no registry, so registering here has no import cycle and
// every importer of this module sees them.
detectors.register('fastestdet', createFastestDet);
detectors.register('grounding-dino-tiny', createGroundingDino);
detectors.register('gsr-synth-det', createGsrSynthDet);
segmenters.register('slimsam-77-uniform', samFactory('slimsam-77-uniform'));
segmenters.register('sam-vit-base', samFactory('sam-vit-base'));
depthEstimators.register('depth-anything-v2-small', depthAnythingFactory('depth-anything-v2-small'));
depthEstimators.register('depth-anything-v2-metric-indoor-small', depthAnythingFactory('depth-anything-v2-metric-indoor-small'));
depthEstimators.register('zoedepth-nyu-kitti', zoeDepthFactory('zoedepth-nyu-kitti'));
depthEstimators.register('gsr-synth-depth', createGsrSynthDepth);
