import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level, so equal values always hash alike.
 * `undefined` members are dropped, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** Hex sha256 of the canonical JSON of a value. */
export function hashCanonical(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** Version of the key recipe; bump when what goes into a key changes. */
export const PROMPT_KEY_VERSION = 1;

/** What a prompt key covers (see docs/mllm.md): the request text, image content and the prompt's place in its item. */
export interface PromptKeyInput {
  item: string;
  task: string;
  base_task?: string;
  text: string;
  options: string[];
  permutation: number[];
  rotation: number;
  role?: string;
  phrase?: string;
  /** sha256 of the image file's bytes (not its path, so moving a dataset keeps keys). */
  image_sha256: string;
}

/** The stable key of a prompt. */
export function promptKey(input: PromptKeyInput): string {
  return hashCanonical({ v: PROMPT_KEY_VERSION, ...input });
}
