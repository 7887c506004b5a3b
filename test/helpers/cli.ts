import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { vi } from 'vitest';
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

/**
 * Runs `gsr` in this process (src/cli/program.ts, runGsr), for tests about what a command does rather
 * than about the process: no start-up cost, so they hold under load. Captures stdout and stderr.
 */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  const { runGsr } = await import('../../src/cli/program.js');
  const out: string[] = [];
  const err: string[] = [];
  const savedEnv = Object.fromEntries(Object.keys({ GSR_PROGRESS: '', ...env }).map((k) => [k, process.env[k]]));
  Object.assign(process.env, { GSR_PROGRESS: '0', ...env });
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0);
  try {
    const status = await runGsr(args);
    return { status, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
