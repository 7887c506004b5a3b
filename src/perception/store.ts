/**
 * The local model store (<modelsDir>/<id>/): which files are installed, and verification of
 * installed files (size, sha256, ONNX contract).
 */
import { existsSync, statSync } from 'node:fs';
import { GsrError, errorMessage } from '../util/errors.js';
import { sha256File } from '../util/hash.js';
import { contractProblems } from './contract.js';
import { listManifests, modelFilePath, type GraphContract, type ModelManifest } from './manifest.js';
import { openSession, releaseSession } from './runtime.js';

export interface FileStatus {
  role: string;
  path: string;
  present: boolean;
  /** Size on disk when present. */
  bytes: number | null;
  /** Size the manifest gives (null when unknown). */
  expectedBytes: number | null;
  sha256: string | null;
  url: string | null;
}

export interface ModelStatus {
  id: string;
  task: string;
  licence: string;
  status: 'installed' | 'partial' | 'missing';
  /** Bytes on disk if installed, else the manifest's total when every size is known. */
  bytes: number | null;
  files: FileStatus[];
}

/** Installed/missing state of one model's files. */
export function modelStatus(manifest: ModelManifest, modelsDir: string): ModelStatus {
  const files = manifest.files.map((f): FileStatus => {
    const path = modelFilePath(manifest, f.role, modelsDir);
    const present = existsSync(path);
    return { role: f.role, path, present, bytes: present ? statSync(path).size : null, expectedBytes: f.bytes, sha256: f.sha256, url: f.url };
  });
  const n = files.filter((f) => f.present).length;
  const status = n === files.length ? 'installed' : n === 0 ? 'missing' : 'partial';
  const sizes = files.map((f) => (status === 'installed' ? f.bytes : f.expectedBytes));
  const bytes = sizes.every((s) => s !== null) ? sizes.reduce((a, b) => a! + b!, 0) : null;
  return { id: manifest.id, task: manifest.task, licence: manifest.licence, status, bytes, files };
}

/** Status of every shipped model. */
export async function listModels(modelsDir: string, manifestDir?: string): Promise<ModelStatus[]> {
  return (await listManifests(manifestDir)).map((m) => modelStatus(m, modelsDir));
}

/** Problems of one ONNX file against a contract (loads it on the CPU). */
export async function onnxContractProblems(path: string, contract: GraphContract): Promise<string[]> {
  const opened = await openSession(path, { device: 'cpu' });
  try {
    return contractProblems(opened.session, contract);
  } finally {
    await releaseSession(opened);
  }
}

export interface FileCheck {
  role: string;
  path: string;
  ok: boolean;
  problems: string[];
  /** Whether the sha256 was checked (false when the manifest has none). */
  sha256Checked: boolean;
}

/** Checks an installed model's files: presence, size, sha256 where known, ONNX contract. */
export async function verifyInstalled(manifest: ModelManifest, modelsDir: string): Promise<FileCheck[]> {
  const out: FileCheck[] = [];
  for (const f of manifest.files) {
    const path = modelFilePath(manifest, f.role, modelsDir);
    const problems: string[] = [];
    let sha256Checked = false;
    if (!existsSync(path)) {
      problems.push('file is missing');
    } else {
      const size = statSync(path).size;
      if (f.bytes !== null && size !== f.bytes) problems.push(`size is ${size} bytes, expected ${f.bytes}`);
      if (f.sha256) {
        sha256Checked = true;
        const got = await sha256File(path);
        if (got !== f.sha256) problems.push(`sha256 is ${got}, expected ${f.sha256}`);
      }
      const contract = manifest.contract[f.role];
      if (contract) {
        try {
          problems.push(...(await onnxContractProblems(path, contract)));
        } catch (err) {
          problems.push(errorMessage(err));
        }
      }
    }
    out.push({ role: f.role, path, ok: problems.length === 0, problems, sha256Checked });
  }
  return out;
}

export interface PathCheck {
  path: string;
  /** The model and file role whose contract the file matches, if any. */
  matches: Array<{ id: string; role: string }>;
  /** Against the contract it was checked against (or the closest one). */
  problems: string[];
  checkedAgainst: { id: string; role: string } | null;
}

/**
 * Checks an ONNX file at `path` against one model's contract (`id`, optional `role`), or, without
 * an id, against every known contract, reporting which it matches or the closest mismatch.
 */
export async function verifyPath(path: string, id?: string, role?: string, manifestDir?: string): Promise<PathCheck> {
  if (!existsSync(path)) throw new GsrError(`model file not found: ${path}`);
  const manifests = await listManifests(manifestDir);
  const candidates: Array<{ id: string; role: string; contract: GraphContract }> = [];
  for (const m of manifests) {
    if (id && m.id !== id) continue;
    for (const [r, contract] of Object.entries(m.contract)) if (!role || r === role) candidates.push({ id: m.id, role: r, contract });
  }
  if (candidates.length === 0) throw new GsrError(`no contract for ${id ?? 'any model'}${role ? ` role ${role}` : ''}`);
  const opened = await openSession(path, { device: 'cpu' });
  try {
    const results = candidates.map((c) => ({ ...c, problems: contractProblems(opened.session, c.contract) }));
    const matches = results.filter((r) => r.problems.length === 0).map(({ id: i, role: r }) => ({ id: i, role: r }));
    const closest = [...results].sort((a, b) => a.problems.length - b.problems.length)[0]!;
    return {
      path,
      matches,
      problems: matches.length > 0 ? [] : closest.problems,
      checkedAgainst: matches[0] ?? { id: closest.id, role: closest.role },
    };
  } finally {
    await releaseSession(opened);
  }
}
