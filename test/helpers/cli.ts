import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
/** Preloaded to list the modules a CLI run loads (test/cli/lazy.test.ts, bench/cli.bench.ts). */
export const MODULE_TRACE = join(REPO_ROOT, 'test', 'helpers', 'module-trace.mjs');

interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
}

/** Runs the gsr CLI from source (tsx), so tests never see a stale build. */
export function runCli(args: string[], options: CliOptions = {}, nodeFlags: string[] = []): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, GSR_PROGRESS: '0', ...options.env },
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

export interface TracedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Every module the process loaded: file: URLs and paths, node: built-ins. */
  modules: string[];
  cpuMs: number;
}

/** {@link runCli} with the module trace: which modules the run loaded, and its CPU time. */
export function traceCli(args: string[], options: CliOptions = {}): TracedRun {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-trace-'));
  const out = join(dir, 'trace.json');
  try {
    const r = runCli(args, { ...options, env: { ...options.env, GSR_TRACE_OUT: out } }, ['--import', MODULE_TRACE]);
    const trace = JSON.parse(readFileSync(out, 'utf8')) as { modules: string[]; cpu_ms: number };
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, modules: trace.modules, cpuMs: trace.cpu_ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * How much slower than its own CPU time one CLI start ran when the suite began (vitest.config.ts
 * measures it): 1 on an idle machine, more under load.
 */
export const SLOWDOWN = Math.max(1, Number(process.env.GSR_TEST_SLOWDOWN) || 1);

/** A timeout that holds under load: `ms` on an idle machine, scaled by {@link SLOWDOWN}. */
export function scaled(ms: number): number {
  return Math.round(ms * SLOWDOWN);
}
