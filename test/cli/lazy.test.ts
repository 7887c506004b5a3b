/**
 * Lazy loading (src/cli/program.ts, docs/cli.md "Start-up"): starting the CLI and printing help load
 * no library code, and commands that do not annotate load no onnxruntime or sharp. Each run is traced
 * with test/helpers/module-trace.mjs, which lists every module the process loaded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ANSWERER_NAMES } from '../../src/mllm/answerer-names.js';
import { REPO_ROOT, scaled, traceCli, type TracedRun } from '../helpers/cli.js';

/** Packages a run loaded (node_modules/<name>/...), by name. */
function packages(run: TracedRun): Set<string> {
  const names = run.modules.map((m) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1]).filter((n): n is string => n !== undefined);
  return new Set(names);
}

/** The repository's own source files a run loaded, relative to src/. */
function sources(run: TracedRun): string[] {
  const src = join(REPO_ROOT, 'src');
  return run.modules
    .map((m) => (m.startsWith('file:') ? fileURLToPath(m) : m))
    .filter((p) => p.startsWith(src + '/'))
    .map((p) => relative(src, p));
}

/**
 * What registering every command may load: the CLI itself, the small util modules its actions use
 * at the top, and the constant modules that option choices come from. Anything else is library code
 * that belongs inside an action.
 */
const START_UP = [
  /^cli\//,
  /^util\/(errors|log|progress|version|stats|fs|faults|process|hash)\.ts$/,
  /^scoring\/(box-formats|box-text|qwen-resize)\.ts$/,
  /^mllm\/((answerer|import)-names|request)\.ts$/,
  /^prompts\/export-names\.ts$/,
  /^datasets\/(whatsup-records|caption)\.ts$/,
  /^formats\/image-paths\.ts$/,
  /^util\/confined\.ts$/,
  /^perception\/types\.ts$/,
  /^pipeline\/summary\.ts$/,
  /^benchmarks\/et-plan\/families\.ts$/,
];

const NATIVE = ['onnxruntime-node', 'sharp'];

describe('start-up and help load no library code', () => {
  it.each([['--version'], ['--help']])('gsr %s', (flag) => {
    const run = traceCli([flag]);
    expect(run.status).toBe(0);
    expect([...packages(run)].filter((p) => !['commander', 'tsx', 'esbuild'].includes(p))).toEqual([]); // tsx and esbuild run the source
    expect(sources(run).filter((s) => !START_UP.some((re) => re.test(s)))).toEqual([]);
    // --version answers before building the tree; --help registers every command module (so the
    // check covers every command's --help).
    if (flag === '--help') expect(sources(run)).toEqual(expect.arrayContaining(['cli/commands/annotate.ts', 'cli/commands/score.ts', 'cli/commands/pipeline.ts', 'cli/commands/run.ts']));
  }, scaled(60_000));

  it('the answerer names of `gsr run --answerer` are the registered ones', async () => {
    const { answerers } = await import('../../src/mllm/index.js');
    expect([...ANSWERER_NAMES].sort()).toEqual(answerers.names());
  });
});

describe('commands that do not annotate load no onnxruntime or sharp', { timeout: scaled(300_000) }, () => {
  it('prompts, run, responses, score, analyze, pipeline check and status', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-lazy-'));
    const root = join(REPO_ROOT, 'test', 'fixtures', 'perception', 'images');
    const item = { id: 'a1', split: 'whatsup-a', image: 'exif-1.jpg', root, subject: 'mug', object: 'table', relation: 'on', options: ['A mug on a table', 'A mug under a table'], answer: 0 };
    writeFileSync(join(dir, 'manifest.jsonl'), JSON.stringify(item) + '\n');
    const pipeline = join(dir, 'p.yaml');
    writeFileSync(pipeline, `name: p\nout: ${join(dir, 'out')}\ndataset: { manifest: ${join(dir, 'manifest.jsonl')} }\nannotations: { source: file, file: ${join(dir, 'manifest.jsonl')} }\nprompts: { tasks: [mc] }\nmodels: [{ name: first, kind: always-first }]\n`);
    const runs: Array<[string, string[]]> = [
      ['prompts', ['prompts', '--manifest', join(dir, 'manifest.jsonl'), '--task', 'mc', '--out', join(dir, 'prompts.jsonl')]],
      ['run', ['run', '--prompts', join(dir, 'prompts.jsonl'), '--model', 'first', '--answerer', 'always-first', '--store', join(dir, 'runs.sqlite')]],
      ['responses export', ['responses', 'export', '--store', join(dir, 'runs.sqlite'), '--out', join(dir, 'responses.jsonl')]],
      ['score reasoning', ['score', 'reasoning', '--prompts', join(dir, 'prompts.jsonl'), '--responses', join(dir, 'responses.jsonl'), '--out', join(dir, 'results')]],
      ['analyze power', ['analyze', 'power', '--models', '4', '--grounding', '10:40', '--effect', '0.5', '--noise', '5', '--simulations', '50']],
      ['pipeline check', ['pipeline', 'check', pipeline]],
      ['pipeline status', ['pipeline', 'status', pipeline]],
    ];
    for (const [name, args] of runs) {
      const run = traceCli(args);
      expect(run.status, `${name}: ${run.stderr}`).toBe(0);
      expect(NATIVE.filter((p) => packages(run).has(p)), name).toEqual([]);
    }
  });

  it('the trace sees them where they load (annotate)', () => {
    const run = traceCli(['annotate', 'run', join(REPO_ROOT, 'no-such-image.jpg'), '--objects', 'cup,table', '--detector', 'fastestdet', '--models-dir', mkdtempSync(join(tmpdir(), 'gsr-lazy-models-')), '--out', mkdtempSync(join(tmpdir(), 'gsr-lazy-out-'))]);
    expect(run.status).toBe(1); // the model is not installed
    expect(run.stderr).toMatch(/gsr models pull fastestdet|no-such-image/); // not installed, or installed and the image is missing
    expect(NATIVE.filter((p) => packages(run).has(p))).toEqual(NATIVE);
  });
});
