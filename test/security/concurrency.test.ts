import { fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { annotate } from '../../src/annotate/run.js';
import { targetsFromImages } from '../../src/annotate/targets.js';
import { createOpenAiAnswerer, RunStore, runPrompts } from '../../src/mllm/index.js';
import { DOUBLE_DEPTH, DOUBLE_DETECTOR, DOUBLE_SEGMENTER, registerDoubles } from '../annotate/helpers/doubles.js';
import { writePng } from '../annotate/helpers/images.js';
import { REPO_ROOT, scaled } from '../helpers/cli.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';
import { writePrompts } from '../mllm/prompt-fixtures.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-conc-'));
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
beforeAll(() => registerDoubles());

interface Report {
  ran: boolean;
  refused: boolean;
  error: string;
}

describe('concurrent writers on one output (small sample; bench/lock.bench.ts and bench/concurrency.bench.ts run more)', () => {
  it('pipeline engine: 3 processes started at one instant on one folder, 8 times: never more than one runs the stage', async () => {
    const workers = await Promise.all(
      Array.from({ length: 3 }, () => {
        const child = fork(join(REPO_ROOT, 'test', 'helpers', 'lock-contender.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
        let pending: ((r: Report) => void) | null = null;
        return new Promise<{ kill: () => void; ask: (t: object) => Promise<Report> }>((resolve) => {
          child.on('message', (m) => {
            if (m === 'ready') resolve({ kill: () => child.kill(), ask: (t) => new Promise<Report>((r) => ((pending = r), child.send(t))) });
            else pending?.(m as Report);
          });
        });
      }),
    );
    try {
      const base = tmp();
      for (let i = 0; i < 8; i++) {
        const dir = join(base, String(i));
        await mkdir(dir);
        const reports = await Promise.all(workers.map((w) => w.ask({ dir, algo: 'kernel', startAt: Date.now() + 50, holdMs: 20 })));
        expect(reports.map((r) => r.error).filter(Boolean)).toEqual([]);
        expect(reports.filter((r) => r.ran)).toHaveLength(1);
      }
    } finally {
      for (const w of workers) w.kill();
    }
  }, scaled(120_000));

  it('gsr annotate: a second run into the same --out is refused while the first runs; the first completes', async () => {
    const dir = tmp();
    const images = [];
    for (let i = 0; i < 6; i++) {
      const p = join(dir, `img${i}.png`);
      await writePng(p, 40, 30);
      images.push(p);
    }
    const out = join(dir, 'out');
    const opts = { targets: targetsFromImages(images, [{ role: 'subject' as const, phrase: 'left' }]), outDir: out, detector: DOUBLE_DETECTOR, segmenter: DOUBLE_SEGMENTER, depth: DOUBLE_DEPTH, modelsDir: '/nonexistent', device: 'cpu' as const };
    const results = await Promise.allSettled([annotate(opts), annotate(opts), annotate(opts)]);
    const done = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(done).toHaveLength(1);
    expect(refused.map((r) => String((r as PromiseRejectedResult).reason.message))).toEqual([
      expect.stringMatching(new RegExp(`^${out} is in use by gsr annotate \\(pid ${process.pid}, since .*\\); wait for it to finish or stop it$`)),
      expect.stringMatching(/is in use by gsr annotate/),
    ]);
    expect((done[0] as PromiseFulfilledResult<{ images_done: number }>).value.images_done).toBe(6);
  });

  it('gsr run: three runners on one store share the work; every prompt is asked once and the store is complete', async () => {
    const dir = tmp();
    const server = await startFakeServer({ latencyMs: 5 });
    servers.push(server);
    const { path } = writePrompts(dir, 60);
    const storePath = join(dir, 'runs.sqlite');
    const stores = [0, 1, 2].map(() => RunStore.open(storePath));
    try {
      const summaries = await Promise.all(
        stores.map((store) =>
          runPrompts({ prompts: path, store, answerer: createOpenAiAnswerer({ model: 'm1', baseUrl: server.url }), settings: { answerer: 'openai', model: 'm1' }, concurrency: 4 }),
        ),
      );
      expect(summaries.reduce((n, s) => n + s.ok, 0)).toBe(60);
      expect(server.totalRequests()).toBe(60);
      expect([...stores[0].responses({ model: 'm1' })].filter((r) => r.status === 'ok')).toHaveLength(60);
    } finally {
      for (const s of stores) s.close();
    }
  });
});
