/**
 * gsr-bench's documented API (docs/api.md): the entry points of every stage. Each stage's complete
 * API is its subpath (`gsr-bench/geometry`, `gsr-bench/scoring`, ...). This root loads every stage,
 * native modules included; the pure core's subpaths (geometry, formats, prompts, scoring, analysis)
 * load none.
 */
export { VERSION } from './util/version.js';
export { GsrError } from './util/errors.js';
export { Registry } from './util/registry.js';

export { boxIou, convertBox, clipBox, rleEncode, rleDecode, rleIou, rleArea, type Box, type BoxLayout, type Rle } from './geometry/index.js';

export {
  readManifest,
  readManifestAll,
  writeManifest,
  resolveItemImage,
  readCocoFile,
  writeCocoFile,
  readPromptFile,
  writePromptFile,
  readResponseFile,
  writeResponseFile,
  loadPipeline,
  type ManifestItem,
  type Relation,
  type CocoFile,
  type CocoImage,
  type CocoAnnotation,
  type PromptRecord,
  type ResponseRecord,
  type PipelineConfig,
} from './formats/index.js';

export { importWhatsup, importWhatsupToManifest, synthesizeDataset, writeWhatsupLayout, parseCaption } from './datasets/index.js';
export { detectors, segmenters, depthEstimators, loadImage, listModels, pullModel } from './perception/index.js';
export { annotate, targetsFromManifest, targetsFromImages, annotationQuality } from './annotate/index.js';
export { buildPromptFile, buildItemPrompts } from './prompts/index.js';
export { answerers, RunStore, runPrompts, exportResponses, importResponses, type Answerer } from './mllm/index.js';
export { benchmarks, registerBenchmark } from './benchmarks/index.js';
export { parseBox, scoreReasoning, scoreGrounding, indexPrompts, indexGroundTruth, writeReasoningResults, writeGroundingResults } from './scoring/index.js';
export {
  loadAllResults,
  regress,
  fitTable,
  bootstrapMean,
  mcnemarExact,
  pearson,
  spearman,
  buildReasoningTable,
  buildGroundingTable,
  buildDapTable,
  regressionPower,
} from './analysis/index.js';
export { renderHtmlReport, reportWriters } from './report/index.js';
export { runPipeline, runStages, formatSummaryTable } from './pipeline/index.js';
