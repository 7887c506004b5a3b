/**
 * A small pool of render workers. Jobs go to the least busy worker; a worker that cannot start
 * (for example when running TypeScript sources without a loader) makes the pool report failure,
 * and the caller falls back to producing scenes in-process.
 */
import { Worker } from 'node:worker_threads';
import type { ProducedScene, SceneJob } from './produce.js';

type Reply = { ok: true; scene: ProducedScene } | { ok: false; index: number; error: string };

interface Slot {
  worker: Worker;
  waiting: Map<number, { resolve: (s: ProducedScene) => void; reject: (e: Error) => void }>;
  dead?: Error;
}

/**
 * The worker module. TypeScript sources (run through tsx, as in development and tests) start the
 * worker through a tiny bootstrap that registers tsx in the worker first.
 */
function workerEntry(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./render-worker.js', import.meta.url);
  const target = new URL('./render-worker.ts', import.meta.url).href;
  const code = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(target)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

export class RenderPool {
  private readonly slots: Slot[] = [];

  private constructor() {}

  /** Starts `size` workers and waits until each is online; null if any fails to start. */
  static async start(size: number): Promise<RenderPool | null> {
    const pool = new RenderPool();
    try {
      await Promise.all(
        Array.from({ length: size }, async () => {
          const worker = new Worker(workerEntry());
          const slot: Slot = { worker, waiting: new Map() };
          pool.slots.push(slot);
          await new Promise<void>((resolve, reject) => {
            worker.once('message', () => resolve());
            worker.once('error', reject);
            worker.once('exit', () => reject(new Error('render worker exited')));
          });
          worker.on('message', (reply: Reply) => {
            const index = reply.ok ? reply.scene.index : reply.index;
            const w = slot.waiting.get(index);
            slot.waiting.delete(index);
            if (reply.ok) w?.resolve(reply.scene);
            else w?.reject(new Error(reply.error));
          });
          const fail = (err: Error) => {
            slot.dead = err;
            for (const w of slot.waiting.values()) w.reject(err);
            slot.waiting.clear();
          };
          worker.on('error', fail);
          worker.on('exit', () => fail(new Error('render worker exited')));
        }),
      );
      return pool;
    } catch {
      await pool.close();
      return null;
    }
  }

  produce(job: SceneJob): Promise<ProducedScene> {
    const slot = this.slots.reduce((a, b) => (b.waiting.size < a.waiting.size ? b : a));
    if (slot.dead) return Promise.reject(slot.dead);
    return new Promise((resolve, reject) => {
      slot.waiting.set(job.index, { resolve, reject });
      slot.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    for (const s of this.slots) s.worker.removeAllListeners('exit');
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
