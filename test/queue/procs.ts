/** Spawned `gsr` processes for the queue tests (from source, like test/helpers/cli.ts), killed at the end. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

export interface Proc {
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  output(): string;
  /** The exit code or signal once gone, else null. */
  ended(): number | string | null;
}

const live = new Set<ChildProcess>();
const outputs = new Map<ChildProcess, () => string>();

export function gsr(args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, GSR_PROGRESS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  outputs.set(child, () => `gsr ${args.slice(0, 2).join(' ')}: ${out.slice(-1500)}`);
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  let ended: number | string | null = null;
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      ended = code ?? signal ?? -1;
      resolve(ended);
    }),
  );
  return { child, exited, output: () => out, ended: () => ended };
}

/** SIGKILLs every process these tests started that is still running, printing their last output (a hang's trace). */
export async function killAll(): Promise<void> {
  for (const c of live) console.log(`still running at the end (pid ${c.pid}): ${outputs.get(c)?.()}`);
  const waits = [...live].map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r))));
  for (const c of live) c.kill('SIGKILL');
  await Promise.all(waits);
}

/**
 * Polls `test` until it holds. Fails at once, with its output, when a process in `running` has exited,
 * and after `timeoutMs` with the output of every process still running: a stall says where it is.
 */
export async function waitFor(what: string, test: () => boolean | Promise<boolean>, timeoutMs = 120_000, running: Proc[] = []): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    const gone = running.find((p) => p.ended() !== null);
    if (gone) throw new Error(`waiting for ${what}: a process exited (${gone.ended()}): ${gone.output().slice(-1500)}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; still running:\n${[...live].map((c) => outputs.get(c)?.()).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The exit of `p`, or an error with the outputs of the running processes when it has not exited within `timeoutMs`. */
export async function exitOf(p: Proc, what: string, timeoutMs = 180_000): Promise<number | string> {
  await waitFor(`${what} to exit`, () => p.ended() !== null, timeoutMs);
  return p.exited;
}
