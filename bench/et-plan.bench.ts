/**
 * ET-Plan-Bench throughput. Generation: procedural apartments per CPU second (generate, check,
 * load into the engine), and tasks per CPU second for each family on those apartments (candidates,
 * ground truth, oracle search, executability filter); with ../shared, the same on VirtualHome's 7
 * released graphs. Rates are per CPU second of this process (less disturbed by other load on a shared
 * machine than wall time); wall rates too. The engine's own figures are in et-plan-engine.bench.ts.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { readVhGraph } from '../src/formats/vh-graph.js';
import { EngineGraph } from '../src/benchmarks/et-plan/engine/index.js';
import { Scene, generateFamily } from '../src/benchmarks/et-plan/generate.js';
import { buildApartment } from '../src/benchmarks/et-plan/synth.js';
import { ET_PLAN_FAMILIES } from '../src/benchmarks/et-plan/task.js';
import { SCENES } from '../test/benchmarks/et-plan/fixtures.js';
import { sharedPath } from '../test/helpers/shared.js';

const MIN_CPU_SECONDS = Number(process.env.GSR_BENCH_ETPLAN_SECONDS ?? 1.5);
const TASKS_PER_FAMILY = 5;

/** Repeats `round` (which returns how many units it made) until MIN_CPU_SECONDS of CPU have passed. */
function rate(round: (k: number) => number) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let units = 0;
  let cpu = 0;
  for (let k = 0; cpu < MIN_CPU_SECONDS; k++) {
    units += round(k);
    const u = process.cpuUsage(cpu0);
    cpu = (u.user + u.system) / 1e6;
  }
  const wall = (performance.now() - t0) / 1000;
  return { units, per_cpu_second: +(units / cpu).toFixed(1), per_wall_second: +(units / wall).toFixed(1) };
}

/** Tasks per second of each family on some scenes (a fresh seed each round, so no two rounds repeat). */
function familyRates(scenes: Scene[]) {
  const out: Record<string, ReturnType<typeof rate>> = {};
  for (const family of ET_PLAN_FAMILIES) {
    out[family] = rate((k) => scenes.reduce((n, s, i) => n + generateFamily(s, family, TASKS_PER_FAMILY, 1000 + k, i).items.length, 0));
  }
  return out;
}

/** The generation section: apartments and tasks per second. */
export async function generation() {
  const apartments = rate((k) => {
    buildApartment(7, k, [4, 6]);
    return 1;
  });
  const scenes = [0, 1, 2].map((i) => new Scene(buildApartment(7, i, [4, 6]).engine, `apartment-${i}`, `apartment-${i}`));
  const figures: Record<string, unknown> = {
    apartments_per_second: apartments,
    tasks_per_second: familyRates(scenes),
    tasks_per_family_and_apartment: TASKS_PER_FAMILY,
  };
  const vh = sharedPath('virtualhome');
  if (vh) {
    const released = await Promise.all(SCENES.map(async (s) => new Scene(new EngineGraph(await readVhGraph(join(vh, 'graphs', `${s}_graph.json`))), s, s)));
    figures.released_graphs_tasks_per_second = familyRates(released);
  } else figures.released_graphs = 'skipped: ../shared/data/virtualhome not found';
  return figures;
}

export default async function () {
  return { load_average: loadavg()[0], generation: await generation() };
}
