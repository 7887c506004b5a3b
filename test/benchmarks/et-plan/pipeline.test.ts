import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEpisodes } from '../../../src/formats/episodes.js';
import { parseDocument } from 'yaml';
import { loadBenchPipeline, runBenchPipeline } from '../../../src/pipeline/bench.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import type { EtPlanAnalysis } from '../../../src/benchmarks/et-plan/report.js';
import { crashTrial, runToEnd, snapshotTree, type CrashTarget } from '../../helpers/crash-matrix.js';
import { startFakeServer } from '../../mllm/fake-server.js';
import { fakeAgentReply } from './fake-agent.js';
import { writeFixtureItemSet } from './fixture-items.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-etplan-pipe-'));

function pipelineFile(dir: string, items: string, models: string, extra = ''): string {
  const file = join(dir, 'et-plan.yaml');
  writeFileSync(file, `name: et-plan-test
out: ${join(dir, 'out')}
benchmark:
  name: et-plan
  items: ${items}
${extra}models:
${models}
report:
  title: ET-Plan-Bench test
`);
  return file;
}

const BASELINES = `  - { name: oracle, kind: oracle }
  - { name: random, kind: random, seed: 1 }
  - { name: greedy, kind: greedy }
  - { name: always-first, kind: always-first }
`;

describe('the et-plan pipeline', () => {
  it('runs offline on the baselines: oracle at 100%, episodes.jsonl per model, the report with its replay view; a rerun skips every stage', async () => {
    const dir = tmp();
    const items = await writeFixtureItemSet(join(dir, 'items'));
    const file = pipelineFile(dir, join(dir, 'items'), BASELINES);
    const r = await runBenchPipeline(file);
    expect(r.stages.map((s) => [s.name, s.status])).toEqual([['dataset', 'ran'], ['episodes', 'ran'], ['score', 'ran'], ['report', 'ran']]);
    const out = join(dir, 'out');
    for (const m of ['oracle', 'random', 'greedy', 'always-first']) {
      const eps = await readEpisodes(join(out, 'episodes', m, 'episodes.jsonl'));
      expect(eps.map((e) => e.item)).toEqual(items.map((i) => i.id));
    }
    const analysis = JSON.parse(readFileSync(join(out, 'score', 'analysis.json'), 'utf8')) as EtPlanAnalysis;
    const overall = (m: string) => analysis.rows.find((x) => x.model === m && x.task === 'all')!;
    expect(overall('oracle')).toMatchObject({ n: items.length, success_rate: 1 });
    expect(overall('greedy').success_rate).toBe(1);
    expect(overall('always-first').success_rate).toBe(0);
    expect(analysis.rows.filter((x) => x.subset === 'occlusion-size').map((x) => x.model)).toEqual(['oracle', 'random', 'greedy', 'always-first']);
    const html = readFileSync(r.report!, 'utf8');
    expect(html).toContain('id="sec-et-plan-replay"');
    expect(html).toContain('id="sec-et-plan-metrics"');
    expect(r.tables!.join('\n')).toContain('ET-Plan-Bench metrics by family and subset (protocol: step; metrics: clean)');
    const again = await runBenchPipeline(file);
    expect(again.stages.every((s) => s.status === 'skipped')).toBe(true);
  }, 120_000);

  it('metric quirks and the replayed item are settings of their own stages', async () => {
    const dir = tmp();
    await writeFixtureItemSet(join(dir, 'items'));
    const file = pipelineFile(dir, join(dir, 'items'), '  - { name: oracle, kind: oracle }\n', '  metrics: { quirks: released }\n');
    await runBenchPipeline(file);
    writeFileSync(file, readFileSync(file, 'utf8').replace('title: ET-Plan-Bench test', 'title: ET-Plan-Bench test\n  replay: multi-two-arm'));
    const r = await runBenchPipeline(file);
    expect(r.stages.map((s) => s.status)).toEqual(['skipped', 'skipped', 'skipped', 'ran']);
    expect(r.tables!.join('\n')).toContain('(protocol: step; metrics: released)');
    expect(readFileSync(r.report!, 'utf8')).toContain('on <b>multi-two-arm</b>');
    // An apartment gone since the episodes ran: the report says the replay cannot be made, and is written.
    rmSync(join(dir, 'items', 'apartment.json'));
    writeFileSync(file, readFileSync(file, 'utf8').replace('title: ET-Plan-Bench test', 'title: ET-Plan-Bench test again'));
    const gone = await runBenchPipeline(file);
    expect(gone.stages.map((s) => s.status)).toEqual(['skipped', 'skipped', 'skipped', 'ran']);
    expect(readFileSync(gone.report!, 'utf8')).toMatch(/oracle: the episode of multi-two-arm cannot be replayed: item multi-two-arm: cannot read apartment apartment.json: ENOENT/);
  }, 120_000);

  it('refuses bad settings when the file loads', async () => {
    const dir = tmp();
    await writeFixtureItemSet(join(dir, 'items'));
    const bad = async (extra: string, models = '  - { name: oracle, kind: oracle }\n') => runBenchPipeline(pipelineFile(dir, join(dir, 'items'), models, extra));
    await expect(bad('  episodes: { protocol: chat }\n')).rejects.toThrow(/et-plan episodes: protocol/);
    await expect(bad('  metrics: { quirks: [nope] }\n')).rejects.toThrow(/et-plan metrics: quirks/);
    await expect(bad('', '  - { name: x, kind: wizard }\n')).rejects.toThrow(/unknown kind "wizard".*baselines: oracle, random, greedy, always-first/);
    const analysis = pipelineFile(dir, join(dir, 'items'), '  - { name: oracle, kind: oracle }\n');
    writeFileSync(analysis, readFileSync(analysis, 'utf8').replace('title: ET-Plan-Bench test', 'title: ET-Plan-Bench test\n  analysis: { alternative: less }'));
    await expect(runBenchPipeline(analysis)).rejects.toThrow(/et-plan is episodic: its analysis settings are benchmark.metrics, not report.analysis/);
  });
});

