/**
 * Synthetic scene rate at 640x480: the whole `gsr dataset synth` path (render, RLE, depth
 * statistics, JPEG + 16-bit PNG encoding, atomic writes), and rendering alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderSyntheticScene, synthesizeDataset } from '../src/datasets/index.js';

export default async function synthBench(): Promise<Record<string, unknown>> {
  const width = 640;
  const height = 480;
  const count = Number(process.env.GSR_BENCH_SYNTH_COUNT ?? 300);
  const dir = await mkdtemp(join(tmpdir(), 'gsr-synth-bench-'));
  try {
    await synthesizeDataset({ out: join(dir, 'warmup'), count: 30, seed: 1, width, height });
    const full = await synthesizeDataset({ out: join(dir, 'run'), count, seed: 7, width, height });
    const renderCount = Math.min(count, 150);
    let attempts = 0;
    const t0 = performance.now();
    for (let i = 0; i < renderCount; i++) attempts += renderSyntheticScene(7, i, width, height).attempts;
    const renderSeconds = (performance.now() - t0) / 1000;
    return {
      width,
      height,
      scenes: count,
      scenes_per_second: +full.scenesPerSecond.toFixed(1),
      seconds: +full.seconds.toFixed(2),
      resampled_scenes: full.resampled,
      render_only_scenes_per_second: +(renderCount / renderSeconds).toFixed(1),
      render_attempts_per_scene: +(attempts / renderCount).toFixed(2),
      target_scenes_per_second: 50,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
