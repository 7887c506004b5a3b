/**
 * One writer per output tree: while `gsr pipeline run` works in a folder (held in its answer stage by
 * an endpoint that never answers), every gsr command that writes is pointed into that folder and must
 * exit non-zero with one line naming the pipeline (pid, command, start time), leaving the tree as it
 * was. A walk over the command tree checks that the list below misses no command with an output option.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { MODELS_DIR, REPO_ROOT, runCli } from '../helpers/cli.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-one-writer-'));
const P = join(work, 'out');

const pipelineYaml = (out: string, baseUrl: string) => `name: held
out: ${out}
dataset: { synthetic: { count: 4, seed: 2 } }
annotations: { source: exact }
prompts: { tasks: [tg] }
models:
  - { name: endpoint, kind: openai, base_url: ${baseUrl}, model: m1, timeout_ms: 600000 }
`;

/** Every file under `dir` with its size and modification time. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    const s = statSync(p);
    out[relative(dir, p)] = e.isDirectory() ? 'dir' : `${s.size} ${s.mtimeMs}`;
  }
  return out;
}

/** Runs the gsr CLI in this process; returns the exit code and what it wrote to stderr. */
async function gsrInProcess(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await buildProgram().parseAsync(args, { from: 'user' });
    return { code: Number(process.exitCode ?? 0), stderr };
  } finally {
    spy.mockRestore();
    process.exitCode = before;
  }
}

// Every writing command, its outputs inside the held tree (inputs are the tree's own files where it has them).
const manifest = join(P, 'dataset', 'manifest.jsonl');
const annotations = join(P, 'annotate', 'annotations.json');
const store = join(P, '.state', 'answer', 'store.sqlite');
const WRITERS: Array<{ name: string; args: () => string[] }> = [
  { name: 'dataset import', args: () => ['dataset', 'import', 'whatsup', '--root', join(REPO_ROOT, 'data'), '--out', join(P, 'whatsup', 'manifest.jsonl')] },
  { name: 'dataset import (benchmark)', args: () => ['dataset', 'import', 'vsp', '--root', work, '--out', join(P, 'vsp')] },
  { name: 'dataset synth', args: () => ['dataset', 'synth', '--out', join(P, 'synth'), '--count', '2'] },
  { name: 'dataset synth snorkel-spatial', args: () => ['dataset', 'synth', 'snorkel-spatial', '--out', join(P, 'snorkel'), '--count', '2'] },
  { name: 'dataset synth svat', args: () => ['dataset', 'synth', 'svat', '--out', join(P, 'svat'), '--count', '1'] },
  { name: 'dataset synth whatsup-layout', args: () => ['dataset', 'synth', 'whatsup-layout', '--out', join(P, 'wl')] },
  { name: 'dataset synth vsp-layout', args: () => ['dataset', 'synth', 'vsp-layout', '--out', join(P, 'vl')] },
  { name: 'dataset synth apartments', args: () => ['dataset', 'synth', 'apartments', '--out', join(P, 'apartments'), '--count', '1'] },
  { name: 'dataset synth et-plan', args: () => ['dataset', 'synth', 'et-plan', '--out', join(P, 'et-plan'), '--apartments', '1'] },
  { name: 'models pull', args: () => ['models', 'pull', 'fastestdet', '--models-dir', join(P, 'models')] },
  { name: 'annotate run', args: () => ['annotate', 'run', '--manifest', manifest, '--detector', 'fastestdet', '--segmenter', 'none', '--depth', 'none', '--models-dir', MODELS_DIR, '--out', join(P, 'annotate')] },
  { name: 'annotate run (new folder)', args: () => ['annotate', 'run', '--manifest', manifest, '--detector', 'fastestdet', '--segmenter', 'none', '--depth', 'none', '--models-dir', MODELS_DIR, '--out', join(P, 'more', 'annotate')] },
  { name: 'prompts', args: () => ['prompts', '--manifest', manifest, '--task', 'mc', '--out', join(P, 'prompts', 'mc.jsonl')] },
  { name: 'prompts export', args: () => ['prompts', 'export', '--prompts', join(P, 'prompts', 'tg.jsonl'), '--format', 'vlmevalkit', '--out', join(P, 'prompts', 'tg.tsv')] },
  { name: 'run', args: () => ['run', '--prompts', join(P, 'prompts', 'tg.jsonl'), '--model', 'random', '--answerer', 'random', '--store', store] },
  { name: 'responses export', args: () => ['responses', 'export', '--store', store, '--out', join(P, 'answer', 'endpoint', 'responses.jsonl')] },
  { name: 'responses import', args: () => ['responses', 'import', join(work, 'r.jsonl'), '--model', 'm1', '--store', store] },
  { name: 'score reasoning', args: () => ['score', 'reasoning', '--prompts', join(P, 'prompts', 'tg.jsonl'), '--responses', join(work, 'r.jsonl'), '--out', join(P, 'score', 'x')] },
  { name: 'score grounding', args: () => ['score', 'grounding', '--responses', join(work, 'r.jsonl'), '--annotations', annotations, '--out', join(P, 'score', 'x')] },
  { name: 'score et-plan-logs', args: () => ['score', 'et-plan-logs', '--tasks', work, '--logs', join(work, 'r.jsonl'), '--out', join(P, 'score', 'logs')] },
  { name: 'analyze regression', args: () => ['analyze', 'regression', '--results', join(work, 'results'), '--out', join(P, 'analyze', 'r.json')] },
  { name: 'analyze label-noise', args: () => ['analyze', 'label-noise', '--results', join(work, 'results'), '--truth-results', join(work, 'results'), '--out', join(P, 'analyze', 'ln.json')] },
  { name: 'analyze relabel', args: () => ['analyze', 'relabel', '--before', annotations, '--after', annotations, '--results', join(work, 'results'), '--out', join(P, 'analyze', 'rl.json')] },
  { name: 'report', args: () => ['report', '--results', join(work, 'results'), '--out', join(P, 'report', 'report.html')] },
  { name: 'review serve', args: () => ['review', 'serve', '--annotations', annotations, '--manifest', manifest, '--port', '0'] },
  { name: 'review export', args: () => ['review', 'export', '--annotations', annotations, '--manifest', manifest, '--out', join(work, 'reviewed.json')] },
  { name: 'review simulate', args: () => ['review', 'simulate', '--truth', annotations, '--out', join(P, 'annotate', 'corrupted.json')] },
  { name: 'pipeline run (same folder)', args: () => ['pipeline', 'run', join(work, 'held.yaml')] },
  { name: 'pipeline run (a folder inside)', args: () => ['pipeline', 'run', join(work, 'held.yaml'), '--out', join(P, 'nested')] },
];