describe('pipelines/et-plan.yaml', () => {
  it('runs offline on generated tasks (a smaller copy): the baselines, the oracle at 100%; the endpoint only with GSR_BASE_URL and GSR_MODEL', async () => {
    const shipped = join(REPO_ROOT, 'pipelines', 'et-plan.yaml');
    const withEndpoint = await loadBenchPipeline(shipped, { GSR_BASE_URL: 'http://127.0.0.1:9/v1', GSR_MODEL: 'm' });
    expect(withEndpoint.config.models.at(-1)).toMatchObject({ kind: 'openai', model: 'm', base_url: 'http://127.0.0.1:9/v1' });
    const dir = tmp();
    const doc = parseDocument(readFileSync(shipped, 'utf8'));
    doc.setIn(['benchmark', 'generate', 'apartments'], 1);
    doc.setIn(['benchmark', 'generate', 'count'], 1);
    doc.set('out', join(dir, 'out'));
    const file = join(dir, 'et-plan.yaml');
    writeFileSync(file, doc.toString());
    const r = await runBenchPipeline(file, { env: {} });
    const analysis = JSON.parse(readFileSync(join(dir, 'out', 'score', 'analysis.json'), 'utf8')) as EtPlanAnalysis;
    expect(analysis.models.map((m) => m.model)).toEqual(['oracle', 'greedy', 'random', 'always-first']);
    const oracle = analysis.rows.filter((x) => x.model === 'oracle' && x.subset === 'all');
    expect(oracle.map((x) => x.task)).toEqual(['navigation', 'navigation-spatial', 'manipulation', 'manipulation-spatial', 'temporal', 'multi-one-arm', 'multi-two-arm', 'all']);
    expect(oracle.every((x) => x.success_rate === 1)).toBe(true);
    expect(readFileSync(r.report!, 'utf8')).toContain('id="sec-et-plan-replay"');
  }, 300_000);
});

