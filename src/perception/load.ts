/** Opening a port's ONNX files: manifest lookup, file resolution, session, contract check. */
import { existsSync } from 'node:fs';
import { GsrError } from '../util/errors.js';
import { contractProblems } from './contract.js';
import { getManifest, installedModelFile, precisionPath, type ModelManifest } from './manifest.js';
import { openSession, releaseSession, type OpenedSession } from './runtime.js';
import type { ModelLoadOptions } from './types.js';

/** One opened ONNX file of a model. */
export interface LoadedGraph {
  path: string;
  opened: OpenedSession;
}

/**
 * Opens the ONNX file with `role` of model `id` and checks it against the manifest contract, so a
 * wrong file fails at load time with a clear message instead of mid-run.
 */
export async function loadGraph(manifest: ModelManifest, role: string, opts: ModelLoadOptions): Promise<LoadedGraph> {
  const path = precisionPath(installedModelFile(manifest, role, opts.modelsDir, opts.files), opts.precision);
  if (opts.precision === 'int8' && !existsSync(path)) {
    throw new GsrError(`--precision int8: ${path} not found (make it with onnxruntime's quantize_dynamic; docs/perception.md, "Speed")`);
  }
  const opened = await openSession(path, { device: opts.device, threads: opts.threads, tuning: opts.session });
  const contract = manifest.contract[role];
  if (contract) {
    const problems = contractProblems(opened.session, contract);
    if (problems.length > 0) {
      await releaseSession(opened);
      throw new GsrError(`${path}: does not match the ${manifest.id} ${role} contract: ${problems.join('; ')}`);
    }
  }
  return { path, opened };
}

/** Reads a manifest for a port factory. */
export function manifestFor(id: string): Promise<ModelManifest> {
  return getManifest(id);
}

/** A numeric port parameter with a default, validated. */
export function numberParam(opts: ModelLoadOptions, name: string, fallback: number): number {
  const v = opts.params?.[name];
  if (v === undefined) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) throw new GsrError(`parameter ${name} must be a number, got "${v}"`);
  return n;
}

/** A string port parameter restricted to `allowed` (the first is the default). */
export function choiceParam<T extends string>(opts: ModelLoadOptions, name: string, allowed: readonly [T, ...T[]]): T {
  const v = opts.params?.[name];
  if (v === undefined) return allowed[0];
  if (!(allowed as readonly string[]).includes(String(v))) throw new GsrError(`parameter ${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  return String(v) as T;
}
