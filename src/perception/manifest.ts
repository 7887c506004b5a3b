/**
 * Model manifests (models/<id>.json): files with URL/size/sha256, licence, the ONNX I/O contract,
 * pre- and post-processing parameters and output semantics. Also resolves a model's files on disk.
 */
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { MODELS_LOCK_FILE } from '../formats/models-lock.js';
import { GsrError } from '../util/errors.js';
import { readJsonFile } from '../util/jsonl.js';
import type { Precision } from './types.js';

const dim = z.union([z.number().int().nonnegative(), z.string().min(1)]);

export const tensorSpecSchema = z.object({
  name: z.string().min(1),
  dtype: z.enum(['float32', 'float16', 'int64', 'int32', 'bool', 'uint8']),
  /** Numbers are fixed sizes; strings name symbolic (dynamic) axes. */
  shape: z.array(dim),
  /** Inputs only: the port feeds it when the model declares it, and skips it otherwise. */
  optional: z.boolean().optional(),
});

export const graphContractSchema = z.object({
  inputs: z.array(tensorSpecSchema).min(1),
  outputs: z.array(tensorSpecSchema).min(1),
});

export const modelFileSchema = z.object({
  /** What the file is for: `model`, `encoder`, `decoder`, `tokenizer`, ... */
  role: z.string().min(1),
  /** File name inside <modelsDir>/<id>/. */
  path: z.string().min(1),
  url: z.string().url().nullable(),
  bytes: z.number().int().positive().nullable(),
  /** Null when not known for certain: `models pull` then checks against the hub's hash, or warns. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  /** What a user must know about this file (e.g. an unverified URL). */
  note: z.string().optional(),
});

export const modelManifestSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  task: z.enum(['detector', 'segmenter', 'depth']),
  description: z.string(),
  licence: z.string(),
  source: z.string(),
  /**
   * The commit of the source repository the URLs fetch (`.../resolve/<revision>/...` on Hugging Face);
   * null or absent when unknown: `models pull` then says so and the lock records the commit served.
   */
  revision: z
    .string()
    .regex(/^[0-9a-f]{40}$/, 'a revision is a full 40-digit commit id')
    .nullable()
    .optional(),
  files: z.array(modelFileSchema).min(1),
  /** I/O contract per ONNX file role. */
  contract: z.record(z.string(), graphContractSchema),
  preprocess: z.record(z.string(), z.unknown()),
  postprocess: z.record(z.string(), z.unknown()),
  output: z.record(z.string(), z.unknown()),
  notes: z.array(z.string()).optional(),
});

export type TensorSpec = z.infer<typeof tensorSpecSchema>;
export type GraphContract = z.infer<typeof graphContractSchema>;
export type ModelFile = z.infer<typeof modelFileSchema>;
export type ModelManifest = z.infer<typeof modelManifestSchema>;

/** The folder holding the shipped manifests (models/ at the package root, from src/ or dist/). */
export const MANIFEST_DIR = fileURLToPath(new URL('../../models/', import.meta.url));

/** Validates a parsed manifest, naming the file in errors. */
export function parseManifest(value: unknown, label: string): ModelManifest {
  const r = modelManifestSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new GsrError(`${label}: invalid model manifest at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return r.data;
}

/** Reads one manifest file. */
export async function readManifestFile(path: string): Promise<ModelManifest> {
  return parseManifest(await readJsonFile(path), path);
}

/** All shipped manifests, sorted by id. */
export async function listManifests(dir = MANIFEST_DIR): Promise<ModelManifest[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== MODELS_LOCK_FILE).sort();
  const out = await Promise.all(files.map((f) => readManifestFile(join(dir, f))));
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/** The manifest of one model id. */
export async function getManifest(id: string, dir = MANIFEST_DIR): Promise<ModelManifest> {
  const all = await listManifests(dir);
  const m = all.find((x) => x.id === id);
  if (!m) throw new GsrError(`unknown model "${id}" (known: ${all.map((x) => x.id).join(', ')})`);
  return m;
}

/** Folder of a model's files: <modelsDir>/<id>/. */
export function modelFolder(modelsDir: string, id: string): string {
  return resolve(modelsDir, id);
}

/**
 * Folders searched for installed models, in order: `modelsDir` (--models-dir, default ./models, where
 * `gsr models pull` puts them), then each folder of GSR_MODELS_PATH.
 */
export function modelSearchDirs(modelsDir: string): string[] {
  const extra = (process.env.GSR_MODELS_PATH ?? '').split(delimiter).filter((d) => d !== '');
  return [...new Set([modelsDir, ...extra].map((d) => resolve(d)))];
}

/** Where a model file is downloaded to: always under `modelsDir`. */
export function modelDownloadPath(manifest: ModelManifest, role: string, modelsDir: string): string {
  const file = manifest.files.find((f) => f.role === role);
  if (!file) throw new GsrError(`model "${manifest.id}" has no "${role}" file in its manifest`);
  return join(modelFolder(modelsDir, manifest.id), file.path);
}

/**
 * The file of `precision` for a resolved model file: int8 is `<stem>.int8.onnx` beside an `.onnx`
 * file (made by onnxruntime's dynamic quantization, `npm run bench:models`); other files (a
 * tokenizer) and fp32 are unchanged. Pure.
 */
export function precisionPath(path: string, precision: Precision | undefined): string {
  return precision === 'int8' && path.endsWith('.onnx') ? `${path.slice(0, -'.onnx'.length)}.int8.onnx` : path;
}

/**
 * Path of one of a model's files: an explicit override (by role) wins, else the first of
 * {@link modelSearchDirs} that holds <id>/<path>, else the download location under `modelsDir`.
 */
export function modelFilePath(
  manifest: ModelManifest,
  role: string,
  modelsDir: string,
  overrides?: Record<string, string>,
): string {
  const explicit = overrides?.[role];
  if (explicit) return isAbsolute(explicit) ? explicit : resolve(explicit);
  const primary = modelDownloadPath(manifest, role, modelsDir);
  const file = manifest.files.find((f) => f.role === role)!;
  for (const dir of modelSearchDirs(modelsDir)) {
    const candidate = join(dir, manifest.id, file.path);
    if (existsSync(candidate)) return candidate;
  }
  return primary;
}
