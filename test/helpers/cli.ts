import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** Repository root, for resolving fixtures and the shipped data and models. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The What'sUp sample shipped in data/whatsup-sample (16 real photos, MIT). */
export const WHATSUP_SAMPLE = join(REPO_ROOT, 'data', 'whatsup-sample');
export const WHATSUP_SAMPLE_ROOT = join(WHATSUP_SAMPLE, 'data');
/** The shipped model folder: models/fastestdet holds the real FastestDet (BSD-3). */
export const MODELS_DIR = join(REPO_ROOT, 'models');
export const FASTESTDET_DIR = join(MODELS_DIR, 'fastestdet');

/** Runs the gsr CLI from source (tsx), so tests never see a stale build. */
export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, GSR_PROGRESS: '0', ...options.env },
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}
