/**
 * pipelines/et-plan-published.yaml (the released protocol; docs/et-plan.md, "The released protocol"):
 * offline on a smaller copy, with the baselines (the oracle at 100%), the report naming protocol and
 * metric set on every table and the published Table 2 beside the measured settings; and on the fake
 * endpoint, where the released agent runs with the released temperatures.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { readEpisodes } from '../../../src/formats/episodes.js';
import { readEtPlanTable2 } from '../../../src/formats/et-plan-table2.js';
import { loadBenchPipeline, runBenchPipeline } from '../../../src/pipeline/bench.js';
import type { EtPlanAnalysis } from '../../../src/benchmarks/et-plan/report.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { startFakeServer } from '../../mllm/fake-server.js';
import { fakeAgentReply } from './fake-agent.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-etplan-published-'));
const SHIPPED = join(REPO_ROOT, 'pipelines', 'et-plan-published.yaml');

/** The shipped file, smaller (1 apartment, 1 task per family), writing under dir, with other models. */
function smallerCopy(dir: string, models?: unknown[]): string {
  const doc = parseDocument(readFileSync(SHIPPED, 'utf8'));
  doc.setIn(['benchmark', 'generate', 'apartments'], 1);
  doc.setIn(['benchmark', 'generate', 'count'], 1);
  doc.set('out', join(dir, 'out'));
  if (models) doc.set('models', models);
  const file = join(dir, 'et-plan-published.yaml');
  writeFileSync(file, doc.toString());
  return file;
}

describe('the typed-in Table 2', () => {
  it('has the 17 settings, each tied to a family and subset', async () => {
    const t = await readEtPlanTable2();
    expect(t).toHaveLength(17);
    expect(t.filter((r) => r.layout_map).map((r) => r.setting)).toEqual(['Navi + Layout Map', 'Navi & Mani + Layout Map']);
    expect(new Set(t.map((r) => `${r.family}/${r.subset}/${r.layout_map}`)).size).toBe(17);
    expect(t.find((r) => r.setting === 'Navi')).toMatchObject({ success_gpt4: 79.26, distance_llama7b_sft: 14.59 });
  });
});

describe('pipelines/et-plan-published.yaml', () => {
  it('loads with the released protocol, view-scan perception and released metrics with clean beside', async () => {
    const p = await loadBenchPipeline(SHIPPED, {});
    expect(p.config.benchmark).toMatchObject({
      generate: { mix: 'released' }, episodes: { protocol: 'released', perception: 'view-scan', start: 'spawn' }, metrics: { quirks: 'released', beside: 'clean', occlusion_pool: 'pooled' },
    });
  });

  it('runs offline: the oracle at 100%; every table names protocol and metric set; Table 2 beside the measured settings', async () => {
    const dir = tmp();
    const r = await runBenchPipeline(smallerCopy(dir), { env: {} });
    const analysis = JSON.parse(readFileSync(join(dir, 'out', 'score', 'analysis.json'), 'utf8')) as EtPlanAnalysis;
    expect(analysis.mode).toBe('released, pooled occlusion');
    expect(analysis.beside?.mode).toBe('clean, pooled occlusion');
    const oracle = analysis.rows.filter((x) => x.model === 'oracle' && x.subset === 'all');
    expect(oracle).toHaveLength(8);
    expect(oracle.every((x) => x.success_rate === 1)).toBe(true);
    expect(analysis.beside!.rows.filter((x) => x.model === 'oracle' && x.subset === 'all').every((x) => x.success_rate === 1)).toBe(true);
    const html = readFileSync(r.report!, 'utf8');
    const titles = [...html.matchAll(/<h[23][^>]*>([^<]*ET-Plan-Bench[^<]*|Published beside measured[^<]*)<\/h[23]>/g)].map((m) => m[1]);
    expect(titles.length).toBeGreaterThanOrEqual(4);
    for (const t of titles) expect(t).toMatch(/protocol: .*metrics: /);
    expect(html).toContain('id="sec-et-plan-published"');
    for (const row of await readEtPlanTable2()) expect(html).toContain(row.setting.replace(/&/g, '&amp;'));
    expect(html).toContain('not measured: this run has no layout map');
  }, 300_000);

  it('on a fake endpoint the released agent runs, with the API default temperature for navigation and 0.3 for multi-object tasks', async () => {
    const dir = tmp();
    const temperatures = new Map<string, unknown>();
    const server = await startFakeServer({
      reply: (text, _n, body) => {
        temperatures.set(text.slice(0, 40), (body as { temperature?: unknown }).temperature);
        return fakeAgentReply(text);
      },
    });
    try {
      const file = smallerCopy(dir, [{ name: 'oracle', kind: 'oracle' }, { name: 'fake', kind: 'openai', model: 'fake-model', base_url: server.url }]);
      await runBenchPipeline(file, { env: {} });
      const fake = await readEpisodes(join(dir, 'out', 'episodes', 'fake', 'episodes.jsonl'));
      expect(fake.every((e) => e.variant === 'released' && e.monitor_success !== undefined)).toBe(true);
      expect(fake.flatMap((e) => e.steps).some((st) => st.action?.startsWith('rooms: '))).toBe(true);
      const sent = [...temperatures];
      expect(sent.some(([t, temp]) => t.startsWith('Given the task: please find') && temp === 0.3)).toBe(true);
      expect(sent.some(([t, temp]) => (t.startsWith('# ROOM_LIST') || !t.includes('please find')) && temp === undefined)).toBe(true);
      expect(sent.filter(([t]) => t.startsWith('Given the task: please find')).every(([, temp]) => temp === 0.3)).toBe(true);
      const oracle = await readEpisodes(join(dir, 'out', 'episodes', 'oracle', 'episodes.jsonl'));
      expect(oracle.every((e) => e.variant === 'step' && e.success)).toBe(true);
    } finally {
      await server.close();
    }
  }, 300_000);
});
