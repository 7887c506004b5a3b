import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { loadBenchPipeline } from '../../src/pipeline/bench.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';
import { itShared } from '../helpers/shared.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the VSP report browser check: ${CHROMIUM} is not installed (apt-get install chromium)`);

const out = mkdtempSync(join(tmpdir(), 'gsr-vsp-pipeline-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const env = { GSR_BASE_URL: '', GSR_MODEL: '' };

describe('pipelines/vsp.yaml', () => {
  it('loads: the generated sample, endpoint entries only when GSR_BASE_URL and GSR_MODEL are set', async () => {
    const loaded = await loadBenchPipeline(join(REPO_ROOT, 'pipelines', 'vsp.yaml'), env);
    expect(loaded.config.benchmark.root).toBeUndefined();
    expect(loaded.config.benchmark.generate).toEqual({ seed: 1, items: 2, examples: 2 });
    expect(loaded.config.models.map((m) => m.kind)).toEqual(['oracle', 'oracle-perception', 'oracle-reasoning', 'random']);
    expect(loaded.skippedModels).toEqual([{ name: '$GSR_MODEL', reason: 'GSR_BASE_URL, GSR_MODEL not set' }]);
    const withEndpoint = await loadBenchPipeline(join(REPO_ROOT, 'pipelines', 'vsp.yaml'), { GSR_BASE_URL: 'http://127.0.0.1:9/v1', GSR_MODEL: 'm' });
    expect(withEndpoint.config.models.at(-1)).toMatchObject({ kind: 'openai', base_url: 'http://127.0.0.1:9/v1', model: 'm' });
  });

  it('rejects unknown keys and unknown benchmarks with the file and line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-vsp-yaml-'));
    try {
      const file = join(dir, 'p.yaml');
      writeFileSync(file, 'name: x\nout: o\nbenchmark: { name: vsp, root: r }\nmodels:\n  - { name: a, kind: oracle, box_format: qwen2-vl }\n');
      await expect(loadBenchPipeline(file, {})).rejects.toThrow(`${file}:5:30: unknown key "box_format" in models[0]`);
      writeFileSync(file, 'name: x\nout: o\nbenchmark: { name: nope, root: r }\n');
      await expect(loadBenchPipeline(file, {})).rejects.toThrow(/unknown benchmark "nope" \(available: .*\bvsp\b/);
      const r = runCli(['pipeline', 'check', 'pipelines/vsp.yaml'], { env });
      expect(r.stdout).toContain('pipelines/vsp.yaml: ok (dataset -> prompts -> answer -> score -> report; benchmark vsp;');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses answer_attempts above 1: the official protocol asks each prompt once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-vsp-yaml-'));
    try {
      const file = join(dir, 'p.yaml');
      writeFileSync(file, 'name: x\nout: o\nbenchmark: { name: vsp, root: r }\nmodels:\n  - { name: a, kind: oracle, answer_attempts: 3 }\n');
      await expect(loadBenchPipeline(file, {})).rejects.toThrow(`${file}: model a: answer_attempts 3 is above vsp's limit of 1 (its official protocol does not ask again)`);
      writeFileSync(file, 'name: x\nout: o\nbenchmark: { name: vsp, root: r }\nmodels:\n  - { name: a, kind: oracle, answer_attempts: 1 }\n');
      expect((await loadBenchPipeline(file, {})).config.models).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs offline on the baselines, prints the tables, and a rerun skips every stage', () => {
    const r = runCli(['pipeline', 'run', 'pipelines/vsp.yaml', '--out', out, '--json'], { env });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.stages.map((s: { name: string }) => s.name)).toEqual(['dataset', 'prompts', 'answer', 'score', 'report']);
    expect(existsSync(join(out, 'dataset', 'layout', 'maze', 'task-main', 'prompt-text', 'prompt-text.txt'))).toBe(true);
    expect(result.report).toBe(join(out, 'report', 'report.html'));
    const subtasks = result.tables.find((t: string) => t.startsWith('Sub-tasks'));
    expect(subtasks).toMatch(/^oracle +official +image +100 +100 +100 +100 +100 +100 +100 +100 +100 +100 +100$/m);
    const cells = JSON.parse(readFileSync(join(out, 'score', 'cells.json'), 'utf8')) as Array<{ model: string; mode: string; task: string; accuracy: number }>;
    for (const c of cells.filter((x) => x.model === 'oracle')) expect(c.accuracy, `${c.task} ${c.mode}`).toBe(c.task === 'collision' && c.mode === 'official' ? 0.5 : 1);
    // Invalid answers: ours and the official scripts' count (official mode, where the script keeps one).
    const invalid = result.tables.find((t: string) => t.startsWith('Invalid answers'));
    expect(invalid).toMatch(/^oracle +official +image +maze-t1 +\d+ +0 +0 +0$/m);
    expect(invalid).toMatch(/^oracle +official +image +maze-main +\d+ +0 +- +0$/m);
    expect(invalid).toMatch(/^oracle +strict +image +maze-t1 +\d+ +0 +- +0$/m);
    const scored = readFileSync(join(out, 'score', 'scores.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { task: string; mode: string; scriptInvalid?: boolean });
    expect(scored.filter((s) => s.task === 'blocks-t2').map((s) => [s.mode, s.scriptInvalid])).toContainEqual(['official', false]);
    expect(scored.filter((s) => s.mode === 'strict' || ['maze-main', 'collision', 'google-map'].includes(s.task)).every((s) => s.scriptInvalid === undefined)).toBe(true);
    const again = runCli(['pipeline', 'run', 'pipelines/vsp.yaml', '--out', out, '--json'], { env });
    expect(JSON.parse(again.stdout).stages.every((s: { status: string }) => s.status === 'skipped')).toBe(true);
  }, scaled(240_000));

  it.skipIf(!haveChromium)('writes a report that opens in chromium with no errors and no network requests', async () => {
    const file = join(out, 'report', 'report.html');
    expect(existsSync(file)).toBe(true);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (q) => requests.push(q.url()));
      await page.goto(`file://${file}`);
      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'))).toEqual([]);
      expect(await page.title()).toBe('VSP on the generated sample');
      expect(await page.locator('#tbl-subtasks tr').count()).toBeGreaterThan(4);
      expect(await page.locator('#sec-vsp-curves svg').count()).toBe(2);
      expect(await page.locator('#gallery .entry svg').count()).toBeGreaterThan(0); // maze plans replayed on the map
      expect(await page.locator('#gallery .entry table.blocks').count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, scaled(120_000));
});

describe('pipelines/vsp-published.yaml', () => {
  it('needs VSP_ROOT, and reads the copy it names', async () => {
    const file = join(REPO_ROOT, 'pipelines', 'vsp-published.yaml');
    await expect(loadBenchPipeline(file, { GSR_BASE_URL: '', GSR_MODEL: '' })).rejects.toThrow('environment variable VSP_ROOT is not set');
    const loaded = await loadBenchPipeline(file, { VSP_ROOT: '/data/vsp', GSR_BASE_URL: '', GSR_MODEL: '' });
    expect(loaded.config.benchmark).toMatchObject({ name: 'vsp', root: '/data/vsp' });
    expect(loaded.config.models.map((m) => m.kind)).toEqual(['oracle', 'oracle-perception', 'oracle-reasoning', 'random']);
  });

  itShared('checks out against the published copy beside the repository', ['vsp'], ({ vsp }) => {
    const r = runCli(['pipeline', 'check', 'pipelines/vsp-published.yaml'], { env: { ...env, VSP_ROOT: vsp } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('pipelines/vsp-published.yaml: ok (dataset -> prompts -> answer -> score -> report; benchmark vsp;');
  }, scaled(120_000));
});
