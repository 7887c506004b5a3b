/**
 * Provenance of the models a run used, for `info.models`: the sha256 of each file actually loaded
 * (hashed here, streaming, so the record holds even for files placed by hand) and whether it
 * matches the manifest, plus the thresholds in effect (manifest defaults overridden by parameters).
 */
import { existsSync } from 'node:fs';
import { getManifest, modelFilePath, precisionPath } from '../perception/manifest.js';
import { sha256File } from '../util/hash.js';
import type { ModelLoadOptions } from '../perception/types.js';

export interface ModelRecord {
  id: string;
  task: string;
  /** sha256 of the model's first file (its only one for single-file models); null when unknown. */
  sha256: string | null;
  files?: Array<{ role: string; path: string; sha256: string; matches_manifest: boolean | null }>;
  /** Named decoding settings the plug-in ran with (e.g. GroundingDINO `score_tokens`, depth `resize`). */
  settings?: Record<string, string>;
}

const THRESHOLD_KEY = /threshold|iou/i;

/**
 * Describes model `id` as loaded with `opts`. Models without a manifest (plug-ins registered by
 * users or tests) get a null sha256 and no thresholds from here.
 */
export async function describeModel(
  id: string,
  task: string,
  opts: Pick<ModelLoadOptions, 'modelsDir' | 'files' | 'params' | 'precision'>,
): Promise<{ record: ModelRecord; thresholds: Record<string, number> }> {
  let manifest;
  try {
    manifest = await getManifest(id);
  } catch {
    return { record: { id, task, sha256: null }, thresholds: {} };
  }
  const files: NonNullable<ModelRecord['files']> = [];
  for (const f of manifest.files) {
    const path = precisionPath(modelFilePath(manifest, f.role, opts.modelsDir, opts.files), opts.precision);
    if (!existsSync(path)) continue;
    const sha256 = await sha256File(path);
    // The manifest's hashes are the fp32 files'; an int8 file has none to match.
    const listed = opts.precision === 'int8' && path.endsWith('.int8.onnx') ? null : f.sha256;
    files.push({ role: f.role, path, sha256, matches_manifest: listed === null ? null : listed === sha256 });
  }
  const thresholds: Record<string, number> = {};
  for (const [k, v] of Object.entries(manifest.postprocess)) {
    if (typeof v === 'number' && THRESHOLD_KEY.test(k)) thresholds[k] = v;
  }
  for (const [k, v] of Object.entries(opts.params ?? {})) {
    if (k in thresholds) thresholds[k] = Number(v);
  }
  return { record: { id, task, sha256: files[0]?.sha256 ?? null, ...(files.length ? { files } : {}) }, thresholds };
}
