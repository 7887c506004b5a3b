/**
 * The network fault matrix at full size (test/helpers/fault-matrix.ts; test/queue/faults.test.ts runs
 * it small in npm test): a worker partitioned from Redis past its job lock (connections reset on
 * healing, and bytes delivered late), an endpoint that accepts and never answers, slow links (200 ms
 * each way, 1 MB/s) while depth PNGs travel, and a Redis failover to a replica with prompts in flight.
 * Each scenario reports items lost and duplicated (both must be 0), whether the outputs equal a local
 * run byte for byte, and its times; a scenario that breaks one of these sets a failing exit code.
 * Default size 64 images and 1,000 prompts; GSR_FAULT_IMAGES, GSR_FAULT_PROMPTS and GSR_FAULT_SLOW_IMAGES
 * (the slow links', at most 32 by default) override it, and 500 / 20,000 / 500 is the queue's
 * acceptance size (docs/scale-out.md). GSR_FAULT_ONLY (partition, stall, slow, failover) runs one scenario.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisFailover, slowLink, stalledEndpoint, workerPartition, type FaultFigures } from '../test/helpers/fault-matrix.js';
import { redisUnavailable } from '../test/helpers/redis.js';

const IMAGES = Number(process.env.GSR_FAULT_IMAGES ?? 64);
const PROMPTS = Number(process.env.GSR_FAULT_PROMPTS ?? 1000);
// Every depth PNG crosses the slow links twice, so this scenario is the longest per image.
const SLOW_IMAGES = Number(process.env.GSR_FAULT_SLOW_IMAGES ?? Math.min(IMAGES, 32));
const bounds = { runMs: 1_200_000, stopMs: 120_000 };

export default async function faultsBench(): Promise<Record<string, unknown>> {
  const skip = redisUnavailable();
  if (skip) throw new Error(`the fault matrix needs redis-server: ${skip}`);
  const base = await mkdtemp(join(tmpdir(), 'gsr-faults-bench-'));
  const only = process.env.GSR_FAULT_ONLY;
  const figures: Record<string, unknown> = { note: 'machine shared with other engineers', load_average_at_start: +loadavg()[0].toFixed(1) };
  const scenarios: Array<[string, string, (dir: string) => Promise<FaultFigures>]> = [
    ['partition', 'partition_reset', (d) => workerPartition(d, { images: IMAGES, shard: 4, lockMs: 2000, partitionMs: 8000, cut: true, bounds })],
    ['partition', 'partition_late', (d) => workerPartition(d, { images: IMAGES, shard: 4, lockMs: 2000, partitionMs: 8000, cut: false, bounds })],
    ['stall', 'stalled_endpoint', (d) => stalledEndpoint(d, { prompts: PROMPTS, stallMs: 10_000, timeoutMs: 2000, bounds })],
    ['slow', 'slow_link', (d) => slowLink(d, { images: SLOW_IMAGES, shard: 4, latencyMs: 200, bytesPerSecond: 1_000_000, bounds })],
    ['failover', 'redis_failover', (d) => redisFailover(d, { prompts: PROMPTS, bounds })],
  ];
  try {
    for (const [kind, name, run] of scenarios) {
      if (only && only !== kind) continue;
      process.stderr.write(`faults: ${name} ...\n`);
      try {
        const f = await run(join(base, name));
        figures[name] = f;
        if (f.lost !== 0 || f.duplicated !== 0 || !f.identical) process.exitCode = 1;
        // A run against an endpoint stalled for good must end within its bound (plus 3 s of start-up), as in test/queue/faults.test.ts.
        const stalled = f.stalled_for_good as { elapsed_ms: number; bound_ms: number } | undefined;
        if (stalled && stalled.elapsed_ms > stalled.bound_ms + 3000) process.exitCode = 1;
      } catch (err) {
        figures[name] = { error: (err as Error).message.slice(0, 2000) };
        process.exitCode = 1;
      }
    }
    return figures;
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
