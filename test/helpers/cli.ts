import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** Repository root, for resolving fixtures and ../shared. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The shared real data beside the repository (CI has it too). */
export const SHARED = join(REPO_ROOT, '..', 'shared');
export const WHATSUP_SAMPLE_ROOT = join(SHARED, 'data', 'whatsup-sample', 'data');
export const FASTESTDET_DIR = join(SHARED, 'models', 'fastestdet');

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
