/**
 * The crash matrix at full size: for `gsr run`, `gsr annotate` and `gsr pipeline run` (the demo), at
 * least 100 kills each at seeded random times (for the pipeline, half of them at a random time inside
 * a random stage), `kill -9`, resume, and compare the final outputs with an uninterrupted run,
 * timestamps aside (test/helpers/crash-matrix.ts). Runs the built CLI (`npm run build` first) when
 * dist/ is there, else from source. GSR_CRASH_POINTS sets the kills per command, GSR_CRASH_SEED the
 * seed (each command adds its index), GSR_CRASH_ONLY (run, annotate or pipeline) runs one command.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../src/util/random.js';
import { annotateTarget, crashTrial, pipelineTarget, randomKillPoints, runTarget, runToEnd, type CliEntry, type CrashTarget, type TrialResult } from '../test/helpers/crash-matrix.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const POINTS = Number(process.env.GSR_CRASH_POINTS ?? 100);
const SEED = Number(process.env.GSR_CRASH_SEED ?? 20261202);

/**
 * Seeded random kill points until POINTS trials killed the command mid-run (a point after the
 * command finished counts as not killed and another is drawn; at most 2 x POINTS trials). Times are
 * drawn against the current length of a full run, not the reference's alone: a first run is slowed by
 * cold caches and the machine's load changes, so the estimate starts from a second, warm run and
 * takes the length of every trial that finished before its kill point.
 */
async function matrix(target: CrashTarget, seed: number, entry: CliEntry) {
  try {
    target.reset();
    const coldMs = await runToEnd(target, entry);
    target.reset();
    const refMs = await runToEnd(target, entry);
    const reference = await target.snapshot();
    let fullMs = refMs;
    const results: TrialResult[] = [];
    const rnd = seededRandom(seed);
    const started = Date.now();
    while (results.filter((r) => r.killed).length < POINTS && results.length < 2 * POINTS) {
      const [point] = randomKillPoints(target, fullMs, rnd, 1);
      const r = await crashTrial(target, point, reference, entry);
      results.push(r);
      if (!r.killed) fullMs = r.firstRunMs;
      if (!r.identical) process.stderr.write(`crash ${target.name}: DIFFERENT after a kill at ${JSON.stringify(point)} (seed ${seed}): ${r.difference}\n`);
      process.stderr.write(`crash ${target.name}: ${results.filter((x) => x.killed).length}/${POINTS} killed, ${results.length} trials\n`);
    }
    const killed = results.filter((r) => r.killed);
    const different = results.filter((r) => !r.identical).map((r) => ({ point: r.point, difference: r.difference }));
    if (different.length > 0) process.exitCode = 1;
    return {
      seed,
      first_run_ms: coldMs,
      reference_run_ms: refMs,
      full_run_ms_at_end: fullMs,
      reference_files: reference.size,
      trials: results.length,
      killed_mid_run: killed.length,
      killed_inside_a_stage: killed.filter((r) => 'appears' in r.point).length,
      identical_after_resume: results.filter((r) => r.identical).length,
      different,
      kill_points: killed.map((r) => r.point),
      progress_at_kill: killed.map((r) => r.progressAtKill),
      minutes: +((Date.now() - started) / 60_000).toFixed(1),
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
    if (!only || only === 'run') figures.run_200_prompts = await matrix(await runTarget(dir, 200), SEED, entry);
    if (!only || only === 'annotate') figures.annotate_32_images = await matrix(await annotateTarget(dir, 32), SEED + 1, entry);
    if (!only || only === 'pipeline') figures.pipeline_demo_12_scenes = await matrix(pipelineTarget(dir, 12), SEED + 2, entry);
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
