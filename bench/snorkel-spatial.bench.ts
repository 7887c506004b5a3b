/**
 * SnorkelSpatial generation rate through the `gsr dataset synth snorkel-spatial` path (draw, replay with
 * the oracle, atomic items.jsonl and context.json writes): the published mix (10 to 200 actions) and
 * 200 actions only, against the 200 items/s target. Beside it, as anchors: the oracle replay alone and
 * building the prompts, over the same items.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import '../src/benchmarks/index.js';
import { generateBenchmark } from '../src/benchmarks/run.js';
import { generateSnorkelItems } from '../src/benchmarks/snorkel-spatial/generate.js';
import { oracleAnswer } from '../src/benchmarks/snorkel-spatial/item.js';
import { buildSnorkelPrompts } from '../src/benchmarks/snorkel-spatial/prompts.js';

function rate(n: number, ms: number) {
  return { items: n, seconds: +(ms / 1000).toFixed(3), items_per_second: Math.round(n / (ms / 1000)) };
}

async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

export default async function snorkelBench(): Promise<Record<string, unknown>> {
  const count = Number(process.env.GSR_BENCH_SNORKEL_COUNT ?? 5000);
  const dir = await mkdtemp(join(tmpdir(), 'gsr-snorkel-bench-'));
  try {
    await generateBenchmark('snorkel-spatial', { count: 200, seed: 1 }, join(dir, 'warmup'));
    const load = loadavg()[0];
    const mix = await timed(() => generateBenchmark('snorkel-spatial', { count, seed: 7 }, join(dir, 'mix')));
    const longest = await timed(() => generateBenchmark('snorkel-spatial', { count, seed: 7, actions: [200] }, join(dir, 'a200')));
    const items = generateSnorkelItems({ count, seed: 7 }).items;
    const replay = await timed(() => items.map(oracleAnswer));
    const prompts = await timed(() => items.map((i) => buildSnorkelPrompts(i)));
    return {
      target_items_per_second: 200,
      published_mix: { actions: [10, 20, 50, 100, 200], ...rate(count, mix.ms) },
      actions_200: rate(count, longest.ms),
      anchor_oracle_replay_only: rate(count, replay.ms),
      anchor_prompt_building: rate(count, prompts.ms),
      load_average_1m_at_start: +load.toFixed(2),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
