/**
 * File formats every stage shares, schema first: a zod schema per record (types are `z.infer` of it),
 * one reader and one atomic writer per file. No stage logic and no native module here.
 */
/** manifest.jsonl: benchmark items, relations, split names and order. */
export {
  ManifestItemSchema,
  RELATIONS,
  SPLITS,
  MANIFEST_FILE,
  readManifest,
  readManifestAll,
  writeManifest,
  orderSplits,
  type ManifestItem,
  type Relation,
} from './manifest.js';
/** Image paths of manifest items: relative, forward slashes, never leaving their root. */
export { resolveItemImage, realItemImage, itemBase, normaliseRelativePath, isInside } from './image-paths.js';
/** COCO annotation files with gsr-bench's fields (role, phrase, score, mask_score, depth), compressed RLE masks. */
export {
  CocoFileSchema,
  CocoImageSchema,
  CocoAnnotationSchema,
  CocoCategorySchema,
  CocoRleSchema,
  ObjectDepthSchema,
  AnnotationInfoSchema,
  DEPTH_UNITS,
  ANNOTATIONS_FILE,
  readCocoFile,
  writeCocoFile,
  type CocoFile,
  type CocoImage,
  type CocoAnnotation,
  type CocoCategory,
  type CocoRle,
  type ObjectDepth,
  type AnnotationInfo,
  type DepthUnit,
  type CocoParts,
} from './coco.js';
/** 16-bit depth PNGs (metric in millimetres, relative with a per-image scale); sharp loads on first use. */
export { encodeDepthPng, decodeDepthPng, encodeDepthValuesPng, quantizeDepth, METRIC_DEPTH_SCALE, type DepthValues } from './depth-png.js';
/** prompts.jsonl: What'sUp prompt records, benchmark chat prompts, option letters. */
export {
  PromptRecordSchema,
  PROMPT_TASKS,
  parsePromptRecord,
  parseAnyPrompt,
  readPromptFile,
  writePromptFile,
  isBenchPrompt,
  promptParts,
  optionLetter,
  optionPosition,
  type PromptRecord,
  type PromptTask,
  type AnyPrompt,
} from './prompts.js';
/** Benchmark plug-ins' items and ordered multi-image / text-only chat prompts. */
export {
  BenchPromptSchema,
  PromptPartSchema,
  ResponseFormatSchema,
  parseBenchPrompt,
  readBenchPrompts,
  writeBenchPrompts,
  imageCount,
  mergeTextParts,
  type BenchPrompt,
  type PromptPart,
  type ResponseFormat,
} from './chat-prompt.js';
export { BenchItemSchema, readBenchItems, writeBenchItems, type BenchItem } from './bench-item.js';
/** JSON read from a model's free text (whole answer, fenced block, or first balanced span). */
export { extractJson, type JsonExtraction } from './json-text.js';
/** responses.jsonl: model answers, and other harnesses' prediction lines. */
export { ResponseRecordSchema, ImportedResponseSchema, readResponseFile, writeResponseFile, type ResponseRecord } from './responses.js';
/** Results folders: reasoning.* and grounding.* summaries and per-item records. */
export {
  ReasoningSummarySchema,
  WhatsupSummarySchema,
  GroundingSummarySchema,
  ReasoningItemRecordSchema,
  GroundingItemRecordSchema,
  resultsPaths,
  readResultsSummary,
  readResultItems,
  writeResultsFiles,
  type ResultsKind,
  type ReasoningSummary,
  type ReasoningSplitSummary,
  type WhatsupSummary,
  type GroundingSummary,
  type GroundingColumnSummary,
  type ReasoningItemRecord,
  type GroundingItemRecord,
} from './results.js';
/** models.lock.json: what `gsr models pull` fetched (commit, size, sha256) per model file. */
export {
  ModelsLockSchema,
  ModelsLockEntrySchema,
  MODELS_LOCK_FILE,
  modelsLockPath,
  readModelsLock,
  writeModelsLock,
  lockEntry,
  withLockEntry,
  type ModelsLock,
  type ModelsLockEntry,
} from './models-lock.js';
/** Pipeline files (YAML): the schema, and the reader with `${VAR}` references and file:line errors. */
export { PipelineSchema, modelFolder, type PipelineConfig, type ModelConfig, type PipelineTask } from './pipeline.js';
export { loadPipeline, parsePipeline, type LoadedPipeline } from './pipeline-file.js';
/** Lines skipped by the lenient JSONL readers (file, line, reason). */
export type { SkippedRecord } from '../util/jsonl.js';
/** VirtualHome scene graphs (nodes, edges, relation/property/state names). */
export {
  VhGraphSchema,
  VhNodeSchema,
  VhEdgeSchema,
  VhBoundingBoxSchema,
  VhTransformSchema,
  VH_RELATIONS,
  VH_PROPERTIES,
  VH_STATES,
  parseVhGraph,
  readVhGraph,
  writeVhGraph,
  type VhGraph,
  type VhNode,
  type VhEdge,
  type VhRelation,
  type VhProperty,
  type VhState,
} from './vh-graph.js';
/** ET-Plan-Bench's released task files as imported (text only: criteria, plans, scene ids). */
export {
  EtPlanReleasedTaskSchema,
  ReleasedCriterionSchema,
  RELEASED_TASKS_FILE,
  readEtPlanReleasedTasks,
  writeEtPlanReleasedTasks,
  type EtPlanReleasedTask,
  type ReleasedCriterion,
} from './et-plan-released.js';
