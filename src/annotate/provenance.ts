/**
 * Provenance of the models a run used, for `info.models`: the sha256 of each file actually loaded
 * (hashed here, streaming, so the record holds even for files placed by hand), whether it matches
 * the manifest, the revision the manifest pins and the one the models lock says the file came from,
 * plus the thresholds in effect (manifest defaults overridden by parameters).
 */
import { existsSync } from 'node:fs';
import { lockEntry, modelsLockPath, readModelsLock } from '../formats/models-lock.js';
import { getManifest, modelFilePath, modelSearchDirs, precisionPath } from '../perception/manifest.js';
import { sha256File } from '../util/hash.js';
import type { ModelLoadOptions } from '../perception/types.js';

export interface ModelRecord {
  id: string;
  task: string;
  /** sha256 of the model's first file (its only one for single-file models); null when unknown. */
  sha256: string | null;
  /** The commit the manifest pins (null when it pins none); absent for models without a manifest. */
  revision?: string | null;
  /** `revision`: the commit this very file was pulled from, per the models lock (absent when not locked). */
  files?: Array<{ role: string; path: string; sha256: string; matches_manifest: boolean | null; revision?: string | null }>;
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
    const locked = await lockedRevision(manifest.id, f.role, sha256, opts.modelsDir);
    files.push({ role: f.role, path, sha256, matches_manifest: listed === null ? null : listed === sha256, ...(locked === undefined ? {} : { revision: locked }) });
  }
  const thresholds: Record<string, number> = {};
  for (const [k, v] of Object.entries(manifest.postprocess)) {
    if (typeof v === 'number' && THRESHOLD_KEY.test(k)) thresholds[k] = v;
  }
  for (const [k, v] of Object.entries(opts.params ?? {})) {
    if (k in thresholds) thresholds[k] = Number(v);
  }
  return { record: { id, task, sha256: files[0]?.sha256 ?? null, revision: manifest.revision ?? null, ...(files.length ? { files } : {}) }, thresholds };
}

/**
 * The commit a file with this sha256 was pulled from, from the models lock of the first folder
 * searched for models that locks it (modelSearchDirs); undefined when none does.
 */
async function lockedRevision(id: string, role: string, sha256: string, modelsDir: string): Promise<string | null | undefined> {
  for (const dir of modelSearchDirs(modelsDir)) {
    try {
      const entry = lockEntry(await readModelsLock(modelsLockPath(dir)), id, role);
      if (entry && entry.sha256 === sha256) return entry.revision;
    } catch {
      // An unreadable lock records nothing here; `gsr models pull` names it.
    }
  }
  return undefined;
}
