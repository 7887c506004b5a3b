import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/util/random.js';
import { annotateTarget, crashTrial, pipelineTarget, randomKillPoints, runTarget, runToEnd, type CrashTarget, type KillPoint } from '../helpers/crash-matrix.js';
import { scaled } from '../helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-crashm-'));
/** Random-time kill points come from this seed: a new one per run unless GSR_CRASH_SEED repeats one. */
const SEED = Number(process.env.GSR_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

/**
 * The reference run, then the fixed points and `random` seeded random-time points; every resumed run
 * must end byte-identical to the reference. A failure names the seed and the kill point.
 */
async function matrix(target: CrashTarget, fixed: KillPoint[], random: number, seed: number) {
  try {
    target.reset();
    const ms = await runToEnd(target, 'tsx');
    const reference = await target.snapshot();
    expect(reference.size).toBeGreaterThan(0);
    const points = [...fixed, ...randomKillPoints(target, ms, seededRandom(seed), random)];
    const results = [];
    for (const p of points) results.push(await crashTrial(target, p, reference, 'tsx'));
    for (const r of results) expect(r, `${JSON.stringify(r)} (seed ${seed}: GSR_CRASH_SEED=${SEED} repeats this run)`).toMatchObject({ identical: true });
    expect(results.filter((r) => r.killed).length).toBeGreaterThanOrEqual(1);
  } finally {
    await target.close?.();
  }
}

// A small sample in npm test: kills at item counts and stage boundaries, and a few at seeded random
// times; bench/crash.bench.ts runs 100 random-time kills per command.
describe(`crash matrix (kill -9, resume, outputs identical to an uninterrupted run; seed ${SEED})`, () => {
  it('gsr run', async () => {
    await matrix(await runTarget(tmp(), 120), [{ items: 30 }, { items: 90 }], 2, SEED);
  }, scaled(300_000));

  it('gsr annotate', async () => {
    await matrix(await annotateTarget(tmp(), 12), [{ items: 3 }, { items: 9 }], 2, SEED + 1);
  }, scaled(300_000));

  it('gsr pipeline run (the demo, 6 scenes)', async () => {
    // After the prompts stage, then random times (half aimed inside a stage).
    await matrix(pipelineTarget(tmp(), 6), [{ items: 4 }], 2, SEED + 2);
  }, scaled(900_000));
});
