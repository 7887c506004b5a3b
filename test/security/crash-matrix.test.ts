import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotateTarget, crashTrial, pipelineTarget, runTarget, runToEnd, type CrashTarget, type KillPoint } from '../helpers/crash-matrix.js';
import { scaled } from '../helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-crashm-'));

/** The reference run, then each point; every resumed run must end byte-identical to the reference. */
async function matrix(target: CrashTarget, points: KillPoint[]) {
  try {
    target.reset();
    const ms = await runToEnd(target, 'tsx');
    const reference = await target.snapshot();
    expect(reference.size).toBeGreaterThan(0);
    const results = [];
    for (const p of points) results.push(await crashTrial(target, 'ms' in p ? { ms: Math.round(p.ms * ms) } : p, reference, 'tsx'));
    for (const r of results) expect(r, JSON.stringify(r)).toMatchObject({ identical: true });
    expect(results.filter((r) => r.killed).length).toBeGreaterThanOrEqual(1);
  } finally {
    await target.close?.();
  }
}

// A small sample in npm test; bench/crash.bench.ts runs 30 and more points per command.
describe('crash matrix (kill -9, resume, outputs identical to an uninterrupted run)', () => {
  it('gsr run', async () => {
    const dir = tmp();
    await matrix(await runTarget(dir, 120), [{ items: 30 }, { items: 90 }]);
  }, scaled(300_000));

  it('gsr annotate', async () => {
    const dir = tmp();
    await matrix(await annotateTarget(dir, 1), [{ items: 3 }, { items: 11 }]);
  }, scaled(300_000));

  it('gsr pipeline run (the demo, 6 scenes)', async () => {
    const dir = tmp();
    // After the dataset stage and after the prompts stage; random-time kill points run in
    // bench/crash.bench.ts (a rare difference in prompts/.stage.json after such a kill is under study).
    await matrix(pipelineTarget(dir, 6), [{ items: 2 }, { items: 4 }]);
  }, scaled(600_000));
});
