/**
 * A throwaway redis-server for queue tests: a free loopback port, its own temp folder, AOF with an
 * fsync per write (so a restart keeps every acknowledged job) and no RDB snapshots. `restart()` kills
 * it with SIGKILL and starts it again on the same port and folder; a second server can be started as
 * its replica (the failover in test/helpers/fault-matrix.ts). Tests skip with a message when
 * Debian's redis-server is not installed (.ci/run installs it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_SERVER = process.env.GSR_REDIS_SERVER ?? 'redis-server';

/** Whether redis-server can be started here; when not, why (for the skip message). */
export function redisUnavailable(): string | null {
  const r = spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? null : `${REDIS_SERVER} is not installed (apt-get install redis-server; .ci/run does)`;
}

export interface TestRedis {
  url: string;
  port: number;
  /** SIGKILLs the server and starts it again on the same port with the same data folder. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
  /** The server's pid (for its CPU time in benches). */
  pid(): number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, up: boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.on('connect', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (open === up) return;
    if (Date.now() > deadline) throw new Error(`redis on port ${port} did not ${up ? 'start' : 'stop'}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a server; with `replicaOf`, a replica of the server on that port (read-only until promoted). */
export async function startRedis(options: { replicaOf?: number } = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const replica = options.replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(options.replicaOf)];
  const launch = async () => {
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--protected-mode', 'no', ...replica], { stdio: 'ignore' });
    await waitForPort(port, true);
  };
  const kill = async () => {
    // A killed server has a signalCode, not an exitCode: stopping it twice must not wait for an exit that came.
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    await waitForPort(port, false);
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    async restart(downMs = 500) {
      await kill();
      await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    pid: () => child!.pid!,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
