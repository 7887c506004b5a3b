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
export { listManifests, getManifest, readManifestFile, modelFilePath, modelDownloadPath, modelSearchDirs, modelFolder, MANIFEST_DIR } from './manifest.js';
export type { ModelManifest, ModelFile, GraphContract, TensorSpec } from './manifest.js';
/** Checks a session against a manifest contract. */
export { contractProblems } from './contract.js';
/** COCO classes and the caption-noun synonym table used by the COCO detector. */
export { COCO_CLASSES, COCO_SYNONYMS, cocoClassesFor, normalisePhrase } from './coco-classes.js';
/** Non-maximum suppression (box IoU is geometry's boxIou). */
export { nonMaxSuppression } from './nms.js';
/** Pure resampling: OpenCV INTER_AREA for RGB, PyTorch-style bilinear for float maps. */
export { resizeBilinearFloat, resizePilRgb } from './resize.js';
export { resizeAreaRgb } from './inter-area.js';
/** FastestDet port pieces (pre-processing and decoding), for tests and benchmarks. */
export { createFastestDet, decodeFastestDet, fastestDetInput } from './models/fastestdet.js';
/** GroundingDINO port pieces: tokenisation of one phrase and pure decoding. */
export { createGroundingDino, decodeGroundingDino, tokenisePhrase, groundingPrompt, loadTokenizer } from './models/grounding-dino.js';
/** SAM port factory and its pure mask post-processing (upsample, crop, resize, threshold). */
export { samFactory, postprocessSamMask } from './models/sam.js';
/** Depth Anything V2 port factory (relative or metric, from the manifest's output semantics). */
export { depthAnythingFactory } from './models/depth.js';
/** Upstream size rules and file/pixels -> float32 tensor pre-processing per model. */
export {
  groundingDinoSize,
  samSize,
  dptSize,
  roundHalfEven,
  resizeLikePil,
  toChw,
  prepareGroundingDino,
  prepareSam,
  prepareDepthAnything,
  IMAGENET_MEAN,
  IMAGENET_STD,
} from './preprocess.js';
export type { PreparedImage, PreprocessInput, Size } from './preprocess.js';
/** Image header size (EXIF-aware). */
export { imageSize } from './image.js';
export type { ImageSource } from './image.js';
/** Local model store: status, verification, sha256; and downloading with resume. */
export { listModels, modelStatus, verifyInstalled, verifyPath } from './store.js';
export type { ModelStatus, FileStatus, FileCheck, PathCheck } from './store.js';
export { pullModel } from './pull.js';
export type { PulledFile, PullOptions } from './pull.js';
