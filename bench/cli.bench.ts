/**
 * CLI start-up (docs/cli.md, "Start-up"): `gsr --version`, `gsr --help` and a few commands' `--help`,
 * each started many times from the build (dist/, `npx tsc -p tsconfig.build.json` first). Per case:
 * wall time (the parent's clock around the child), the child's own CPU time (user + system) and its
 * peak RSS, as medians and 90th percentiles. The targets are for wall time on an idle machine; on a
 * loaded one CPU time says more, so the load average is recorded beside them.
 *
 * Flags: `--runs=N` (default 20); `--anchor=PATH` also times another build's main.js (e.g. a copy of
 * main's dist/) the same way, interleaved run by run so both see the same load.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const probe = join(root, 'bench', 'cli-probe.mjs');
const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag('runs') ?? 20);
const ANCHOR = flag('anchor');

/** Targets for wall time, ms (issue 29). */
const TARGETS: Record<string, number> = { '--version': 300, '--help': 500 };
const CASES = [['--version'], ['--help'], ['annotate', 'run', '--help'], ['score', 'reasoning', '--help'], ['pipeline', 'run', '--help'], ['run', '--help']];

interface Sample {
  wall_ms: number;
  cpu_ms: number;
  rss_mb: number;
}

function once(main: string, args: string[], out: string): Sample {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--import', probe, main, ...args], { env: { ...process.env, GSR_PROBE_OUT: out, GSR_PROGRESS: '0' }, encoding: 'utf8' });
  const wall = performance.now() - started;
  if (r.status !== 0) throw new Error(`${main} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const usage = JSON.parse(readFileSync(out, 'utf8')) as { userCPUTime: number; systemCPUTime: number; maxRSS: number };
  return { wall_ms: wall, cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000, rss_mb: usage.maxRSS / 1024 };
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) * q;
  return s[Math.floor(h)]! + (h - Math.floor(h)) * (s[Math.ceil(h)]! - s[Math.floor(h)]!);
}

function summary(samples: Sample[]) {
  const of = (k: keyof Sample, q: number) => Number(quantile(samples.map((s) => s[k]), q).toFixed(1));
  return { wall_ms: { median: of('wall_ms', 0.5), p90: of('wall_ms', 0.9) }, cpu_ms: { median: of('cpu_ms', 0.5), p90: of('cpu_ms', 0.9) }, rss_mb: { median: of('rss_mb', 0.5) } };
}

export default async function bench() {
  const main = join(root, 'dist', 'cli', 'main.js');
  if (!existsSync(main)) throw new Error('dist/cli/main.js not found: build first (npx tsc -p tsconfig.build.json)');
  if (ANCHOR && !existsSync(ANCHOR)) throw new Error(`--anchor ${ANCHOR}: not found`);
  const dir = mkdtempSync(join(tmpdir(), 'gsr-cli-bench-'));
  const load = { before: loadavg().map((v) => Number(v.toFixed(2))), after: [] as number[] };
  const cases: Record<string, unknown> = {};
  try {
    for (const args of CASES) {
      const name = args.join(' ');
      const here: Sample[] = [];
      const anchor: Sample[] = [];
      once(main, args, join(dir, 'warm.json')); // the file cache, not the measurement
      for (let i = 0; i < RUNS; i++) {
        here.push(once(main, args, join(dir, 'p.json')));
        if (ANCHOR) anchor.push(once(ANCHOR, args, join(dir, 'p.json')));
      }
      const s = summary(here);
      const target = TARGETS[name];
      cases[name] = {
        ...s,
        ...(target ? { target_wall_ms: target, meets_target_wall: s.wall_ms.median < target, meets_target_cpu: s.cpu_ms.median < target } : {}),
        ...(ANCHOR ? { anchor: summary(anchor) } : {}),
      };
      process.stderr.write(`  ${name}: wall ${s.wall_ms.median} ms, cpu ${s.cpu_ms.median} ms, rss ${s.rss_mb.median} MB${ANCHOR ? ` (anchor: wall ${summary(anchor).wall_ms.median} ms, cpu ${summary(anchor).cpu_ms.median} ms)` : ''}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  load.after = loadavg().map((v) => Number(v.toFixed(2)));
  return { runs: RUNS, anchor: ANCHOR ?? null, load_average_1_5_15: load, cases };
}