describe('the et-plan pipeline on a fake endpoint', () => {
  it('the paper protocol: the model decides, the controller acts; baselines keep the step protocol', async () => {
    const dir = tmp();
    const server = await startFakeServer({ reply: (text) => fakeAgentReply(text) });
    try {
      await writeFixtureItemSet(join(dir, 'items'));
      const file = pipelineFile(dir, join(dir, 'items'), `  - { name: oracle, kind: oracle }\n  - { name: fake, kind: openai, model: fake-model, base_url: ${server.url} }\n`, '  episodes: { protocol: paper, perception: near-field, perception_scope: occlusion }\n');
      await runBenchPipeline(file, { env: {} });
      const fake = await readEpisodes(join(dir, 'out', 'episodes', 'fake', 'episodes.jsonl'));
      expect(fake.every((e) => e.variant === 'paper')).toBe(true);
      expect(fake.flatMap((e) => e.steps).some((st) => st.action?.startsWith('rooms: '))).toBe(true);
      expect(fake.flatMap((e) => e.steps).flatMap((st) => st.controller ?? []).some((c) => c.line.startsWith('[walk]'))).toBe(true);
      expect(fake.every((e) => e.steps.every((st) => st.key !== null))).toBe(true);
      const oracle = await readEpisodes(join(dir, 'out', 'episodes', 'oracle', 'episodes.jsonl'));
      expect(oracle.every((e) => e.variant === 'step' && e.success)).toBe(true);
      expect(server.totalRequests()).toBe(fake.reduce((n, e) => n + e.steps.length, 0));
    } finally {
      await server.close();
    }
  }, 120_000);

  it('warns, as the What\'sUp path does, when a model\'s replies are mostly unreadable; baselines never', async () => {
    const dir = tmp();
    const server = await startFakeServer({ reply: () => 'I am not sure what to do.' });
    try {
      await writeFixtureItemSet(join(dir, 'items'));
      const file = pipelineFile(dir, join(dir, 'items'), `  - { name: oracle, kind: oracle }\n  - { name: mute, kind: openai, model: mute, base_url: ${server.url} }\n`);
      const r = await runBenchPipeline(file, { env: {} });
      const steps = (await readEpisodes(join(dir, 'out', 'episodes', 'mute', 'episodes.jsonl'))).flatMap((e) => e.steps).length;
      expect(steps).toBeGreaterThan(0);
      expect(r.warnings).toEqual([`mute: ${steps} of ${steps} et-plan step answers unparsed (100%; ${steps} no action could be read from the reply (no [verb] in it)), counted as wrong`]);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('a kill -9 in the middle of the episodes, then a resume, gives the same episodes, results and report', async () => {
    const dir = tmp();
    const server = await startFakeServer({ latencyMs: 5, reply: (text) => fakeAgentReply(text) });
    const items = await writeFixtureItemSet(join(dir, 'items'), 2);
    const file = pipelineFile(dir, join(dir, 'items'), `${BASELINES}  - { name: fake, kind: openai, model: fake-model, base_url: ${server.url}, concurrency: 4 }\n`, '  episodes: { protocol: step }\n');
    const out = join(dir, 'out');
    const answered = () => [...server.answered.values()].reduce((a, b) => a + b, 0);
    const target: CrashTarget = {
      name: 'et-plan pipeline',
      out,
      args: ['pipeline', 'run', file],
      progress: answered,
      // The run store is the resumable log. Stage records keep digests of files that hold timestamps (the
      // report), compared through the files themselves; the episodes stage's counts of cached answers and
      // requests differ after a resume by design.
      async snapshot() {
        const snap = snapshotTree(out, (rel) => rel.startsWith('.state/') || rel.startsWith('.gsr.lock'));
        for (const [rel, text] of snap) {
          if (!rel.endsWith('.stage.json')) continue;
          const r = JSON.parse(text) as { summary: { models?: Array<Record<string, unknown>> }; files: Array<{ path: string }> };
          const summary = { ...r.summary, models: r.summary.models?.map((m) => ({ ...m, cached: '<n>', requests: '<n>' })) };
          snap.set(rel, JSON.stringify({ ...r, hash: '<hash>', digest: '<digest>', files: r.files.map((f) => f.path), summary }));
        }
        return snap;
      },
      reset() {
        rmSync(out, { recursive: true, force: true });
        server.answered.clear();
      },
    };
    try {
      target.reset();
      await runToEnd(target, 'tsx');
      const total = answered();
      const reference = await target.snapshot();
      const episodes = await readEpisodes(join(out, 'episodes', 'fake', 'episodes.jsonl'));
      expect(episodes).toHaveLength(items.length);
      const steps = episodes.reduce((n, e) => n + e.steps.length, 0);
      expect(total).toBe(steps);
      expect(episodes.some((e) => e.steps.some((s) => s.action === null))).toBe(true);
      expect(reference.has('report/report.html')).toBe(true);
      const trial = await crashTrial(target, { items: Math.floor(steps / 3) }, reference, 'tsx');
      expect(trial).toMatchObject({ killed: true, identical: true });
      // The resumed run asked only what the killed one had not stored (at most the 4 in flight again).
      expect(answered()).toBeLessThanOrEqual(total + 4);
      expect(existsSync(join(out, '.state', 'episodes', 'store.sqlite'))).toBe(true);
    } finally {
      await server.close();
    }
  }, 300_000);
});
