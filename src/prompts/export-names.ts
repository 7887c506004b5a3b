/**
 * The choices of `gsr prompts export` (src/prompts/export.ts), in a module of their own so the CLI
 * can list them without loading the exporter (src/cli/program.ts, "Lazy loading").
 */

/**
 * `prompt`: VLMEvalKit asks the prompt's own text (no option columns: a custom VQA dataset, asked as
 * images then question). `mcq`: option columns A, B, ... and the answer letter, so VLMEvalKit builds
 * its multiple-choice prompt and can score the file itself (What'sUp MC prompts only).
 */
export const EXPORT_SHAPES = ['prompt', 'mcq'] as const;
export type ExportShape = (typeof EXPORT_SHAPES)[number];
/** `embed`: base64 in `image` (VLMEvalKit decodes it to files); `paths`: the images' absolute paths in `image_path`. */
export const EXPORT_IMAGES = ['embed', 'paths'] as const;
export type ExportImages = (typeof EXPORT_IMAGES)[number];
