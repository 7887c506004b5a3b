/**
 * The crash matrix at full size: for `gsr run`, `gsr annotate` and `gsr pipeline run` (the demo), at
 * least 30 kill points each, by count of completed items and at seeded random times within the
 * reference run, `kill -9`, resume, and compare the final outputs with an uninterrupted run,
 * timestamps aside (test/helpers/crash-matrix.ts). Runs the built CLI (`npm run build` first) when
 * dist/ is there, else from source. GSR_CRASH_POINTS overrides the points per command, GSR_CRASH_ONLY
 * (run, annotate or pipeline) runs one command.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../src/util/random.js';
import { annotateTarget, crashTrial, pipelineTarget, runTarget, runToEnd, type CliEntry, type CrashTarget, type KillPoint, type TrialResult } from '../test/helpers/crash-matrix.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const POINTS = Number(process.env.GSR_CRASH_POINTS ?? 30);

/** Kill points by item count, spread over 1..total-1 (half of them). */
function itemPoints(totalItems: number): KillPoint[] {
  const n = Math.ceil(POINTS / 2);
  return Array.from({ length: n }, (_, i) => ({ items: 1 + Math.floor((i * (totalItems - 1)) / n) }));
}

/**
 * Runs the item-count points, then seeded random times within the reference run's first 80% until
 * POINTS trials in all killed the command mid-run (a random time after the command finished is
 * counted as not killed and another is drawn; at most 2 x POINTS trials).
 */
async function matrix(target: CrashTarget, totalItems: number, seed: number, entry: CliEntry) {
  try {
    target.reset();
    const refMs = await runToEnd(target, entry);
    const reference = await target.snapshot();
    const results: TrialResult[] = [];
    const rnd = seededRandom(seed);
    const points = itemPoints(totalItems);
    while (results.filter((r) => r.killed).length < POINTS && results.length < 2 * POINTS) {
      const point = points.shift() ?? { ms: Math.round(rnd() * 0.8 * refMs) };
      results.push(await crashTrial(target, point, reference, entry));
      process.stderr.write(`crash ${target.name}: ${results.filter((r) => r.killed).length}/${POINTS} killed, ${results.length} trials\n`);
    }
    const killed = results.filter((r) => r.killed);
    return {
      reference_run_ms: refMs,
      reference_files: reference.size,
      trials: results.length,
      killed_mid_run: killed.length,
      killed_by_item_count: killed.filter((r) => 'items' in r.point).length,
      killed_at_random_time: killed.filter((r) => 'ms' in r.point).length,
      identical_after_resume: results.filter((r) => r.identical).length,
      different: results.filter((r) => !r.identical).map((r) => ({ point: r.point, difference: r.difference })),
      progress_at_kill: killed.map((r) => r.progressAtKill),
    };
  } finally {
    await target.close?.();
  }
}

export default async function crashBench(): Promise<Record<string, unknown>> {
  const entry: CliEntry = existsSync(join(root, 'dist', 'cli', 'main.js')) ? 'dist' : 'tsx';
  const dir = await mkdtemp(join(tmpdir(), 'gsr-crash-bench-'));
  try {
    const load = loadavg()[0];
    const only = process.env.GSR_CRASH_ONLY;
    const figures: Record<string, unknown> = { note: 'machine shared with other engineers', cli: entry, load_average_at_start: +load.toFixed(1) };
    if (!only || only === 'run') figures.run_200_prompts = await matrix(await runTarget(dir, 200), 200, 1, entry);
    if (!only || only === 'annotate') figures.annotate_60_images = await matrix(await annotateTarget(dir, 2), 60, 2, entry);
    if (!only || only === 'pipeline') figures.pipeline_demo_12_scenes = await matrix(pipelineTarget(dir, 12), 7, 3, entry);
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
