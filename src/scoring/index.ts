/**
 * Scoring: MLLM box parsing, answer extraction, CircularEval / VanillaEval, G-Score, and the
 * results-folder writers. Everything except results-files is pure.
 */
/** Box formats MLLMs answer in (docs/scoring.md, "Box formats") and their readers. */
export { BOX_FORMATS, BOX_READERS, type BoxFormat, type ReadContext } from './box-formats.js';
/** parseBox: one answer -> one xyxy pixel box or a typed failure; `auto` rules and guessing. */
export { parseBox, guessBoxFormat, AUTO_RULES, type ParseBoxOptions, type ParseBoxResult, type BoxFailure, type BoxFormatOption } from './box-parse.js';
/** Declared box format per model family, from the model name. */
export { boxFormatForModel, resolveBoxFormat, describeBoxFormat, MODEL_BOX_FORMATS, type BoxFormatSource } from './model-formats.js';
/** Qwen2.5-VL smart_resize (the input size its pixel boxes refer to) and the `--image-size` parser. */
export { qwenSmartResize, parseInputSizeSpec, QWEN25_RESIZE_DEFAULTS, type SmartResizeOptions } from './qwen-resize.js';
/** Answer extraction for MC letters and TG captions, and the caption normal form. */
export { extractChoiceAnswer, extractTemplateAnswer, matchOptionText, normalizeCaption, type Extraction } from './answer.js';
/** CircularEval / VanillaEval scoring of reasoning prompts (Table 1). */
export {
  scoreReasoning,
  indexPrompts,
  PromptIndex,
  scorePrompt,
  extractForPrompt,
  type ScoreReasoningOptions,
  type ReasoningResult,
  type ReasoningItemResult,
  type ReasoningCell,
  type ReasoningMode,
  type PositionBias,
} from './reasoning.js';
/** What'sUp's own Controlled A / B metrics (individual, pair, set, confusion), as its evaluate_scores computes them. */
export {
  controlledPass,
  WhatsupTally,
  WHATSUP_CONTROLLED,
  CONFUSION_WORDS,
  type ControlledAnswer,
  type ControlledPass,
  type WhatsupSplitMetrics,
  type ConfusionWord,
  type ConfusionRow,
} from './whatsup-metrics.js';
/** G-Score scoring of grounding responses against annotations (Table 2). */
export {
  scoreGrounding,
  indexGroundTruth,
  GroundTruthIndex,
  type ScoreGroundingOptions,
  type GroundingResult,
  type GroundingItemResult,
  type GroundingColumn,
  type DetectorColumn,
  type InputSizeSpec,
} from './grounding.js';
/** Table 1 / Table 2 CSV text. */
export { reasoningCsv, groundingCsv } from './tables.js';
/** Results-folder writers (reasoning.* / grounding.*), atomic. */
export { writeReasoningResults, writeGroundingResults } from './results-files.js';
/** Unparsed answers: counts per task and the warning above 10%. */
export { UNPARSED_WARN_SHARE, countNoBox, groundingUnparsed, noLabelNote, reasoningUnparsed, unparsedWarning, type UnparsedCount } from './unparsed.js';
