import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_ANNOTATOR, writeFixtureModels } from '../helpers/annotator-fixtures.js';
import { MODELS_DIR, REPO_ROOT, WHATSUP_SAMPLE_ROOT, scaled } from '../helpers/cli.js';
import { whatsupLayoutSample } from '../helpers/samples.js';
import { itShared } from '../helpers/shared.js';
import { pipelineStatus, runPipeline } from '../../src/pipeline/index.js';

/** Runs the CLI from source without blocking this process (the fake endpoint lives here). */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, GSR_PROGRESS: '0', GSR_BASE_URL: '', GSR_MODEL: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const work = mkdtempSync(join(tmpdir(), 'gsr-pipeline-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function pipelineFile(name: string, text: string): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(path, text);
  return path;
}

const SMALL = (out: string, extra = '') => `name: small
out: ${out}
dataset:
  synthetic:
    count: 24
    seed: 5
annotations:
  source: exact
prompts:
  tasks: [tg, mc, grounding, dap]
  dap:
    relations: [front, behind]
models:
  - name: geometric
    kind: geometric
  - name: random
    kind: random
    seed: 3
  - name: always-first
    kind: always-first
${extra}`;

/** A stand-in OpenAI-compatible server: answers "A" to choices and one fixed box to grounding. */
let server: Server;
let baseUrl = '';
let requests = 0;
let onRequest: (() => void) | null = null;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url?.endsWith('/models')) return void res.end('{"data":[]}');
      requests++;
      onRequest?.();
      const text = (JSON.parse(body).messages[0].content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')!.text!;
      const content = /bounding box/i.test(text) ? '[0.1, 0.1, 0.6, 0.6]' : 'A';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ choices: [{ message: { content }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('gsr pipeline run (end to end)', () => {
  const out = join(work, 'out-small');
  const endpointModel = `  - name: endpoint
    kind: openai
    base_url: \${GSR_BASE_URL}
    model: \${GSR_MODEL}
    box_format: llava
    if_env: [GSR_BASE_URL, GSR_MODEL]
`;

  const env = () => ({ ...process.env, GSR_BASE_URL: baseUrl, GSR_MODEL: 'fake-vlm' });

  it('runs every stage, scores the geometric baseline >= 95% CircularEval, and reports', async () => {
    const file = pipelineFile('small', SMALL(out, endpointModel));
    const lines: string[] = [];
    const result = await runPipeline(file, { env: env(), log: (l) => lines.push(l) });
    expect(result.stages.map((s) => s.status)).toEqual(Array(7).fill('ran'));
    expect(lines.filter((l) => /^gsr: \[\d\/7\] \w+: done in /.test(l))).toHaveLength(7);
    expect(result.perception).toMatch(/^exact synthetic ground truth/);
    const report = join(out, 'report', 'report.html');
    expect(result.report).toBe(report);

    const geo = JSON.parse(readFileSync(join(out, 'score', 'geometric', 'reasoning.json'), 'utf8'));
    expect(geo.total_average.circular).toBeGreaterThanOrEqual(0.95);
    const geoMc = JSON.parse(readFileSync(join(out, 'score', 'geometric', 'mc', 'reasoning.json'), 'utf8'));
    expect(geoMc.total_average.circular).toBeGreaterThanOrEqual(0.95);
    expect(JSON.parse(readFileSync(join(out, 'score', 'geometric', 'grounding.json'), 'utf8')).avg_g_score).toBe(1);
    // Random is far below it: the scorer is not handing out credit.
    const rnd = JSON.parse(readFileSync(join(out, 'score', 'random', 'reasoning.json'), 'utf8'));
    expect(rnd.total_average.circular).toBeLessThan(0.5);

    // The endpoint answered every prompt through the runner, and was scored like the baselines.
    const responses = readFileSync(join(out, 'answer', 'endpoint', 'responses.jsonl'), 'utf8').trim().split('\n');
    expect(responses.length).toBe(requests);
    expect(responses.every((l) => JSON.parse(l).status === 'ok')).toBe(true);
    expect(existsSync(join(out, 'score', 'endpoint', 'grounding.json'))).toBe(true);
    expect(existsSync(join(out, 'score', 'geometric', 'dap', 'reasoning.json'))).toBe(true);
    expect(existsSync(join(out, 'score', 'geometric', 'nodap', 'reasoning.json'))).toBe(true);

    if (!existsSync(CHROMIUM)) return void console.warn(`not opening the report: ${CHROMIUM} is not installed (apt-get install chromium)`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`file://${report}`);
      expect(errors).toEqual([]);
      expect(await page.locator('table').count()).toBeGreaterThan(0);
      expect(await page.content()).toContain('geometric');
    } finally {
      await browser.close();
    }
  }, scaled(240_000));

  it('skips every stage on a second run, and the CLI prints the table and the report path', async () => {
    const file = pipelineFile('small', SMALL(out, endpointModel));
    const r = await cli(['pipeline', 'run', file], { GSR_BASE_URL: baseUrl, GSR_MODEL: 'fake-vlm' });
    expect(r.status).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.endsWith('unchanged, skipped'))).toHaveLength(7);
    expect(r.stdout).toMatch(/7 stages \(0 ran, 7 unchanged\)/);
    expect(r.stdout).toMatch(/^perception: exact synthetic ground truth/m);
    expect(r.stdout).toMatch(/^geometric +geometric +100\.0/m);
    expect(r.stdout).toMatch(/^endpoint +openai /m);
    expect(r.stdout).toContain(`report: ${join(out, 'report', 'report.html')}`);
  }, scaled(120_000));

  it('reruns only from the stage whose settings changed, reusing stored answers', async () => {
    const before = requests;
    const file = pipelineFile('small', SMALL(out, endpointModel).replace('  - name: always-first\n    kind: always-first\n', ''));
    const result = await runPipeline(file, { env: env(), log: () => {} });
    const status = Object.fromEntries(result.stages.map((s) => [s.name, s.status]));
    expect(status).toMatchObject({ dataset: 'skipped', annotate: 'skipped', prompts: 'skipped', answer: 'ran', score: 'ran', report: 'ran' });
    expect(requests).toBe(before); // the endpoint was not asked again
    expect(existsSync(join(out, 'score', 'always-first'))).toBe(false);
    const now = await pipelineStatus(file, { env: env() });
    expect(now.stages.map((s) => s.state)).toEqual(Array(7).fill('complete'));
  }, scaled(120_000));
});

