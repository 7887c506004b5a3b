/**
 * ET-Plan-Bench episode throughput: the episode loop (src/benchmarks/episodes.ts) against the fake
 * OpenAI-compatible endpoint (test/mllm/fake-server.ts, no added latency) answering with a
 * deterministic stand-in agent (test/benchmarks/et-plan/fake-agent.ts), every step through the HTTP
 * client and the run store: episodes and steps per second, fresh and replayed from the store (a
 * resumed run), then the baselines without an endpoint. Tasks: the hand-written fixture tasks on the
 * test apartment, GSR_BENCH_ETPLAN_COPIES times over (default 40: 280 episodes).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import '../src/benchmarks/index.js';
import { runEpisodes } from '../src/benchmarks/episodes.js';
import { etPlan, etPlanEpisodes } from '../src/benchmarks/et-plan/index.js';
import type { EtPlanItem } from '../src/benchmarks/et-plan/task.js';
import { loadItemSet } from '../src/benchmarks/run.js';
import { createOpenAiAnswerer, RunStore, StoredAsker } from '../src/mllm/index.js';
import { fakeAgentReply } from '../test/benchmarks/et-plan/fake-agent.js';
import { writeFixtureItemSet } from '../test/benchmarks/et-plan/fixture-items.js';
import { startFakeServer } from '../test/mllm/fake-server.js';

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

export default async function etPlanBench(): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'gsr-etplan-bench-'));
  const server = await startFakeServer({ reply: (text) => fakeAgentReply(text) });
  const copies = Number(process.env.GSR_BENCH_ETPLAN_COPIES ?? 40);
  try {
    await writeFixtureItemSet(join(dir, 'items'), copies);
    const set = await loadItemSet(join(dir, 'items'));
    const items = set.items as Map<string, EtPlanItem>;
    const start = await etPlanEpisodes.prepare(items, etPlanEpisodes.parseSettings({}), null);
    const load = loadavg()[0];
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
    return {
      tasks: `fixture tasks on the test apartment x ${copies}`,
      concurrency,
      fake_endpoint: { fresh, replayed_from_store: replayed },
      baselines,
      load_average_1m_at_start: +load.toFixed(2),
    };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
