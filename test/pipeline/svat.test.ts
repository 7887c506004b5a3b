import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { RunStore } from '../../src/mllm/index.js';
import { loadBenchPipeline, runBenchPipeline } from '../../src/pipeline/bench.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';
import { startFakeServer } from '../mllm/fake-server.js';

const dir = mkdtempSync(join(tmpdir(), 'gsr-svat-pipeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { GSR_BASE_URL: '', GSR_MODEL: '', GSR_PHOTOS_ROOT: '' };

describe('pipelines/svat.yaml', () => {
  it('loads: generated items, the two baselines, the endpoint only when GSR_BASE_URL and GSR_MODEL are set', async () => {
    const loaded = await loadBenchPipeline(join(REPO_ROOT, 'pipelines', 'svat.yaml'), env);
    expect(loaded.config.benchmark.root).toBeUndefined();
    expect(loaded.config.benchmark.generate).toMatchObject({ background: ['I1', 'I2', 'I3', 'I4', 'I5'], shots: 4, width: 512, height: 512, colours: 'random', placement: 'paper', distractor_placement: 'label-side' });
    expect(loaded.config.benchmark.prompts).toEqual({ format: 'paper' });
    expect(loaded.config.report.analysis).toEqual({ alternative: 'larger' });
    // I5 takes its photographs from GSR_PHOTOS_ROOT; unset, rendered scenes stand in.
    expect(loaded.config.benchmark.generate!.photos).toBeUndefined();
    expect((await loadBenchPipeline(join(REPO_ROOT, 'pipelines', 'svat.yaml'), { ...env, GSR_PHOTOS_ROOT: '/data/photos' })).config.benchmark.generate!.photos).toBe('/data/photos');
    expect(loaded.config.models.map((m) => m.kind)).toEqual(['nearest', 'always-yes']);
    const withEndpoint = await loadBenchPipeline(join(REPO_ROOT, 'pipelines', 'svat.yaml'), { GSR_BASE_URL: 'http://127.0.0.1:9/v1', GSR_MODEL: 'm' });
    expect(withEndpoint.config.models.at(-1)).toMatchObject({ name: 'm', kind: 'openai', model: 'm' }); // the row is named by the model id
    const both = join(dir, 'both.yaml');
    writeFileSync(both, 'name: x\nout: o\nbenchmark: { name: svat, root: r, generate: { count: 1 } }\n');
    await expect(loadBenchPipeline(both, {})).rejects.toThrow('give one of root (a published copy), generate (settings) or items (an item set folder)');
  });

  it('runs offline on the baselines (a smaller copy of the shipped file) and writes the SVAT report section', () => {
    const doc = parseDocument(readFileSync(join(REPO_ROOT, 'pipelines', 'svat.yaml'), 'utf8'));
    doc.setIn(['benchmark', 'generate', 'count'], 2);
    doc.setIn(['benchmark', 'generate', 'width'], 64);
    doc.setIn(['benchmark', 'generate', 'height'], 64);
    const file = join(dir, 'svat.yaml');
    writeFileSync(file, doc.toString());
    const out = join(dir, 'out');
    const r = runCli(['pipeline', 'run', file, '--out', out, '--json'], { env });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { stages: Array<{ name: string }>; tables: string[] };
    expect(result.stages.map((s) => s.name)).toEqual(['dataset', 'prompts', 'answer', 'score', 'report']);
    const overall = result.tables.find((t) => t.startsWith('SVAT: exact-match accuracy'))!;
    // 60 of 120 right: the z test (n of 100 or more), z 0, one-sided p 0.5.
    expect(overall).toMatch(/^always-yes +exact +all +120 +60 +0 +0 +50 +z +0 +0\.500$/m);
    expect(overall).toMatch(/^nearest +exact +all +120 +\d+ +0 +0 +(9\d|100)(\.\d)? +z +\d+\.\d+ +< 1e-16$/m);
    expect(result.tables.find((t) => t.startsWith('SVAT by difficulty phi'))!.split('\n').filter((l) => /^nearest +exact /.test(l))).toHaveLength(60);
    const html = readFileSync(join(out, 'report', 'report.html'), 'utf8');
    expect(html).toContain('id="sec-svat-phi-plot"');
    // I5 ran on rendered stand-ins (GSR_PHOTOS_ROOT unset): the report opens with it, the run warns.
    expect(html).toMatch(/id="sec-caveats"><h2>Caveats<\/h2><p class="warn">SVAT I5 \(photographs\): 24 items show rendered scenes standing in for photographs/);
    expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings).toEqual([expect.stringMatching(/^SVAT I5 \(photographs\): 24 items show rendered scenes/)]);
    expect(existsSync(join(out, 'dataset', 'images', 'I5-objects-M3-guide-1-q.png'))).toBe(true);
  }, scaled(120_000));

  it('asks an endpoint for a Yes/No completion (max_tokens 5, temperature 0, recorded) and judges it by the first word; the lenient mode reads JSON too', async () => {
    const doc = parseDocument(readFileSync(join(REPO_ROOT, 'pipelines', 'svat.yaml'), 'utf8'));
    for (const [k, v] of Object.entries({ background: ['I1'], objects: ['shape'], distractors: [1], text: ['none'], count: 6, width: 32, height: 32 })) doc.setIn(['benchmark', 'generate', k], v);
    const file = join(dir, 'endpoint.yaml');
    writeFileSync(file, doc.toString());
    const outputs = ['Yes.', 'yes, it is', '{"answer": "yes"}'];
    let asked = 0;
    const server = await startFakeServer({ reply: () => outputs[asked++ % outputs.length] });
    const out = join(dir, 'endpoint');
    try {
      const result = await runBenchPipeline(file, { out, env: { GSR_BASE_URL: server.url, GSR_MODEL: 'fake-vlm' } });
      expect(result.stages.map((s) => s.status)).toEqual(['ran', 'ran', 'ran', 'ran', 'ran']);
      expect(server.bodies).toHaveLength(6);
      for (const body of server.bodies as Array<{ max_tokens?: number; temperature?: number; response_format?: unknown }>) {
        expect(body).toMatchObject({ max_tokens: 5, temperature: 0 });
        expect(body.response_format).toBeUndefined();
      }
      const store = RunStore.open(join(out, '.state', 'answer', 'store.sqlite'), { create: false });
      try {
        expect(store.listSettings('fake-vlm')[0].settings).toMatchObject({ max_tokens: 5, temperature: 0 });
      } finally {
        store.close();
      }
      const responses = new Map(readFileSync(join(out, 'answer', 'fake-vlm', 'responses.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { key: string; output: string }).map((r) => [r.key, r.output]));
      expect(new Set(responses.values())).toEqual(new Set(outputs));
      const items = new Map(readFileSync(join(out, 'dataset', 'items.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; query: { answer: string } }).map((i) => [i.id, i.query.answer]));
      const scored = readFileSync(join(out, 'score', 'scores.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { key: string; item: string; model: string; mode: string; valid: boolean; correct: boolean; extracted?: string });
      const endpoint = scored.filter((r) => r.model === 'fake-vlm');
      expect(endpoint).toHaveLength(12);
      for (const r of endpoint) {
        const json = responses.get(r.key)!.startsWith('{');
        const yes = items.get(r.item) === 'yes';
        if (r.mode === 'exact' && json) expect(r).toMatchObject({ valid: false, correct: false });
        else expect(r).toMatchObject({ valid: true, extracted: 'yes', correct: yes });
      }
      const overall = result.tables!.find((t) => t.startsWith('SVAT: exact-match accuracy'))!;
      expect(overall).toMatch(/^fake-vlm +exact +all +6 +\d +2 +0 /m);
      expect(overall).toMatch(/^fake-vlm +lenient +all +6 +3 +0 +0 +50 +exact /m);
      // The JSON answers are unreadable in the first (exact) mode: 2 of 6, above the 10% every path warns at.
      expect(result.warnings).toEqual(['fake-vlm: 2 of 6 svat answers unparsed (33%; 2 the first word is not Yes or No), counted as wrong']);
    } finally {
      await server.close();
    }
  }, scaled(120_000));
});
