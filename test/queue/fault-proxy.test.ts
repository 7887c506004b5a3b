/** The fault proxy of the network fault matrix does what it says (lower bounds only: the machine is shared). */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';

let echo: Server;
let echoPort = 0;
const open = new Set<Socket>();
beforeAll(async () => {
  echo = createServer((s) => {
    open.add(s);
    s.on('error', () => {}).on('close', () => open.delete(s));
    s.pipe(s);
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  echoPort = (echo.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of open) s.destroy();
  await new Promise<void>((r) => echo.close(() => r()));
});

/** Connects through the proxy; `send` resolves with the echo of `bytes` and how long it took. */
async function client(proxy: FaultProxy) {
  const s: Socket = connect(proxy.port, '127.0.0.1');
  await new Promise((r) => s.once('connect', r));
  let got = Buffer.alloc(0);
  s.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
  const closed = new Promise((r) => s.once('close', r));
  s.on('error', () => {});
  return {
    closed,
    received: () => got.length,
    async send(bytes: number): Promise<number> {
      const t = Date.now();
      const want = got.length + bytes;
      s.write(Buffer.alloc(bytes, 7));
      while (got.length < want) await new Promise((r) => setTimeout(r, 5));
      return Date.now() - t;
    },
    end: () => s.destroy(),
  };
}

describe('fault proxy', () => {
  it('forwards, adds latency each way and limits bandwidth', async () => {
    const proxy = await startFaultProxy(echoPort);
    const c = await client(proxy);
    expect(await c.send(100)).toBeLessThan(5000);
    proxy.shape({ latencyMs: 200 });
    expect(await c.send(100)).toBeGreaterThanOrEqual(400); // there and back
    proxy.shape({ bytesPerSecond: 1_000_000 });
    expect(await c.send(1_000_000)).toBeGreaterThanOrEqual(950); // 1 MB each way, the two directions overlapping
    expect(proxy.stats()).toMatchObject({ connections: 1, up: 1_000_200, down: 1_000_200 });
    c.end();
    await proxy.close();
  }, 60_000);

  it('holds bytes in a partition and delivers them on healing; a cut resets; a new target takes new connections', async () => {
    const proxy = await startFaultProxy(echoPort);
    const c = await client(proxy);
    proxy.partition();
    const pending = c.send(10);
    await new Promise((r) => setTimeout(r, 300));
    expect(c.received()).toBe(0);
    proxy.heal();
    await pending;
    expect(c.received()).toBe(10);
    proxy.cut();
    await c.closed;
    const other = createServer((s) => s.on('error', () => {}).end('other'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    proxy.setTarget((other.address() as { port: number }).port);
    const d = connect(proxy.port, '127.0.0.1');
    const text = await new Promise<string>((r) => d.once('data', (b: Buffer) => r(b.toString())));
    expect(text).toBe('other');
    d.destroy();
    await proxy.close();
    await new Promise<void>((r) => other.close(() => r()));
  }, 60_000);
});
