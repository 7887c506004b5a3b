/**
 * The choices of `gsr responses import` (src/mllm/import.ts), in a module of their own so the CLI
 * can list them without loading the importers (src/cli/program.ts, "Lazy loading").
 */
export const IMPORT_SOURCES = ['jsonl', 'vlmevalkit', 'lmms-eval'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
/** How lmms-eval samples find their prompt: doc_id (the prompt's 0-based position) or the prompt's text. */
export const LMMS_MATCH = ['doc-id', 'input'] as const;
export type LmmsMatch = (typeof LMMS_MATCH)[number];