describe('gsr pipeline run: bad pipelines fail with one line and write nothing', () => {
  const oneLine = (stderr: string) => stderr.trim().split('\n').filter((l) => l.startsWith('gsr: error:'));

  it('an unknown key names the file, line and key', async () => {
    const out = join(work, 'out-unknown');
    const file = pipelineFile('unknown', SMALL(out).replace('    seed: 5\n', '    seed: 5\n    colour: red\n'));
    const r = await cli(['pipeline', 'run', file]);
    expect(r.status).not.toBe(0);
    expect(oneLine(r.stderr)).toEqual([`gsr: error: ${file}:7:5: unknown key "colour" in dataset.synthetic`]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it('a missing What\'sUp root is named', async () => {
    const out = join(work, 'out-noroot');
    const file = pipelineFile('noroot', SMALL(out).replace('  synthetic:\n    count: 24\n    seed: 5\n', '  whatsup:\n    root: /nonexistent/whatsup\n').replace('source: exact', 'source: models'));
    await expect(runPipeline(file, { log: () => {} })).rejects.toThrow(`${file}: dataset.whatsup.root: folder not found: /nonexistent/whatsup`);
    expect(existsSync(out)).toBe(false);
  });

  it('an unreachable endpoint is named', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const out = join(work, 'out-unreachable');
    const url = `http://127.0.0.1:${port}/v1`;
    const file = pipelineFile('unreachable', SMALL(out, `  - name: remote\n    kind: openai\n    base_url: ${url}\n`));
    await expect(runPipeline(file, { log: () => {} })).rejects.toThrow(`${file}: models[3] (remote): endpoint ${url} is unreachable (ECONNREFUSED)`);
    expect(existsSync(out)).toBe(false);
  });
});

/** A pipeline that imports a What'sUp-layout folder and annotates it with `detector` from `models`. */
const WHATSUP = (out: string, root: string, detector: string, models: string) => `name: whatsup-layout
out: ${out}
dataset:
  whatsup:
    root: ${root}
annotations:
  source: models
  models:
    detector: ${detector}
    models_dir: ${models}
    device: cpu
prompts:
  tasks: [tg, mc, grounding]
models:
  - name: geometric
    kind: geometric
  - name: random
    kind: random
  - name: always-first
    kind: always-first
`;

describe("gsr pipeline run on a What'sUp-layout folder with a detector", () => {
  let root = '';
  const models = join(work, 'models');
  beforeAll(async () => {
    root = await whatsupLayoutSample();
    writeFixtureModels(models);
  });

  it('imports the folder, annotates it with the detector and scores the baselines', async () => {
    const out = join(work, 'out-whatsup');
    const file = pipelineFile('whatsup', WHATSUP(out, root, FIXTURE_ANNOTATOR.detector, models));
    const result = await runPipeline(file, { log: () => {} });
    expect(result.stages.every((s) => s.status === 'ran')).toBe(true);
    expect(result.perception).toBe(`auto-annotator: ${FIXTURE_ANNOTATOR.detector} on cpu`);
    const coco = JSON.parse(readFileSync(join(out, 'annotate', 'annotations.json'), 'utf8'));
    expect(coco.info.source).toBe('auto');
    expect(coco.images).toHaveLength(30);
    // The fixture detector gives one box per query: where both nouns are unknown to it, the object gets
    // none, so the geometric baseline cannot answer those prompts (scored wrong, never guessed).
    const geo = result.rows.find((r) => r.model === 'geometric')!;
    expect(geo.failed).toBeGreaterThan(0);
    expect(geo.g_score).toBe(1);
    expect(existsSync(result.report!)).toBe(true);
  }, scaled(120_000));

  it('an interrupted annotation resumes from its journal', async () => {
    const out = join(work, 'out-whatsup-interrupt');
    const file = pipelineFile('whatsup-interrupt', WHATSUP(out, root, FIXTURE_ANNOTATOR.detector, models));
    const controller = new AbortController();
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    // Ctrl-C once the annotate stage has opened its journal (interrupted between stages, the run stops
    // before the next one starts).
    const journal = join(out, '.annotate.partial', 'journal.jsonl');
    const poll = setInterval(() => existsSync(journal) && controller.abort(), 1);
    try {
      await expect(runPipeline(file, { log, signal: controller.signal })).rejects.toThrow(/^annotate: interrupted/);
    } finally {
      clearInterval(poll);
    }
    expect(lines).toContain('gsr: [2/7] annotate: interrupted: finishing the images in hand (annotated images are kept in the journal)');
    expect(existsSync(join(out, '.annotate.partial', 'journal.jsonl'))).toBe(true);
    expect(existsSync(join(out, 'annotate'))).toBe(false);
    lines.length = 0;
    const result = await runPipeline(file, { log: (l) => lines.push(l) });
    expect(lines).toContain('gsr: [2/7] annotate: resuming an interrupted run');
    expect(result.stages.every((s) => s.status === (s.name === 'dataset' ? 'skipped' : 'ran'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'annotate', 'annotations.json'), 'utf8')).images).toHaveLength(30);
  }, scaled(120_000));

  itShared('the 16 real photos with the real FastestDet', ['whatsupSample', 'fastestdet'], async () => {
    const out = join(work, 'out-real');
    const result = await runPipeline(pipelineFile('real', WHATSUP(out, WHATSUP_SAMPLE_ROOT, 'fastestdet', MODELS_DIR)), { log: () => {} });
    expect(result.stages.every((s) => s.status === 'ran')).toBe(true);
    expect(result.perception).toBe('auto-annotator: fastestdet on cpu');
    expect(JSON.parse(readFileSync(join(out, 'annotate', 'annotations.json'), 'utf8')).images).toHaveLength(16);
    // Objects FastestDet cannot name (e.g. "plate") leave the geometric baseline unable to answer.
    const geo = result.rows.find((r) => r.model === 'geometric')!;
    expect(geo.failed).toBeGreaterThan(0);
    // Every labelled object is a hit; the objects FastestDet found no box for stay in their columns as
    // "no label", and a column with none labelled leaves Avg G-Score undefined, never the mean of the rest.
    const g = JSON.parse(readFileSync(join(out, 'score', 'geometric', 'grounding.json'), 'utf8')) as { columns: Record<string, { accuracy: number | null; no_label: number }>; unscored_columns: string[] };
    expect(Object.keys(g.columns)).toHaveLength(10);
    for (const c of Object.values(g.columns)) expect([null, 1]).toContain(c.accuracy);
    expect(geo.g_no_label).toBe(Object.values(g.columns).reduce((n, c) => n + c.no_label, 0));
    // FastestDet finds none of Subset B's objects: the column stays, and the average with it.
    expect(g.unscored_columns).toEqual(['whatsup-b/object']);
    expect(geo.g_score).toBeNull();
    expect(result.notes).toEqual([
      '9 of 30 objects have no pseudo-label and are not scored (whatsup-a/object 5, whatsup-b/object 4); Avg G-Score not computed: whatsup-b/object has no labelled object',
    ]);
  }, scaled(120_000));
});

describe('synthetic data with an installed detector', () => {
  it('keeps the exact truth and reports the auto-annotator\'s quality against it', async () => {
    const models = join(work, 'models-compare');
    writeFixtureModels(models);
    const out = join(work, 'out-compare');
    const file = pipelineFile('compare', `name: compare
out: ${out}
dataset:
  synthetic: { count: 6, seed: 2 }
annotations:
  source: exact
  compare_limit: 4
  models: { detector: ${FIXTURE_ANNOTATOR.detector}, models_dir: ${models}, device: cpu }
stop_after: annotate
`);
    const result = await runPipeline(file, { log: () => {} });
    expect(result.stages.map((s) => s.name)).toEqual(['dataset', 'annotate']);
    expect(result.perception).toMatch(new RegExp(`^exact synthetic ground truth; auto-annotator \\(${FIXTURE_ANNOTATOR.detector}\\) on 4 scenes: box recall@0\\.5 (\\d+\\.\\d%|n/a) against it$`));
    const quality = JSON.parse(readFileSync(join(out, 'annotate', 'quality.json'), 'utf8'));
    expect(quality.images.truth).toBe(4);
    expect(JSON.parse(readFileSync(join(out, 'annotate', 'annotations.json'), 'utf8')).info.source).toBe('exact-synthetic');
  }, scaled(120_000));
});

describe('interrupting a run', () => {
  it('leaves no stage looking complete, then resumes asking only what has no answer', async () => {
    const out = join(work, 'out-interrupt');
    const file = pipelineFile('interrupt', `name: interrupt
out: ${out}
dataset:
  synthetic: { count: 6, seed: 4 }
prompts:
  tasks: [mc]
models:
  - name: endpoint
    kind: openai
    base_url: ${baseUrl}
    model: fake-vlm
    concurrency: 1
`);
    const controller = new AbortController();
    const start = requests;
    onRequest = () => {
      if (requests - start === 5) controller.abort();
    };
    try {
      await expect(runPipeline(file, { log: () => {}, signal: controller.signal })).rejects.toThrow(/^answer: interrupted/);
    } finally {
      onRequest = null;
    }
    expect(existsSync(join(out, 'prompts', '.stage.json'))).toBe(true);
    expect(existsSync(join(out, 'answer'))).toBe(false);
    expect(existsSync(join(out, 'score'))).toBe(false);
    const asked = requests - start;
    const result = await runPipeline(file, { log: () => {} });
    expect(result.stages.find((s) => s.name === 'answer')!.status).toBe('ran');
    const total = readFileSync(join(out, 'prompts', 'mc.jsonl'), 'utf8').trim().split('\n').length;
    const lines = readFileSync(join(out, 'answer', 'endpoint', 'responses.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(total);
    // Answers committed before the interrupt were not asked again.
    expect(requests - start).toBeLessThan(total + asked);
    expect(requests - start).toBeGreaterThanOrEqual(total);
  }, scaled(120_000));
});

describe('per-model templates', () => {
  it('builds and asks a model its own prompts, scored like the rest', async () => {
    const out = join(work, 'out-templates');
    const templates = join(work, 'terse.yaml');
    writeFileSync(templates, 'mc: "Pick one.\\n{options}\\nLetter only."\n');
    const file = pipelineFile('templates', `name: templates
out: ${out}
dataset:
  synthetic: { count: 3, seed: 9 }
prompts:
  tasks: [mc]
models:
  - name: terse
    kind: random
    templates: ${templates}
  - name: plain
    kind: always-first
`);
    const result = await runPipeline(file, { log: () => {} });
    expect(result.rows.map((r) => r.model)).toEqual(['terse', 'plain']);
    const own = readFileSync(join(out, 'prompts', 'terse', 'mc.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const shared = readFileSync(join(out, 'prompts', 'mc.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(own[0].text.startsWith('Pick one.\n')).toBe(true);
    expect(shared[0].text.startsWith('Pick one.')).toBe(false);
    const asked = new Set(readFileSync(join(out, 'answer', 'terse', 'responses.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).key));
    expect(asked).toEqual(new Set(own.map((p) => p.key)));
  }, scaled(120_000));
});
