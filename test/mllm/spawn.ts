import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

export interface Running {
  child: ChildProcess;
  /** Resolves when the process exits, with its code, signal and output. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts the gsr CLI from source without blocking this process (the fake server lives here and
 * must keep answering while the CLI runs).
 */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, GSR_PROGRESS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Polls until `cond()` holds (or fails after `timeoutMs`). */
export async function waitFor(cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
