/**
 * The crash matrix at full size: for `gsr run`, `gsr annotate` and `gsr pipeline run` (the demo), at
 * least 30 kill points each, by count of completed items and at seeded random times within the
 * reference run, `kill -9`, resume, and compare the final outputs with an uninterrupted run,
 * timestamps aside (test/helpers/crash-matrix.ts). Runs the built CLI (`npm run build` first) when
 * dist/ is there, else from source. GSR_CRASH_POINTS overrides the points per command.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../src/analysis/random.js';
import { annotateTarget, crashTrial, pipelineTarget, runTarget, runToEnd, type CliEntry, type CrashTarget, type KillPoint, type TrialResult } from '../test/helpers/crash-matrix.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const POINTS = Number(process.env.GSR_CRASH_POINTS ?? 30);

/** Half the points by item count, spread over 1..total-1; the rest at seeded random times in the reference run. */
function killPoints(totalItems: number, refMs: number, seed: number): KillPoint[] {
  const byItems = Math.ceil(POINTS / 2);
  const points: KillPoint[] = [];
  for (let i = 0; i < byItems; i++) points.push({ items: 1 + Math.floor((i * (totalItems - 1)) / byItems) });
  const rnd = seededRandom(seed);
  while (points.length < POINTS) points.push({ ms: Math.round(rnd() * refMs) });
  return points;
}

async function matrix(target: CrashTarget, totalItems: number, seed: number, entry: CliEntry) {
  try {
    target.reset();
    const refMs = await runToEnd(target, entry);
    const reference = await target.snapshot();
    const results: TrialResult[] = [];
    for (const p of killPoints(totalItems, refMs, seed)) {
      results.push(await crashTrial(target, p, reference, entry));
      process.stderr.write(`crash ${target.name}: ${results.length}/${POINTS}\n`);
    }
    const killed = results.filter((r) => r.killed);
    return {
      reference_run_ms: refMs,
      reference_files: reference.size,
      kill_points: results.length,
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
    const run = await matrix(await runTarget(join(dir), 200), 200, 1, entry);
    const annotate = await matrix(await annotateTarget(dir, 2), 32, 2, entry);
    const pipeline = await matrix(pipelineTarget(dir, 12), 7, 3, entry);
    return { note: 'machine shared with other engineers', cli: entry, load_average_at_start: +load.toFixed(1), run_200_prompts: run, annotate_32_images: annotate, pipeline_demo_12_scenes: pipeline };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
