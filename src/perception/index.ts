/** Perception: ONNX model ports (detection, segmentation, depth), their manifests and runtime. */

/** Plug-in interfaces: detectors, segmenters, depth estimators, decoded images. */
export type * from './types.js';
/** Registries of the built-in ports by model id (`detectors.get('fastestdet')(opts)`). */
export { detectors, segmenters, depthEstimators } from './registry.js';
export type { DetectorFactory, SegmenterFactory, DepthFactory } from './registry.js';
/** Decodes an image file to 8-bit sRGB with EXIF orientation applied; clear errors on bad files. */
export { loadImage } from './image.js';
/** onnxruntime-node sessions: device choice with CPU fallback, reuse and release. */
export { openSession, releaseSession, cudaProviderInstalled } from './runtime.js';
/** Model manifests in models/: schema, listing, file paths. */
export { listManifests, getManifest, readManifestFile, modelFilePath, modelFolder, MANIFEST_DIR } from './manifest.js';
export type { ModelManifest, ModelFile, GraphContract, TensorSpec } from './manifest.js';
/** Checks a session against a manifest contract. */
export { contractProblems } from './contract.js';
/** COCO classes and the caption-noun synonym table used by the COCO detector. */
export { COCO_CLASSES, COCO_SYNONYMS, cocoClassesFor, normalisePhrase } from './coco-classes.js';
/** Box IoU and non-maximum suppression. */
export { iouXyxy, nonMaxSuppression } from './nms.js';
/** Pure resampling: OpenCV INTER_AREA for RGB, PyTorch-style bilinear for float maps. */
export { resizeAreaRgb, resizeBilinearFloat } from './resize.js';
/** FastestDet port pieces (pre-processing and decoding), for tests and benchmarks. */
export { createFastestDet, decodeFastestDet, fastestDetInput } from './models/fastestdet.js';
