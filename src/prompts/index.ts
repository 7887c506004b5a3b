/** Prompt builders: TG, MC, grounding and depth-augmented prompts from a manifest (docs/mllm.md). The prompt record format is `gsr-bench/formats`. */
/** Pure builder: the prompts of one manifest item for one task. */
export { buildItemPrompts, type BuildContext } from './build.js';
/** Streams a manifest into a prompt JSONL file (atomic), skipping and reporting bad items. */
export { buildPromptFile, loadTemplates, type BuildPromptsOptions, type BuildPromptsSummary } from './files.js';
/** Default templates, override-file resolution and placeholder filling. */
export { DEFAULT_TEMPLATES, resolveTemplates, fillTemplate, type Templates, type TemplateFile } from './templates.js';
/** CircularEval rotations. */
export { rotations } from './rotations.js';
/** Stable prompt keys: sha256 of canonical JSON. */
export { promptKey, canonicalJson, hashCanonical, PROMPT_KEY_VERSION, type PromptKeyInput } from './key.js';
/** DAP depth hints from a COCO annotation file (refuses files without unit and direction). */
export { indexDepth, depthHint, type DepthIndex, type DepthStat, type DepthDirection } from './depth-hint.js';
/** A prompt file as a VLMEvalKit custom-dataset TSV (docs/interop.md). */
export { exportVlmevalkit, exportQuestion, EXPORT_SHAPES, EXPORT_IMAGES, type ExportOptions, type ExportSummary, type ExportShape, type ExportImages } from './export.js';
