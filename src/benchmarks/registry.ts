import { Registry } from '../util/registry.js';
import type { BenchItem } from '../formats/bench-item.js';
import type { Benchmark } from './types.js';

/** Benchmarks by name (`vsp`, ...). Plug-ins register themselves when src/benchmarks/index.ts loads. */
export const benchmarks = new Registry<Benchmark<BenchItem>>('benchmark');

/** Registers a plug-in (its item type widened to the shared shape). */
export function registerBenchmark<I extends BenchItem>(b: Benchmark<I>): void {
  if (!benchmarks.has(b.name)) benchmarks.register(b.name, b as unknown as Benchmark<BenchItem>);
}
