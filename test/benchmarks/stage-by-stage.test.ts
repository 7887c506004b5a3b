/**
 * Every registered plug-in runs stage by stage (gsr dataset, prompts --benchmark, run --benchmark,
 * responses export, score --benchmark) to the same results files as its pipeline:
 * score/scores.jsonl and score/cells.json, byte for byte (docs/benchmarks.md, "Stage by stage").
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { benchmarks } from '../../src/benchmarks/index.js';
import { buildProgram } from '../../src/cli/program.js';
import { runBenchPipeline } from '../../src/pipeline/bench.js';
import { vspLayoutSample, whatsupLayoutSample } from '../helpers/samples.js';
import { sampleItems, writeManifest } from '../prompts/fixtures.js';

const VSP = await vspLayoutSample();
const WHATSUP = await whatsupLayoutSample();

/** Runs the CLI in this process; returns stdout, stderr and the exit code it set. */
async function gsr(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  process.exitCode = 0;
  try {
    await buildProgram().parseAsync(['node', 'gsr', ...args]);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { stdout, stderr, code };
}

afterEach(() => {
  process.exitCode = 0;
});

interface Case {
  name: string;
  /** The pipeline's benchmark section. */
  benchmark: Record<string, unknown>;
  /** The same data stage by stage: the gsr dataset command (its --out is added), or a folder to read in place. */
  dataset: string[] | string;
  models: Array<{ name: string; kind: string; seed?: number }>;
}

function cases(dir: string): Case[] {
  const manifestDir = join(dir, 'whatsup-manifest');
  mkdirSync(manifestDir, { recursive: true });
  writeManifest(manifestDir, sampleItems(WHATSUP));
  return [
    {
      name: 'vsp', dataset: ['dataset', 'import', 'vsp', '--root', VSP],
      benchmark: { root: VSP, prompts: { tasks: ['maze-t1', 'maze-t3', 'blocks-t1', 'blocks-main'], variants: ['image', 'table'], shots: 1, seed: 1 } },
      models: [{ name: 'oracle', kind: 'oracle' }, { name: 'random', kind: 'random', seed: 1 }],
    },
    {
      name: 'snorkel-spatial', dataset: ['dataset', 'synth', 'snorkel-spatial', '--count', '8', '--actions', '10,20', '--seed', '3'],
      benchmark: { generate: { count: 8, actions: [10, 20], seed: 3 }, prompts: { conventions: true } },
      models: [{ name: 'oracle', kind: 'oracle' }, { name: 'random', kind: 'random', seed: 1 }],
    },
    {
      name: 'svat', dataset: ['dataset', 'synth', 'svat', '--count', '2', '--shots', '2', '--width', '96', '--height', '96', '--seed', '2', '--distractors', '1,3'],
      benchmark: { generate: { count: 2, shots: 2, width: 96, height: 96, seed: 2, distractors: [1, 3] }, prompts: { format: 'paper' } },
      models: [{ name: 'nearest', kind: 'nearest' }, { name: 'always-yes', kind: 'always-yes' }],
    },
    {
      name: 'whatsup', dataset: manifestDir,
      benchmark: { root: manifestDir, prompts: { task: 'mc', permutations: 2 } },
      models: [{ name: 'oracle', kind: 'oracle' }, { name: 'random', kind: 'random', seed: 1 }],
    },
  ];
}

describe('every plug-in stage by stage gives its pipeline\'s results files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-stages-'));
  const all = cases(dir);

  it('covers every registered plug-in that is not episodic', () => {
    const stageable = benchmarks.names().filter((n) => (benchmarks.get(n) as { episodes?: unknown }).episodes === undefined);
    expect(all.map((c) => c.name).sort()).toEqual(stageable.sort());
  });

  for (const c of all) {
    it(c.name, async () => {
      const base = join(dir, c.name);
      const pipelineFile = join(base, 'pipeline.yaml');
      mkdirSync(base, { recursive: true });
      writeFileSync(pipelineFile, stringify({ name: `stages-${c.name}`, out: join(base, 'pipeline'), benchmark: { name: c.name, ...c.benchmark }, models: c.models }));
      await runBenchPipeline(pipelineFile, { log: () => {} });

      let items = c.dataset as string;
      if (Array.isArray(c.dataset)) {
        items = join(base, 'items');
        const made = await gsr([...c.dataset, '--out', items]);
        expect(made.code, made.stderr).toBe(0);
      }
      const settings = join(base, 'prompt-settings.yaml');
      writeFileSync(settings, stringify(c.benchmark.prompts));
      const prompts = join(base, 'prompts.jsonl');
      const built = await gsr(['prompts', '--benchmark', c.name, '--items', items, '--settings', settings, '--out', prompts]);
      // Items a prompt setting cannot build (VSP's blocks-main examples have no table form) are failed items: exit 3 (docs/cli.md).
      expect(built.code, built.stderr).toBe(c.name === 'vsp' ? 3 : 0);
      if (c.name === 'vsp') expect(built.stderr).toContain('the blocks-main examples have no table form');
      expect(readFileSync(prompts, 'utf8')).toBe(readFileSync(join(base, 'pipeline', 'prompts', 'prompts.jsonl'), 'utf8').replaceAll(join(base, 'pipeline', 'dataset'), items));
      const store = join(base, 'runs.sqlite');
      const responses: string[] = [];
      for (const m of c.models) {
        const ran = await gsr(['run', '--benchmark', c.name, '--items', items, '--prompts', prompts, '--answerer', m.kind, '--model', m.name, '--store', store, ...(m.seed === undefined ? [] : ['--seed', String(m.seed)])]);
        expect(ran.code, ran.stderr).toBe(0);
        const file = join(base, `${m.name}.jsonl`);
        expect((await gsr(['responses', 'export', '--store', store, '--model', m.name, '--out', file])).code).toBe(0);
        responses.push('--responses', file);
      }
      const scored = await gsr(['score', '--benchmark', c.name, '--items', items, '--prompts', prompts, ...responses, '--out', join(base, 'scores')]);
      expect(scored.code, scored.stderr).toBe(0);
      expect(scored.stdout).toMatch(/wrote .*scores\.jsonl/);
      for (const file of ['scores.jsonl', 'cells.json']) {
        expect(readFileSync(join(base, 'scores', file), 'utf8'), `${c.name} ${file}`).toBe(readFileSync(join(base, 'pipeline', 'score', file), 'utf8'));
      }
    }, 120_000);
  }

  it('refuses items of another benchmark and flags that belong to another one, in one line', async () => {
    const vspItems = join(dir, 'vsp', 'items');
    const wrong = await gsr(['prompts', '--benchmark', 'svat', '--items', vspItems, '--out', join(dir, 'x.jsonl')]);
    expect(wrong.stderr.trim()).toBe(`gsr: error: ${join(vspItems, 'items.jsonl')}: holds vsp items, not svat`);
    const flag = await gsr(['prompts', '--benchmark', 'vsp', '--items', vspItems, '--permutations', '2', '--out', join(dir, 'x.jsonl')]);
    expect(flag).toMatchObject({ code: 2, stderr: "gsr: error: --permutations applies to --benchmark whatsup; set vsp's prompt settings with --settings FILE\n" });
    const attempts = await gsr(['run', '--benchmark', 'vsp', '--items', vspItems, '--prompts', join(dir, 'vsp', 'prompts.jsonl'), '--answerer', 'oracle', '--model', 'o', '--store', join(dir, 'y.sqlite'), '--answer-attempts', '2']);
    expect(attempts.stderr.trim()).toBe("gsr: error: gsr run: answer_attempts 2 is above vsp's limit of 1 (its official protocol does not ask again)");
    const kind = await gsr(['run', '--benchmark', 'vsp', '--items', vspItems, '--prompts', join(dir, 'vsp', 'prompts.jsonl'), '--answerer', 'nearest', '--model', 'o', '--store', join(dir, 'y.sqlite')]);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(/^gsr: error: option '--answerer <kind>' argument 'nearest' is invalid\. Allowed choices are .*oracle, random/);
  });
});
