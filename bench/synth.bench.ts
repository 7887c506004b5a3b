/**
 * Synthetic scene rate at 640x480 through the whole `gsr dataset synth` path (render, check, RLE,
 * depth statistics, JPEG + 16-bit PNG encoding, atomic writes), with the default worker threads
 * and in-process, plus CPU time per scene (all threads), which other load on the machine disturbs less.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthesizeDataset } from '../src/datasets/index.js';

async function timed(out: string, count: number, workers: number | undefined) {
  const cpu0 = process.cpuUsage();
  const r = await synthesizeDataset({ out, count, seed: 7, width: 640, height: 480, workers });
  const cpu = process.cpuUsage(cpu0);
  return {
    scenes_per_second: +r.scenesPerSecond.toFixed(1),
    seconds: +r.seconds.toFixed(2),
    cpu_ms_per_scene: +((cpu.user + cpu.system) / 1000 / count).toFixed(1),
    resampled_scenes: r.resampled,
  };
}

export default async function synthBench(): Promise<Record<string, unknown>> {
  const count = Number(process.env.GSR_BENCH_SYNTH_COUNT ?? 300);
  const dir = await mkdtemp(join(tmpdir(), 'gsr-synth-bench-'));
  try {
    await synthesizeDataset({ out: join(dir, 'warmup'), count: 30, seed: 1, workers: 0 });
    const load = loadavg()[0];
    const workers = await timed(join(dir, 'workers'), count, undefined);
    // A short run with the same fixed costs (worker start-up, final JSON writes) gives the steady rate.
    const short = Math.max(10, Math.round(count / 5));
    const workersShort = await timed(join(dir, 'workers-short'), short, undefined);
    const inProcess = await timed(join(dir, 'in-process'), Math.min(count, 150), 0);
    return {
      width: 640,
      height: 480,
      scenes: count,
      scenes_per_second: workers.scenes_per_second,
      target_scenes_per_second: 50,
      default_workers: workers,
      default_workers_marginal_scenes_per_second: +((count - short) / (workers.seconds - workersShort.seconds)).toFixed(1),
      in_process: inProcess,
      load_average_1m_at_start: +load.toFixed(2),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
