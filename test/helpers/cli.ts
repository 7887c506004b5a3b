import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { sharedLocation } from './shared.js';

/** Repository root, for resolving fixtures and the shipped manifests. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Third-party material beside the repository (test/helpers/shared.ts): only optional checks use
 * these, through describeShared / itShared, which skip when the folder is absent.
 * The 16 real What'sUp photos in the benchmark's layout (the folder holding data/).
 */
export const WHATSUP_SAMPLE = sharedLocation('whatsupSample');
export const WHATSUP_SAMPLE_ROOT = join(WHATSUP_SAMPLE, 'data');
/** The real FastestDet's folder, and the models folder holding it (as `--models-dir`). */
export const FASTESTDET_DIR = sharedLocation('fastestdet');
export const MODELS_DIR = dirname(FASTESTDET_DIR);

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
