/** Spawned `gsr` processes for the queue tests (from source, like test/helpers/cli.ts), killed at the end. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

export interface Proc {
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  output(): string;
}

const live = new Set<ChildProcess>();

export function gsr(args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, GSR_PROGRESS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? -1);
    }),
  );
  return { child, exited, output: () => out };
}

/** SIGKILLs every process these tests started that is still running. */
export async function killAll(): Promise<void> {
  const waits = [...live].map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r))));
  for (const c of live) c.kill('SIGKILL');
  await Promise.all(waits);
}

export async function waitFor(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
