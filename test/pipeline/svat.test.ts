import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { loadBenchPipeline } from '../../src/pipeline/bench.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gsr-svat-pipeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { GSR_BASE_URL: '', GSR_MODEL: '' };

describe('pipelines/svat.yaml', () => {
  it('loads: generated items, the two baselines, the endpoint only when GSR_BASE_URL and GSR_MODEL are set', async () => {
    const loaded = await loadBenchPipeline(join(REPO_ROOT, 'pipelines', 'svat.yaml'), env);
    expect(loaded.config.benchmark.root).toBeUndefined();
    expect(loaded.config.benchmark.generate).toMatchObject({ background: ['I1', 'I2', 'I3', 'I4', 'I5'], shots: 4, width: 512, height: 512 });
    expect(loaded.config.models.map((m) => m.kind)).toEqual(['nearest', 'always-yes']);
    const withEndpoint = await loadBenchPipeline(join(REPO_ROOT, 'pipelines', 'svat.yaml'), { GSR_BASE_URL: 'http://127.0.0.1:9/v1', GSR_MODEL: 'm' });
    expect(withEndpoint.config.models.at(-1)).toMatchObject({ kind: 'openai', model: 'm' });
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
    expect(overall).toMatch(/^always-yes +exact +all +120 +50 +0 +1$/m);
    expect(overall).toMatch(/^nearest +exact +all +120 +(9\d|100)(\.\d)? +\d+\.\d+ +\S+$/m);
    expect(result.tables.find((t) => t.startsWith('SVAT by difficulty phi'))!.split('\n').filter((l) => l.startsWith('nearest'))).toHaveLength(60);
    const html = readFileSync(join(out, 'report', 'report.html'), 'utf8');
    expect(html).toContain('id="sec-svat-phi-plot"');
    expect(existsSync(join(out, 'dataset', 'images', 'I5-objects-M3-guide-1-q.png'))).toBe(true);
  }, 120_000);
});
