/**
 * Optional wall-time totals per named stage (decode, a model's pre-processing, its inference, ...),
 * for bench/annotate-real.bench.ts. Off (one undefined check per call) unless a clock is set.
 * Stages of different images may overlap (decoding runs ahead), so totals can exceed the wall time.
 */
export interface StageTotals {
  /** Milliseconds and calls per stage name. */
  [stage: string]: { ms: number; calls: number };
}

let totals: StageTotals | undefined;

/** Starts recording into a fresh table (and returns it), or stops recording with `false`. */
export function recordStages(on: boolean): StageTotals | undefined {
  totals = on ? {} : undefined;
  return totals;
}

function add(stage: string, ms: number): void {
  const t = (totals![stage] ??= { ms: 0, calls: 0 });
  t.ms += ms;
  t.calls++;
}

/** Runs `fn`, adding its time to `stage` when recording. */
export function timeStage<T>(stage: string, fn: () => T): T {
  if (!totals) return fn();
  const start = performance.now();
  try {
    return fn();
  } finally {
    add(stage, performance.now() - start);
  }
}

/** Awaits `fn`, adding its time (to settling) to `stage` when recording. */
export async function timeStageAsync<T>(stage: string, fn: () => Promise<T>): Promise<T> {
  if (!totals) return fn();
  const start = performance.now();
  try {
    return await fn();
  } finally {
    add(stage, performance.now() - start);
  }
}
