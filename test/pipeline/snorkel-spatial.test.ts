import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSnorkelItems } from '../../src/benchmarks/snorkel-spatial/generate.js';
import { buildSnorkelPrompts } from '../../src/benchmarks/snorkel-spatial/prompts.js';
import { RunStore } from '../../src/mllm/index.js';
import { loadBenchPipeline, runBenchPipeline } from '../../src/pipeline/bench.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';
import { startFakeServer } from '../mllm/fake-server.js';

const FILE = join(REPO_ROOT, 'pipelines', 'snorkel-spatial.yaml');
const out = mkdtempSync(join(tmpdir(), 'gsr-snorkel-pipeline-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const offline = { GSR_BASE_URL: '', GSR_MODEL: '', SNORKEL_COUNT: '50', SNORKEL_SEED: '' };

describe('pipelines/snorkel-spatial.yaml', () => {
  it('loads: generated items, the baselines, the endpoint only when GSR_BASE_URL and GSR_MODEL are set', async () => {
    const loaded = await loadBenchPipeline(FILE, { GSR_BASE_URL: '', GSR_MODEL: '' });
    expect(loaded.config.benchmark.generate).toMatchObject({ count: 330, actions: [10, 20, 50, 100, 200], seed: 0 });
    expect(loaded.config.benchmark.root).toBeUndefined();
    expect(loaded.config.models.map((m) => m.kind)).toEqual(['oracle', 'random']);
    expect(loaded.skippedModels).toEqual([{ name: '$GSR_MODEL', reason: 'GSR_BASE_URL, GSR_MODEL not set' }]);
  });

  it('types ${VAR} fills where the plug-in wants numbers: the same settings as the numbers written out', async () => {
    const env = { SNORKEL_COUNT: '12', SNORKEL_SEED: '5' };
    const filled = await loadBenchPipeline(FILE, env);
    expect(filled.config.benchmark.generate).toEqual({ count: 12, actions: [10, 20, 50, 100, 200], seed: 5, board_width: 20, particles: 3 });
    const dir = mkdtempSync(join(tmpdir(), 'gsr-snorkel-typed-'));
    try {
      const written = join(dir, 'p.yaml');
      writeFileSync(written, readFileSync(FILE, 'utf8').replace('${SNORKEL_COUNT:-330}', '12').replaceAll('${SNORKEL_SEED:-0}', '5'));
      const literal = await loadBenchPipeline(written, env);
      expect(literal.config.benchmark).toEqual(filled.config.benchmark);
      // Text that is no number stays text, and the plug-in refuses it in one line.
      await expect(runBenchPipeline(FILE, { out: join(dir, 'out'), env: { ...offline, SNORKEL_COUNT: 'twelve' } })).rejects.toThrow(/^dataset: SnorkelSpatial generation settings: count: Invalid input: expected number, received string$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('types fills in other plug-ins\' generate and prompt settings too, and only where they want a number or a flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-bench-typed-'));
    try {
      const file = join(dir, 'p.yaml');
      writeFileSync(file, 'name: t\nout: out\nbenchmark:\n  name: vsp\n  generate: { seed: "${S}", items: "${N}" }\n  prompts: { shots: "${K}", seed: "${S}" }\n');
      const vsp = await loadBenchPipeline(file, { S: '3', N: '1', K: '2' });
      expect(vsp.config.benchmark).toMatchObject({ generate: { seed: 3, items: 1 }, prompts: { shots: 2, seed: 3 } });
      writeFileSync(file, 'name: t\nout: out\nbenchmark:\n  name: svat\n  generate: { count: "${N}", photos: "${N}", distractors: ["${D}"] }\n  prompts: { format: paper }\n');
      expect((await loadBenchPipeline(file, { N: '7', D: '3' })).config.benchmark.generate).toEqual({ count: 7, photos: '7', distractors: [3] });
      writeFileSync(file, 'name: t\nout: out\nbenchmark:\n  name: whatsup\n  root: .\n  prompts: { permutations: "${N}", model: "${N}" }\n');
      expect((await loadBenchPipeline(file, { N: '2' })).config.benchmark.prompts).toEqual({ permutations: 2, model: '2' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs offline on the baselines: oracle 100%, random near chance, tables by query type and action count', () => {
    const r = runCli(['pipeline', 'run', 'pipelines/snorkel-spatial.yaml', '--out', out, '--json'], { env: offline });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { stages: Array<{ name: string }>; tables: string[]; report: string };
    expect(result.stages.map((s) => s.name)).toEqual(['dataset', 'prompts', 'answer', 'score', 'report']);
    const byQuery = result.tables.find((t) => t.startsWith('Accuracy@1 by query type, %'))!;
    expect(byQuery).toMatch(/^oracle +100 +100 +100 +100 +100 +100 +0 +0$/m);
    expect(result.tables.some((t) => t.startsWith('Accuracy@1 by number of actions') && /^oracle +100 +100 +100 +100 +100 +100$/m.test(t))).toBe(true);
    const html = readFileSync(result.report, 'utf8');
    expect(html).toContain('id="tbl-snorkel-chance"');
    expect(html).toContain('id="tbl-snorkel-grid"');
    const answer = JSON.parse(readFileSync(join(out, 'answer', '.stage.json'), 'utf8')) as { summary: { models: Array<{ name: string; answer_attempts?: number; reasked?: number }> } };
    expect(answer.summary.models).toEqual([expect.objectContaining({ name: 'oracle', answer_attempts: 10, reasked: 0 }), expect.objectContaining({ name: 'random', answer_attempts: 10, reasked: 0 })]);
    const again = runCli(['pipeline', 'run', 'pipelines/snorkel-spatial.yaml', '--out', out, '--json'], { env: offline });
    expect(JSON.parse(again.stdout).stages.every((s: { status: string }) => s.status === 'skipped')).toBe(true);
  }, scaled(120_000));

  it('asks an endpoint with text only, re-asks invalid answers up to answer_attempts, and records them', async () => {
    const settings = { count: 6, actions: [10, 20, 50, 100, 200], seed: 0, board_width: 20, particles: 3 };
    const answers = new Map(generateSnorkelItems(settings).items.map((i) => [(buildSnorkelPrompts(i)[0].parts[0] as { text: string }).text, i]));
    const stubborn = [...answers.values()][0];
    // Two invalid answers (prose, then the wrong key) before the right JSON; one item never gets a valid one.
    const server = await startFakeServer({
      reply: (text, before) => {
        const item = answers.get(text);
        if (item === undefined) return 'unknown prompt';
        if (item === stubborn) return 'I am not sure.';
        return before === 0 ? 'It faces north, I think.' : before === 1 ? '{"answer": 3}' : `Here: ${JSON.stringify(item.answer)}`;
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'gsr-snorkel-endpoint-'));
    try {
      const env = { GSR_BASE_URL: server.url, GSR_MODEL: 'fake', SNORKEL_COUNT: '6', SNORKEL_SEED: '' };
      const result = await runBenchPipeline(FILE, { out: dir, env });
      expect(result.stages.map((s) => s.status)).toEqual(['ran', 'ran', 'ran', 'ran', 'ran']);
      // Text only: one user turn of text parts, no image; the JSON schema goes along (the endpoint takes it).
      for (const body of server.bodies as Array<{ messages: Array<{ content: Array<{ type: string }> }>; response_format?: unknown }>) {
        expect(body.messages).toHaveLength(1);
        expect(body.messages[0].content.map((c) => c.type)).toEqual(['text']);
        expect(body.response_format).toMatchObject({ type: 'json_schema' });
      }
      for (const [text, item] of answers) expect(server.requests.get(text), item.id).toBe(item === stubborn ? 10 : 3);
      const rows = readFileSync(join(dir, 'answer', 'fake', 'responses.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { item: string; answer_attempts: number; output: string });
      expect(rows).toHaveLength(6);
      for (const row of rows) expect(row.answer_attempts).toBe(row.item === stubborn.id ? 10 : 3);
      const byQuery = result.tables!.find((t) => t.startsWith('Accuracy@1 by query type'))!;
      expect(byQuery).toMatch(/^fake.* 83\.3 +1 +0$/m); // five of six right, the stubborn one invalid
      // Every invalid answer is in the run store, numbered once.
      const store = RunStore.open(join(dir, '.state', 'answer', 'store.sqlite'), { create: false });
      try {
        const sid = store.listSettings('fake')[0];
        expect(sid.settings).toMatchObject({ answer_attempts: 10 });
        const counts = store.attemptCounts('fake', sid.id);
        expect([...counts.values()].sort((a, b) => a - b)).toEqual([2, 2, 2, 2, 2, 9]);
      } finally {
        store.close();
      }
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, scaled(60_000));
});

it.runIf(existsSync(FILE))('the pipeline file names only keys the schema knows', async () => {
  await expect(loadBenchPipeline(FILE, {})).resolves.toBeDefined();
});
