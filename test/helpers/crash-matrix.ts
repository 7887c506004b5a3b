/**
 * The crash matrix: runs a writing command to the end once (the reference), then, for each kill point,
 * starts it afresh, `kill -9`s it once enough items are done (or after some milliseconds), runs it again
 * to the end and compares the final outputs with the reference, timestamps aside. Used by
 * test/security/crash-matrix.test.ts (a few points) and bench/crash.bench.ts (100 per command).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { synthesizeDataset } from '../../src/datasets/index.js';
import { RunStore } from '../../src/mllm/index.js';
import { FIXTURE_ANNOTATOR, writeFixtureModels } from './annotator-fixtures.js';
import { REPO_ROOT } from './cli.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';
import { writePrompts } from '../mllm/prompt-fixtures.js';

export interface CrashTarget {
  name: string;
  /** The output folder. */
  out: string;
  /** gsr arguments, the same for every run. */
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Items completed so far, polled while the command runs. */
  progress(): number;
  /** Final outputs, normalised: relative path -> content. */
  snapshot(): Promise<Map<string, string>>;
  /** Removes every output, so that the next run starts from nothing. */
  reset(): void;
  /**
   * Parts of the run a kill can be aimed at, read after the reference run: the path that appears
   * when the part starts (relative to `out`) and how long the part took.
   */
  parts?(): Array<{ appears: string; ms: number }>;
  close?(): Promise<void>;
}

/**
 * When to kill: once `items` are done; `ms` after the start; or `ms` after the path `appears` (relative
 * to the target's output folder, e.g. a pipeline stage's `.prompts.partial`), to aim inside one stage.
 */
export type KillPoint = { items: number } | { ms: number } | { appears: string; ms: number };

export interface TrialResult {
  point: KillPoint;
  /** False when the command finished before the point was reached. */
  killed: boolean;
  progressAtKill: number;
  identical: boolean;
  /** First differing file, when not identical. */
  difference?: string;
  /** Wall time of the first (killed or finished) run, in ms: a full run's length when not killed. */
  firstRunMs: number;
}

/** How the CLI is started: from source with tsx (tests), or the built `dist/` (bench: faster starts). */
export type CliEntry = 'tsx' | 'dist';

