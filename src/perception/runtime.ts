/**
 * The one place that creates onnxruntime-node sessions: device choice (auto falls back to CPU),
 * threads, reuse of a session per model file, and release.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { GsrError, errorMessage } from '../util/errors.js';
import { notice } from '../util/log.js';
import { timeStageAsync } from '../util/stage-clock.js';
import type { Device, SessionTuning } from './types.js';

export type Session = ort.InferenceSession;
export { ort };

export interface SessionOptions {
  device: Device;
  /** Intra-op threads; 0 or absent: {@link cpuThreads}'s choice. */
  threads?: number;
  tuning?: SessionTuning;
}

/** A session plus the device it really runs on. */
export interface OpenedSession {
  session: Session;
  device: 'cpu' | 'cuda';
}

interface CacheEntry {
  opened: Promise<OpenedSession>;
  users: number;
}

const cache = new Map<string, CacheEntry>();
let cudaNoticeShown = false;

/**
 * onnxruntime's session options for a provider, threads and tuning; `spin: false` makes waiting
 * intra-op threads sleep instead of spinning. Pure.
 */
export function ortOptions(provider: 'cpu' | 'cuda', threads?: number, tuning: SessionTuning = {}, spin = true): ort.InferenceSession.SessionOptions {
  const o: ort.InferenceSession.SessionOptions = {
    executionProviders: [provider],
    graphOptimizationLevel: tuning.graphOptimization ?? 'all',
    executionMode: tuning.executionMode ?? 'sequential',
    enableCpuMemArena: tuning.memoryArena ?? true,
    enableMemPattern: tuning.memoryPattern ?? false,
  };
  if (threads && threads > 0) o.intraOpNumThreads = threads;
  if (tuning.interOpThreads && tuning.interOpThreads > 0) o.interOpNumThreads = tuning.interOpThreads;
  const session: Record<string, unknown> = {};
  if (tuning.denormalAsZero) session.set_denormal_as_zero = '1';
  if (!spin) session.intra_op = { allow_spinning: '0' };
  if (Object.keys(session).length > 0) o.extra = { session };
  return o;
}

/**
 * Model files below this size run on the CPU with at most SMALL_MODEL_THREADS intra-op threads unless
 * threads are asked for, and those threads sleep while they wait: the shipped gsr-synth models take
 * milliseconds an image, and spinning threads spent more CPU between runs than they saved on a
 * shared machine (docs/perception.md, "Threads for small models").
 */
export const SMALL_MODEL_BYTES = 16 * 2 ** 20;
export const SMALL_MODEL_THREADS = 2;

/** Intra-op threads for a CPU session: the asked number, else up to SMALL_MODEL_THREADS for a small model file, else onnxruntime's choice. */
export function cpuThreads(asked: number | undefined, fileBytes: number, cores = availableParallelism()): number | undefined {
  if (asked && asked > 0) return asked;
  return fileBytes < SMALL_MODEL_BYTES ? Math.min(SMALL_MODEL_THREADS, cores) : undefined;
}

/**
 * Whether onnxruntime-node's CUDA provider library is installed next to its binding. Checked before
 * trying CUDA, because a failed attempt makes onnxruntime print a multi-line native error.
 */
export function cudaProviderInstalled(): boolean {
  try {
    const pkgDir = dirname(createRequire(import.meta.url).resolve('onnxruntime-node/package.json'));
    const binDir = join(pkgDir, 'bin');
    for (const napi of readdirSync(binDir)) {
      const dir = join(binDir, napi, process.platform, process.arch);
      if (existsSync(join(dir, 'libonnxruntime_providers_cuda.so'))) return true;
    }
  } catch {
    // Unknown layout: let the session attempt decide.
    return true;
  }
  return false;
}

async function create(path: string, opts: SessionOptions): Promise<OpenedSession> {
  if (!existsSync(path)) throw new GsrError(`model file not found: ${path}`);
  if (opts.device !== 'cpu') {
    try {
      if (!cudaProviderInstalled()) throw new Error('libonnxruntime_providers_cuda.so is not installed');
      return { session: await ort.InferenceSession.create(path, ortOptions('cuda', opts.threads, opts.tuning)), device: 'cuda' };
    } catch (err) {
      const why = errorMessage(err).split('\n')[0];
      if (opts.device === 'cuda') {
        throw new GsrError(
          `--device cuda: the CUDA execution provider is not available (${why}); install it with ONNXRUNTIME_NODE_INSTALL=cuda12 (README, GPU set-up) or use --device cpu`,
        );
      }
      if (!cudaNoticeShown) {
        cudaNoticeShown = true;
        notice('CUDA execution provider unavailable, running on CPU');
      }
    }
  }
  try {
    const bytes = statSync(path).size;
    const o = ortOptions('cpu', cpuThreads(opts.threads, bytes), opts.tuning, bytes >= SMALL_MODEL_BYTES);
    return { session: await ort.InferenceSession.create(path, o), device: 'cpu' };
  } catch (err) {
    throw new GsrError(`cannot load ONNX model ${path}: ${errorMessage(err).split('\n')[0]}`);
  }
}

/**
 * Opens (or reuses) a session for a model file. Each call must be paired with
 * {@link releaseSession}; the session is freed when its last user releases it.
 */
export async function openSession(path: string, opts: SessionOptions): Promise<OpenedSession> {
  const key = `${path}\0${opts.device}\0${opts.threads ?? 0}\0${JSON.stringify(opts.tuning ?? {})}`;
  let entry = cache.get(key);
  if (!entry) {
    entry = { opened: create(path, opts), users: 0 };
    cache.set(key, entry);
    entry.opened.catch(() => cache.delete(key));
  }
  entry.users++;
  return entry.opened;
}

/** Releases one use of a session opened with {@link openSession}. */
export async function releaseSession(opened: OpenedSession): Promise<void> {
  for (const [key, entry] of cache) {
    const s = await entry.opened.catch(() => undefined);
    if (s?.session !== opened.session) continue;
    if (--entry.users <= 0) {
      cache.delete(key);
      await opened.session.release();
    }
    return;
  }
}

/** Runs a session, naming the model in errors. */
export async function runSession(
  opened: OpenedSession,
  feeds: Record<string, ort.Tensor>,
  label: string,
): Promise<Record<string, ort.Tensor>> {
  try {
    return (await timeStageAsync(`model:${label}`, () => opened.session.run(feeds))) as Record<string, ort.Tensor>;
  } catch (err) {
    throw new GsrError(`${label}: inference failed: ${errorMessage(err).split('\n')[0]}`);
  }
}