// Commands whose output options only name what they read (or a queue, not a folder).
const READ_ONLY = new Set(['pipeline status', 'models list', 'models verify', 'responses status', 'worker annotate', 'review queue', 'review agreement']);
const OUTPUT_OPTIONS = new Set(['--out', '--store', '--models-dir', '--journal', '--plot']);

function commandPaths(cmd: Command, path: string[] = []): Array<{ cmd: Command; path: string }> {
  return cmd.commands.flatMap((c) => [{ cmd: c, path: [...path, c.name()].join(' ') }, ...commandPaths(c, [...path, c.name()])]);
}

describe('one writer per output tree', () => {
  let server: FakeServer;
  let pipeline: ReturnType<typeof spawn>;
  let holderLine = '';
  beforeAll(async () => {
    server = await startFakeServer({ fault: () => 'hang' });
    writeFileSync(join(work, 'held.yaml'), pipelineYaml(P, server.url));
    writeFileSync(join(work, 'r.jsonl'), '');
    pipeline = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'pipeline', 'run', join(work, 'held.yaml')], { cwd: REPO_ROOT, env: { ...process.env, GSR_PROGRESS: '0' }, stdio: 'ignore' });
    const deadline = Date.now() + 240_000;
    while (server.totalRequests() === 0) {
      if (Date.now() > deadline || pipeline.exitCode !== null) throw new Error('the pipeline did not reach its answer stage');
      await new Promise((r) => setTimeout(r, 100));
    }
    holderLine = `in use by gsr pipeline run \\(pid ${pipeline.pid}, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\); wait for it to finish or stop it`;
  }, 300_000);
  afterAll(async () => {
    pipeline?.kill('SIGKILL');
    await server?.close();
  });

  it('the list of writing commands covers every command with an output option', () => {
    const writers = new Set(WRITERS.map((w) => w.args().slice(0, 3).join(' ')));
    const missing = commandPaths(buildProgram())
      .filter(({ cmd, path }) => cmd.commands.length === 0 && !READ_ONLY.has(path) && cmd.options.some((o) => OUTPUT_OPTIONS.has(o.long ?? '')))
      .filter(({ path }) => ![...writers].some((w) => w.startsWith(path)))
      .map(({ path }) => path);
    expect(missing).toEqual([]);
  });

  // The first case of a command pays for importing its library in-process: a minute and more on a loaded machine.
  it.each(WRITERS)('$name into the held tree exits 1 with one line naming the pipeline; nothing changes', async ({ args }) => {
    const before = tree(P);
    const r = await gsrInProcess(args());
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^gsr: error: ${P}\\S* (?:is inside ${P}, which is|is) ${holderLine}$`));
    expect(tree(P)).toEqual(before);
    expect(existsSync(join(work, 'reviewed.json'))).toBe(false);
  }, 240_000);

  it('through the real CLI too: exit status 1 and one line on stderr', () => {
    const before = tree(P);
    const r = runCli(['prompts', '--manifest', manifest, '--task', 'mc', '--out', join(P, 'prompts', 'mc.jsonl')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^gsr: error: ${join(P, 'prompts', 'mc.jsonl')} is inside ${P}, which is ${holderLine}\\n$`));
    expect(tree(P)).toEqual(before);
  }, 60_000);
});