function start(entry: CliEntry, target: CrashTarget) {
  const argv = entry === 'dist' ? [join(REPO_ROOT, 'dist', 'cli', 'main.js')] : ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts')];
  const child = spawn(process.execPath, [...argv, ...target.args], { cwd: REPO_ROOT, env: { ...process.env, GSR_PROGRESS: '0', ...target.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
  return { child, done };
}

/** Runs the command to its end; throws unless it exits 0. Returns the wall time in ms. */
export async function runToEnd(target: CrashTarget, entry: CliEntry): Promise<number> {
  const t = Date.now();
  const r = await start(entry, target).done;
  if (r.code !== 0) throw new Error(`${target.name}: exit ${r.code ?? r.signal}: ${r.stderr.slice(-2000)}`);
  return Date.now() - t;
}

/** One kill point: fresh start, kill -9 at the point, resume to the end, compare with the reference. */
export async function crashTrial(target: CrashTarget, point: KillPoint, reference: Map<string, string>, entry: CliEntry): Promise<TrialResult> {
  target.reset();
  const t0 = Date.now();
  const run = start(entry, target);
  const state = { finished: false };
  void run.done.then(() => (state.finished = true));
  let started = 'appears' in point ? Number.POSITIVE_INFINITY : Date.now();
  const reached = () => {
    if ('items' in point) return target.progress() >= point.items;
    if ('appears' in point && started === Number.POSITIVE_INFINITY && existsSync(join(target.out, point.appears))) started = Date.now();
    return Date.now() - started >= point.ms;
  };
  while (!state.finished && !reached()) await new Promise((r) => setTimeout(r, 'items' in point ? 5 : 1));
  const progressAtKill = target.progress();
  let killed = false;
  if (!state.finished) killed = run.child.kill('SIGKILL');
  const first = await run.done;
  const firstRunMs = Date.now() - t0;
  if (!killed && first.code !== 0) throw new Error(`${target.name}: exit ${first.code}: ${first.stderr.slice(-2000)}`);
  killed = killed && first.signal === 'SIGKILL';
  await runToEnd(target, entry);
  const result = await target.snapshot();
  const difference = firstDifference(reference, result);
  return { point, killed, progressAtKill, identical: difference === undefined, difference, firstRunMs };
}

/**
 * `n` seeded random kill points for a target whose reference run took `refMs`: half at a random time
 * of the whole run, half (where the target has parts) at a random time inside a random part, 10%
 * past its reference length included, so short stages are hit as often as long ones.
 */
export function randomKillPoints(target: CrashTarget, refMs: number, rnd: () => number, n: number): KillPoint[] {
  const parts = target.parts?.() ?? [];
  return Array.from({ length: n }, () => {
    if (parts.length > 0 && rnd() < 0.5) {
      const p = parts[Math.floor(rnd() * parts.length)];
      return { appears: p.appears, ms: Math.round(rnd() * 1.1 * p.ms) };
    }
    return { ms: Math.round(rnd() * 0.95 * refMs) };
  });
}

export function firstDifference(a: Map<string, string>, b: Map<string, string>): string | undefined {
  for (const [path, text] of a) if (b.get(path) !== text) return b.has(path) ? `${path} differs` : `${path} missing`;
  for (const path of b.keys()) if (!a.has(path)) return `${path} extra`;
  return undefined;
}

const TIME_KEYS = /^(started_at|finished_at|completed_at|created|date_created|generated|date|seconds|load_seconds|elapsed_ms|latency_ms|images_per_second|since)$/;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;

function scrubTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrubTimes);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, TIME_KEYS.test(k) ? '<time>' : scrubTimes(v)]));
  return value;
}

/** File content with timestamps (and durations) replaced; JSON and JSON Lines by key, other text by pattern. */
export function normalise(path: string, bytes: Buffer): string {
  if (path.endsWith('.json') || path.endsWith('.jsonl')) {
    const text = bytes.toString('utf8');
    try {
      if (path.endsWith('.json')) return JSON.stringify(scrubTimes(JSON.parse(text)));
      return text.split('\n').map((l) => (l.trim() === '' ? l : JSON.stringify(scrubTimes(JSON.parse(l))))).join('\n');
    } catch {
      return text; // not JSON: compared as is
    }
  }
  if (/\.(html|csv|txt|md|svg)$/.test(path)) return bytes.toString('utf8').replace(ISO_TIME, '<time>');
  return bytes.toString('base64');
}

