/**
 * ET-Plan engine throughput on one core. With ../shared present: VirtualHome's 7 released graphs,
 * replaying the reference fixtures' 1,050 step scripts (5,255 steps) as text lines: steps only,
 * with the visible set after each step, and with everything the fixtures record (visible set and
 * state diff). Without it: the project's test apartment (test/benchmarks/et-plan/apartment.ts) and
 * seeded random scripts. Then search-style figures: successor states derived from one state per
 * second, and heap bytes kept per retained state. Rates are steps per CPU second (this process,
 * all threads), which other load on a shared machine disturbs less than wall time; wall rates too.
 * The target is 20,000 steps a second; the Python reference runs about 33 a second on TestScene1
 * (load and state dump included).
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { readVhGraph } from '../src/formats/vh-graph.js';
import { EngineGraph, EngineState, ScriptRun, diffStates, executeLine, scriptLine, visibleNodes } from '../src/benchmarks/et-plan/engine/index.js';
import { Rng } from '../src/util/random.js';
import { apartment } from '../test/benchmarks/et-plan/apartment.js';
import { SCENES, readSteps } from '../test/benchmarks/et-plan/fixtures.js';
import { sharedPath } from '../test/helpers/shared.js';

const MIN_CPU_SECONDS = Number(process.env.GSR_BENCH_ETPLAN_SECONDS ?? 1.5);

type Mode = 'steps' | 'visible' | 'record';

/** Replays the scripts until MIN_CPU_SECONDS of CPU have passed; steps per CPU and wall second. */
function replay(graph: EngineGraph, scripts: string[][], mode: Mode) {
  const init = EngineState.initial(graph);
  let steps = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let cpu = 0;
  while (cpu < MIN_CPU_SECONDS) {
    for (const lines of scripts) {
      const run = new ScriptRun(init);
      for (const l of lines) {
        const before = run.state;
        run.step(l);
        if (mode !== 'steps') visibleNodes(run.state);
        if (mode === 'record') diffStates(before, run.state);
        steps++;
      }
    }
    const u = process.cpuUsage(cpu0);
    cpu = (u.user + u.system) / 1e6;
  }
  const wall = (performance.now() - t0) / 1000;
  return { steps_per_cpu_second: Math.round(steps / cpu), steps_per_wall_second: Math.round(steps / wall) };
}

/** Random scripts on a graph: a walk to a node, then a random action on it (seeded). */
function randomScripts(graph: EngineGraph, count: number, seed: number): string[][] {
  const rng = new Rng(seed);
  const verbs = ['grab', 'open', 'close', 'switchon', 'switchoff', 'sit', 'turnto', 'lookat', 'find', 'drop', 'putobjback'];
  const named = (id: number) => `<${graph.node(id)!.className}> (${id})`;
  return Array.from({ length: count }, () => {
    const lines: string[] = [];
    while (lines.length < 10) {
      const x = rng.pick(graph.ids);
      lines.push(`[walk] ${named(x)}`, `[${rng.pick(verbs)}] ${named(x)}`);
    }
    return lines;
  });
}

/** Successor states per second (a walk to every node from one state), and heap bytes per retained state. */
function searchFigures(graph: EngineGraph) {
  const s0 = EngineState.initial(graph);
  const walks = graph.ids.map((id) => scriptLine('WALK', [{ name: graph.node(id)!.className, id }]));
  let n = 0;
  const cpu0 = process.cpuUsage();
  let cpu = 0;
  while (cpu < MIN_CPU_SECONDS) {
    for (const l of walks) {
      executeLine(s0, l);
      n++;
    }
    const u = process.cpuUsage(cpu0);
    cpu = (u.user + u.system) / 1e6;
  }
  // Retained states: a random walk of 10,000 steps, every state kept.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const rng = new Rng(7);
  const kept: EngineState[] = [];
  let s = s0;
  for (let i = 0; i < 10_000; i++) {
    s = executeLine(s, walks[rng.int(0, walks.length - 1)]).state;
    kept.push(s);
  }
  gc?.();
  const bytes = (process.memoryUsage().heapUsed - heap0) / kept.length;
  return { successor_walks_per_cpu_second: Math.round(n / cpu), retained_states: kept.length, heap_bytes_per_retained_state: gc ? Math.round(bytes) : null };
}

export default async function etPlanEngineBench(): Promise<Record<string, unknown>> {
  const root = sharedPath('virtualhome');
  const load = loadavg()[0];
  const scenes: Record<string, unknown> = {};
  let graphForSearch: EngineGraph;
  if (root !== undefined) {
    let total = 0;
    const weighted = { steps: 0, visible: 0, record: 0 };
    for (const scene of SCENES) {
      const t0 = performance.now();
      const graph = new EngineGraph(await readVhGraph(join(root, 'graphs', `${scene}_graph.json`)));
      const loadMs = performance.now() - t0;
      const scripts = readSteps(root, scene).map((sc) => sc.steps.map((st) => st.line));
      const count = scripts.reduce((a, l) => a + l.length, 0);
      const figures = { steps_only: replay(graph, scripts, 'steps'), with_visible: replay(graph, scripts, 'visible'), with_visible_and_diff: replay(graph, scripts, 'record') };
      scenes[scene] = { nodes: graph.ids.length, edges: graph.edgeCount, load_ms: +loadMs.toFixed(1), scripts: scripts.length, steps: count, ...figures };
      total += count;
      // Harmonic aggregation: total steps over total time, as if all scenes were replayed once.
      weighted.steps += count / figures.steps_only.steps_per_cpu_second;
      weighted.visible += count / figures.with_visible.steps_per_cpu_second;
      weighted.record += count / figures.with_visible_and_diff.steps_per_cpu_second;
    }
    graphForSearch = new EngineGraph(await readVhGraph(join(root, 'graphs', 'TestScene1_graph.json')));
    return {
      source: 'VirtualHome TestScene1-7 with the reference fixtures step scripts (../shared/data/virtualhome)',
      target_steps_per_second: 20_000,
      python_reference_steps_per_second_testscene1: 33,
      all_scenes: {
        steps: total,
        steps_per_cpu_second: Math.round(total / weighted.steps),
        with_visible_per_cpu_second: Math.round(total / weighted.visible),
        with_visible_and_diff_per_cpu_second: Math.round(total / weighted.record),
      },
      scenes,
      search_testscene1: searchFigures(graphForSearch),
      load_average_1m_at_start: +load.toFixed(2),
    };
  }
  graphForSearch = EngineGraph.fromJson(apartment());
  const scripts = randomScripts(graphForSearch, 150, 11);
  return {
    source: 'the project test apartment (test/benchmarks/et-plan/apartment.ts), seeded random scripts; ../shared absent',
    target_steps_per_second: 20_000,
    apartment: {
      nodes: graphForSearch.ids.length,
      edges: graphForSearch.edgeCount,
      scripts: scripts.length,
      steps_only: replay(graphForSearch, scripts, 'steps'),
      with_visible: replay(graphForSearch, scripts, 'visible'),
      with_visible_and_diff: replay(graphForSearch, scripts, 'record'),
    },
    search: searchFigures(graphForSearch),
    load_average_1m_at_start: +load.toFixed(2),
  };
}
