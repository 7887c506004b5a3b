/**
 * The demo pipeline (pipelines/demo.yaml) end to end: first run and an unchanged second run,
 * in-process and, when dist/ is built, as `node dist/cli/main.js` (what `npm start` runs), plus the
 * geometric baseline's CircularEval on a larger set of synthetic scenes with exact annotations.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPipeline } from '../src/pipeline/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const quiet = { log: () => {}, env: { ...process.env, GSR_BASE_URL: '', GSR_MODEL: '' } };

/** Wall seconds, and CPU seconds of this process (worker threads included: the renderer's). */
async function timedRun(file: string, out: string) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const r = await runPipeline(file, { ...quiet, out });
  const used = process.cpuUsage(cpu);
  return { seconds: +((performance.now() - t) / 1000).toFixed(2), cpu_seconds: +((used.user + used.system) / 1e6).toFixed(2), ran: r.stages.filter((s) => s.status === 'ran').length, result: r };
}

function timedCli(args: string[]) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'dist', 'cli', 'main.js'), ...args], { cwd: root, env: { ...quiet.env, GSR_PROGRESS: '0' }, encoding: 'utf8' });
  return { seconds: +((performance.now() - t) / 1000).toFixed(2), status: r.status };
}

export default async function pipelineBench(): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'gsr-pipeline-bench-'));
  try {
    const demo = join(root, 'pipelines', 'demo.yaml');
    const load = loadavg()[0];
    const first = await timedRun(demo, join(dir, 'demo'));
    const second = await timedRun(demo, join(dir, 'demo'));
    const figures: Record<string, unknown> = {
      load_average_at_start: +load.toFixed(1),
      demo_first_run_s: first.seconds,
      demo_first_run_cpu_s: first.cpu_seconds,
      demo_first_run_stage_s: Object.fromEntries(first.result.stages.map((s) => [s.name, +s.seconds.toFixed(2)])),
      demo_second_run_s: second.seconds,
      demo_second_run_stages_ran: second.ran,
      demo_rows: first.result.rows,
      demo_label_noise: first.result.label_noise,
      load_average_at_end: +loadavg()[0].toFixed(1),
    };
    if (existsSync(join(root, 'dist', 'cli', 'main.js'))) {
      figures.cli_first_run_s = timedCli(['pipeline', 'run', demo, '--out', join(dir, 'cli')]).seconds;
      figures.cli_second_run_s = timedCli(['pipeline', 'run', demo, '--out', join(dir, 'cli')]).seconds;
      figures.cli_version_s = timedCli(['--version']).seconds;
    }
    // Geometric baseline on more scenes (exact annotations): CircularEval per task and relation.
    const count = Number(process.env.GSR_BENCH_GEOMETRIC_SCENES ?? 300);
    const big = join(dir, 'geometric.yaml');
    const text = (await readFile(demo, 'utf8'))
      .replace(/count: \d+/, `count: ${count}`)
      .replace(/out: .*/, `out: ${join(dir, 'geometric')}`)
      .replace(/source: models\b/, 'source: exact')
      .replace(/: \.\.\//g, `: ${root}`);
    await writeFile(big, text);
    const g = await timedRun(big, join(dir, 'geometric'));
    const reasoning = JSON.parse(await readFile(join(dir, 'geometric', 'score', 'geometric', 'reasoning.json'), 'utf8'));
    figures.geometric = {
      scenes: count,
      pipeline_s: g.seconds,
      tg_circular: g.result.rows.find((r) => r.model === 'geometric')?.tg,
      mc_circular: g.result.rows.find((r) => r.model === 'geometric')?.mc,
      dap_circular: g.result.rows.find((r) => r.model === 'geometric')?.dap,
      g_score: g.result.rows.find((r) => r.model === 'geometric')?.g_score,
      tg_circular_by_relation: Object.fromEntries(Object.entries(reasoning.relations as Record<string, { n: number; circular: number }>).map(([k, v]) => [k, { n: v.n, circular: v.circular }])),
    };
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
