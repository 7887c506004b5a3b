/**
 * ET-Plan-Bench throughput. Generation: procedural apartments per CPU second (generate, check,
 * load into the engine), and tasks per CPU second for each family on those apartments (candidates,
 * ground truth, oracle search, executability filter); with ../shared, the same on VirtualHome's 7
 * released graphs. Rates are per CPU second of this process (less disturbed by other load on a shared
 * machine than wall time); wall rates too. The engine's own figures are in et-plan-engine.bench.ts.
 *
 * Episodes: the episode loop (src/benchmarks/episodes.ts) on generated tasks (GSR_BENCH_ETPLAN_APARTMENTS
 * apartments, default 4, and GSR_BENCH_ETPLAN_COUNT tasks per family and apartment, default 10) against
 * the fake OpenAI-compatible endpoint (test/mllm/fake-server.ts, in this process, no added latency)
 * answering with a deterministic stand-in agent (test/benchmarks/et-plan/fake-agent.ts), every step
 * through the HTTP client and the run store: episodes and steps per second, fresh and replayed from the
 * store (a resumed run); then the baselines without an endpoint.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg, tmpdir } from 'node:os';
import { readVhGraph } from '../src/formats/vh-graph.js';
import { EngineGraph } from '../src/benchmarks/et-plan/engine/index.js';
import { Scene, generateFamily } from '../src/benchmarks/et-plan/generate.js';
import { buildApartment } from '../src/benchmarks/et-plan/synth.js';
import { ET_PLAN_FAMILIES, type EtPlanItem } from '../src/benchmarks/et-plan/task.js';
import { SCENES } from '../test/benchmarks/et-plan/fixtures.js';
import { sharedPath } from '../test/helpers/shared.js';
import '../src/benchmarks/index.js';
import { runEpisodes } from '../src/benchmarks/episodes.js';
import { etPlan, etPlanEpisodes } from '../src/benchmarks/et-plan/index.js';
import { generateBenchmark, loadItemSet } from '../src/benchmarks/run.js';
import { createOpenAiAnswerer, RunStore, StoredAsker } from '../src/mllm/index.js';
import { fakeAgentReply } from '../test/benchmarks/et-plan/fake-agent.js';
import { startFakeServer } from '../test/mllm/fake-server.js';

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

type Run = Awaited<ReturnType<typeof runEpisodes>>;

function rates(r: Run, seconds: number, cpu: NodeJS.CpuUsage) {
  return {
    episodes: r.summary.episodes,
    steps: r.summary.steps,
    seconds: +seconds.toFixed(2),
    episodes_per_second: +(r.summary.episodes / seconds).toFixed(1),
    steps_per_second: +(r.summary.steps / seconds).toFixed(0),
    cpu_ms_per_step: +((cpu.user + cpu.system) / 1000 / Math.max(1, r.summary.steps)).toFixed(3),
    requests: r.summary.requests,
    cached: r.summary.cached,
    successes: r.summary.successes,
  };
}

async function timed(run: () => Promise<Run>) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await run();
  return rates(r, (performance.now() - t0) / 1000, process.cpuUsage(cpu0));
}

/** The episodes section: the loop against the fake endpoint, fresh and replayed, then the baselines. */
export async function episodes() {
  const dir = await mkdtemp(join(tmpdir(), 'gsr-etplan-bench-'));
  const server = await startFakeServer({ reply: (text) => fakeAgentReply(text) });
  try {
    const apartments = Number(process.env.GSR_BENCH_ETPLAN_APARTMENTS ?? 4);
    const count = Number(process.env.GSR_BENCH_ETPLAN_COUNT ?? 10);
    await generateBenchmark('et-plan', { apartments, count, seed: 3 }, join(dir, 'items'));
    const set = await loadItemSet(join(dir, 'items'));
    const items = set.items as Map<string, EtPlanItem>;
    const start = await etPlanEpisodes.prepare(items, etPlanEpisodes.parseSettings({}), set.context);
    const concurrency = 8;
    const store = RunStore.open(join(dir, 'store.sqlite'));
    const answerer = createOpenAiAnswerer({ model: 'fake', baseUrl: server.url });
    const asker = new StoredAsker({ store, answerer, settings: { answerer: 'openai', model: 'fake', temperature: 0 } });
    const model = () => runEpisodes({ benchmark: etPlan, items, start, model: 'fake', actor: { asker }, concurrency });
    const fresh = await timed(model);
    const replayed = await timed(model);
    store.close();
    const baselines: Record<string, unknown> = {};
    for (const kind of ['oracle', 'greedy', 'random', 'always-first']) {
      const policy = etPlanEpisodes.policies[kind](items, { name: kind, seed: 1 });
      baselines[kind] = await timed(() => runEpisodes({ benchmark: etPlan, items, start, model: kind, actor: { policy }, concurrency }));
    }
    return { tasks: `${items.size} generated tasks on ${apartments} apartments`, concurrency, fake_endpoint: { fresh, replayed_from_store: replayed }, baselines };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export default async function () {
  return { load_average: loadavg()[0], generation: await generation(), episodes: await episodes() };
}
