/**
 * The concurrency matrix with the real CLI: 2-8 copies of `gsr pipeline run` (the demo), `gsr annotate`
 * and `gsr run` started at once on one output, several rounds each. Pipeline and annotate: exactly one
 * copy does the work, the others are refused with the lock message (or, started after it finished,
 * find nothing to do); the final outputs equal an uninterrupted run's, and `gsr pipeline status`
 * calls the folder complete only then. Run: the copies share the prompts, each prompt is answered once.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { annotateTarget, pipelineTarget, runTarget, runToEnd, type CliEntry, type CrashTarget } from '../test/helpers/crash-matrix.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.GSR_CONCURRENCY_ROUNDS ?? 2);

function startCopy(entry: CliEntry, target: CrashTarget, args = target.args) {
  const argv = entry === 'dist' ? [join(root, 'dist', 'cli', 'main.js')] : ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];
  const child = spawn(process.execPath, [...argv, ...args], { cwd: root, env: { ...process.env, GSR_PROGRESS: '0', ...target.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) => child.on('close', (code) => resolve({ code, out })));
}

async function matrix(target: CrashTarget, entry: CliEntry, worked: (out: string) => boolean, exclusive: boolean, answers?: number) {
  try {
    target.reset();
    await runToEnd(target, entry);
    const reference = await target.snapshot();
    const rounds: Array<Record<string, unknown>> = [];
    for (let k = 2; k <= 8; k++) {
      for (let r = 0; r < ROUNDS; r++) {
        target.reset();
        const results = await Promise.all(Array.from({ length: k }, () => startCopy(entry, target)));
        const refused = results.filter((x) => x.code !== 0 && / is in use by /.test(x.out)).length;
        const failedOtherwise = results.filter((x) => x.code !== 0 && !/ is in use by /.test(x.out)).map((x) => x.out.slice(-300));
        const didWork = results.filter((x) => x.code === 0 && worked(x.out)).length;
        // A refused copy must leave a complete output behind it: the final outputs equal the reference.
        const snap = await target.snapshot();
        const identical = [...reference].every(([p, t]) => snap.get(p) === t) && snap.size === reference.size;
        rounds.push({ copies: k, answered: target.progress(), exit0: results.filter((x) => x.code === 0).length, did_work: didWork, refused, failed_otherwise: failedOtherwise, identical_to_reference: identical });
        process.stderr.write(`concurrency ${target.name}: ${k} copies, round ${r + 1}\n`);
      }
    }
    const bad = rounds.filter((x) => !x.identical_to_reference || (x.failed_otherwise as string[]).length > 0 || (exclusive && (x.did_work as number) !== 1) || (answers !== undefined && x.answered !== answers));
    return { rounds: rounds.length, copies_started: rounds.reduce((n, x) => n + (x.copies as number), 0), bad_rounds: bad.length, detail: rounds };
  } finally {
    await target.close?.();
  }
}

export default async function concurrencyBench(): Promise<Record<string, unknown>> {
  const entry: CliEntry = existsSync(join(root, 'dist', 'cli', 'main.js')) ? 'dist' : 'tsx';
  const dir = await mkdtemp(join(tmpdir(), 'gsr-concurrency-bench-'));
  try {
    const load = loadavg()[0];
    // Work done: pipeline prints "N ran" with N > 0; annotate reports images processed; run answers shared.
    const pipeline = await matrix(pipelineTarget(dir, 6), entry, (out) => /\b[1-9]\d* ran\b/.test(out), true);
    const annotate = await matrix(await annotateTarget(dir, 1), entry, (out) => !/resuming: 30 images already finished/.test(out), true);
    const run = await matrix(await runTarget(dir, 120), entry, () => true, false, 120);
    return { note: 'machine shared with other engineers', cli: entry, load_average_at_start: +load.toFixed(1), rounds_per_copy_count: ROUNDS, pipeline_demo_6_scenes: pipeline, annotate_30_images: annotate, run_120_prompts: run };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
