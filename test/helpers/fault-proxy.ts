/**
 * A TCP fault proxy on loopback, put between a gsr process and Redis or an endpoint to play the
 * network between machines. It forwards bytes both ways and can
 * - `partition()`: hold every byte both ways (new connections are accepted and held too), as a
 *   partition does to TCP: nothing is lost, nothing arrives; `heal()` delivers what was held, or with
 *   `{ cut: true }` resets the connections instead (the partition outlived TCP);
 * - `cut()`: reset every connection now;
 * - `shape({ latencyMs, bytesPerSecond })`: one-way latency and a bandwidth limit per direction;
 * - `setTarget(port)`: send new connections elsewhere (a failover behind a fixed address).
 * Bytes are paced in 16 KB slices; a direction with over 1 MB in flight pauses its sender, so a
 * slow link pushes back instead of buffering.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface FaultProxy {
  port: number;
  /** `redis://127.0.0.1:PORT/0` or `http://127.0.0.1:PORT/v1`, as the client wants it. */
  url(scheme: 'redis' | 'http'): string;
  setTarget(port: number): void;
  partition(): void;
  heal(options?: { cut?: boolean }): void;
  cut(): void;
  shape(options: { latencyMs?: number; bytesPerSecond?: number }): void;
  /** Connections accepted so far, and bytes delivered each way. */
  stats(): { connections: number; up: number; down: number };
  close(): Promise<void>;
}

const SLICE = 16 * 1024;
const HIGH_WATER = 1 << 20;

interface Pipe {
  from: Socket;
  to: Socket;
  queue: Array<{ data: Buffer; at: number }>;
  queued: number;
  /** When the link is free again (bandwidth). */
  freeAt: number;
  timer: NodeJS.Timeout | null;
  ended: boolean;
  count: (n: number) => void;
}

export async function startFaultProxy(targetPort: number): Promise<FaultProxy> {
  let target = targetPort;
  let held = false;
  let latencyMs = 0;
  let bytesPerSecond = 0;
  const pipes = new Set<Pipe>();
  const sockets = new Set<Socket>();
  const totals = { connections: 0, up: 0, down: 0 };

  const pump = (p: Pipe) => {
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    if (held) return;
    const now = Date.now();
    while (p.queue.length > 0 && p.queue[0].at <= now) {
      const { data } = p.queue.shift()!;
      p.queued -= data.length;
      p.count(data.length);
      if (!p.to.destroyed) p.to.write(data);
    }
    if (p.queued < HIGH_WATER && p.from.isPaused()) p.from.resume();
    if (p.queue.length > 0) p.timer = setTimeout(() => pump(p), Math.max(1, p.queue[0].at - now));
    else if (p.ended && !p.to.destroyed) p.to.end();
  };

  const pipe = (from: Socket, to: Socket, count: (n: number) => void): Pipe => {
    const p: Pipe = { from, to, queue: [], queued: 0, freeAt: 0, timer: null, ended: false, count };
    from.on('data', (chunk: Buffer) => {
      for (let i = 0; i < chunk.length; i += SLICE) {
        const data = chunk.subarray(i, i + SLICE);
        const now = Date.now();
        p.freeAt = Math.max(p.freeAt, now) + (bytesPerSecond > 0 ? (1000 * data.length) / bytesPerSecond : 0);
        p.queue.push({ data, at: (bytesPerSecond > 0 ? p.freeAt : now) + latencyMs });
        p.queued += data.length;
      }
      if (p.queued >= HIGH_WATER) from.pause();
      pump(p);
    });
    from.on('end', () => {
      p.ended = true;
      pump(p);
    });
    pipes.add(p);
    return p;
  };

  const server: Server = createServer((client) => {
    totals.connections++;
    const upstream = connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    const a = pipe(client, upstream, (n) => (totals.up += n));
    const b = pipe(upstream, client, (n) => (totals.down += n));
    const drop = () => {
      client.destroy();
      upstream.destroy();
      for (const p of [a, b]) {
        if (p.timer) clearTimeout(p.timer);
        pipes.delete(p);
      }
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', drop);
    upstream.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  const cut = () => {
    for (const s of sockets) s.resetAndDestroy();
  };
  return {
    port,
    url: (scheme) => (scheme === 'redis' ? `redis://127.0.0.1:${port}/0` : `http://127.0.0.1:${port}/v1`),
    setTarget(p) {
      target = p;
    },
    partition() {
      held = true;
    },
    heal(options = {}) {
      held = false;
      if (options.cut) cut();
      else for (const p of pipes) pump(p);
    },
    cut,
    shape(options) {
      latencyMs = options.latencyMs ?? 0;
      bytesPerSecond = options.bytesPerSecond ?? 0;
    },
    stats: () => ({ ...totals }),
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