/** Every file under `dir` except those `skip` names, normalised. */
export function snapshotTree(dir: string, skip: (rel: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const rel = relative(dir, join(e.parentPath, e.name));
    if (!skip(rel)) out.set(rel, normalise(rel, readFileSync(join(dir, rel))));
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

const isLock = (rel: string) => rel.split('/').pop()!.startsWith('.gsr.lock');

/**
 * `gsr pipeline run` of the demo (pipelines/demo.yaml) with `scenes` synthetic scenes (the file's own
 * count is 60); progress counts completed stages. Engine records keep hashes and digests of files
 * that hold timestamps, so those are compared through the files themselves.
 */
export function pipelineTarget(dir: string, scenes: number): CrashTarget {
  // The copy lives elsewhere, so the file's relative paths (models, reference boxes) are made absolute.
  const yaml = readFileSync(join(REPO_ROOT, 'pipelines', 'demo.yaml'), 'utf8')
    .replace(/count: 60\b/, `count: ${scenes}`)
    .replace(/: \.\.\//g, `: ${REPO_ROOT}/`);
  if (!yaml.includes(`count: ${scenes}`)) throw new Error('pipelines/demo.yaml: scene count not found');
  const file = join(dir, 'demo.yaml');
  writeFileSync(file, yaml);
  const out = join(dir, 'out');
  const stages = ['dataset', 'annotate', 'photos', 'prompts', 'answer', 'score', 'analyze', 'report'];
  return {
    name: 'pipeline',
    out,
    args: ['pipeline', 'run', file, '--out', out],
    env: { GSR_BASE_URL: '', GSR_MODEL: '', GSR_PHOTOS_ROOT: '' },
    progress: () => stages.filter((s) => existsSync(join(out, s, '.stage.json'))).length,
    async snapshot() {
      const snap = snapshotTree(out, (rel) => isLock(rel) || rel.startsWith('.state/'));
      for (const [rel, text] of snap) {
        if (!rel.endsWith('.stage.json')) continue;
        const r = JSON.parse(text) as { hash: string; parts: Record<string, string>; digest: string; files: Array<Record<string, unknown>> };
        // The settings and code parts of the hash are compared; the inputs part holds upstream digests.
        const parts = { ...r.parts, inputs: '<inputs>' };
        snap.set(rel, JSON.stringify({ ...r, hash: '<hash>', parts, digest: '<digest>', files: r.files.map((f) => ({ path: f.path })) }));
      }
      return snap;
    },
    reset: () => rmSync(out, { recursive: true, force: true }),
    parts: () =>
      stages.filter((s) => existsSync(join(out, s, '.stage.json'))).map((s) => ({
        appears: `.${s}.partial`,
        ms: 1000 * (JSON.parse(readFileSync(join(out, s, '.stage.json'), 'utf8')) as { seconds: number }).seconds,
      })),
  };
}

/**
 * `gsr annotate` with the fixture annotator (project-made ONNX models: boxes, masks, metric depth) on
 * `images` synthetic scenes; progress counts journal `done` lines. The journal is compared too: a
 * resumed run's journal equals an uninterrupted run's, times aside.
 */
export async function annotateTarget(dir: string, images: number): Promise<CrashTarget> {
  const models = join(dir, 'models');
  writeFixtureModels(models);
  await synthesizeDataset({ out: join(dir, 'syn'), count: images, seed: 4, width: 160, height: 120, format: 'png', workers: 0 });
  const out = join(dir, 'out');
  const journal = join(out, 'journal.jsonl');
  return {
    name: 'annotate',
    out,
    args: ['annotate', '--manifest', join(dir, 'syn', 'manifest.jsonl'), '--detector', FIXTURE_ANNOTATOR.detector, '--segmenter', FIXTURE_ANNOTATOR.segmenter, '--depth', FIXTURE_ANNOTATOR.depth,
      '--models-dir', models, '--device', 'cpu', '--batch', '1', '--out', out],
    progress: () => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter((l) => l.includes('"type":"done"')).length : 0),
    snapshot: async () => snapshotTree(out, isLock),
    reset: () => rmSync(out, { recursive: true, force: true }),
  };
}

/** `gsr run` of `count` prompts against the fake endpoint (in this process); progress counts answers sent. */
export async function runTarget(dir: string, count: number): Promise<CrashTarget> {
  const server: FakeServer = await startFakeServer({ latencyMs: 10 });
  const { path } = writePrompts(dir, count);
  const store = join(dir, 'runs.sqlite');
  return {
    name: 'run',
    out: dir,
    args: ['run', '--prompts', path, '--model', 'm1', '--base-url', server.url, '--store', store, '--concurrency', '4'],
    progress: () => [...server.answered.values()].reduce((a, b) => a + b, 0),
    async snapshot() {
      const s = RunStore.open(store, { create: false });
      try {
        const rows = [...s.responses({ model: 'm1' })].sort((a, b) => a.key.localeCompare(b.key));
        return new Map([['responses', rows.map((r) => JSON.stringify(scrubTimes(r))).join('\n')]]);
      } finally {
        s.close();
      }
    },
    reset() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(store + suffix, { force: true });
      server.answered.clear();
    },
    close: () => server.close(),
  };
}
