/**
 * What'sUp's own metrics after scoring: results files, `gsr analyze whatsup`, the report section and
 * the view beside the What'sUp rows of the paper's Table 1.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAllResults } from '../../src/analysis/load-results.js';
import { buildWhatsupTable, formatWhatsupTable, whatsupBesidePublished } from '../../src/analysis/whatsup.js';
import { readPaperTables } from '../../src/formats/paper.js';
import type { PromptRecord } from '../../src/formats/prompts.js';
import { whatsupTableHtml } from '../../src/report/render.js';
import { scoreReasoning } from '../../src/scoring/reasoning.js';
import { writeReasoningResults } from '../../src/scoring/results-files.js';
import { runCli } from '../helpers/cli.js';
import { response } from '../scoring/fixtures.js';

const REF = JSON.parse(readFileSync(new URL('../fixtures/scoring/whatsup-metrics-reference.json', import.meta.url), 'utf8')) as {
  datasets: Record<string, { subset: 'A' | 'B'; records: Array<{ image_path: string; caption_options: string[] }> }>;
  cases: Array<{ name: string; dataset: string; preds: number[]; individual: number; pair: number; set: number; prep_counts: Record<string, Record<string, number>> }>;
};

/** TG prompts of a fixture file (one rotation) answered with a reference case's choices. */
function scored(caseName: string, model: string) {
  const c = REF.cases.find((x) => x.name === caseName)!;
  const ds = REF.datasets[c.dataset];
  const split = ds.subset === 'A' ? 'whatsup-a' : 'whatsup-b';
  const prompts: PromptRecord[] = ds.records.map((rec, i) => ({
    key: `${caseName}#${i}`,
    item: `${split}/${i}`,
    split,
    relation: 'left',
    task: 'tg',
    permutation: [0, 1, 2, 3],
    rotation: 0,
    image: `/data/${rec.image_path}`,
    text: 'Which caption?',
    options: rec.caption_options,
    expected: rec.caption_options[0],
    answer_index: 0,
  }));
  const responses = prompts.map((p, i) => response(p.key, p.options[c.preds[i]], { model }));
  return { c, prompts, responses, ...scoreReasoning(prompts, responses) };
}

async function resultsFolder(model: string, cases: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-whatsup-'));
  const runs = cases.map((name) => scored(name, model));
  const { result, items } = scoreReasoning(
    runs.flatMap((r) => r.prompts),
    runs.flatMap((r) => r.responses),
  );
  await writeReasoningResults(dir, result, items);
  return dir;
}

describe("What'sUp metrics in results folders, analysis and the report", () => {
  it('reasoning.json carries them; analysis reads them beside CircularEval; older folders are named', async () => {
    const a = await resultsFolder('model-a', ['a-like mostly right', 'b-like random']);
    const summary = JSON.parse(readFileSync(join(a, 'reasoning.json'), 'utf8'));
    const ref = REF.cases.find((x) => x.name === 'a-like mostly right')!;
    expect(summary.whatsup['whatsup-a'].individual).toBeCloseTo(ref.individual, 12);
    expect(summary.whatsup['whatsup-a'].pair).toBeCloseTo(ref.pair / 100, 12);
    expect(summary.whatsup['whatsup-a'].set).toBeCloseTo(ref.set / 100, 12);
    expect(summary.whatsup['whatsup-a'].confusion.left).toEqual({ ...ref.prep_counts.left, none: 0 });

    // A folder scored before the metrics existed, and one with a damaged entry.
    const old = mkdtempSync(join(tmpdir(), 'gsr-whatsup-'));
    const bad = mkdtempSync(join(tmpdir(), 'gsr-whatsup-'));
    const { whatsup, ...withoutMetrics } = summary;
    writeFileSync(join(old, 'reasoning.json'), JSON.stringify({ ...withoutMetrics, model: 'old-model' }));
    writeFileSync(join(bad, 'reasoning.json'), JSON.stringify({ ...summary, model: 'bad-model', whatsup: { ...whatsup, 'whatsup-b': { n: 'many' } } }));

    const table = buildWhatsupTable(await loadAllResults([a, old, bad]));
    expect(table.rows.map((r) => `${r.model} ${r.split}`)).toEqual(['model-a whatsup-a', 'model-a whatsup-b', 'bad-model whatsup-a']);
    expect(table.rows[0].circular_eval).toBe(summary.splits['whatsup-a'].circular);
    expect(table.missing).toEqual([
      { model: 'old-model', split: 'whatsup-a' },
      { model: 'old-model', split: 'whatsup-b' },
    ]);
    expect(table.warnings).toHaveLength(1);
    expect(table.warnings[0]).toMatch(/reasoning\.json: whatsup\.whatsup-b\./);
    const text = formatWhatsupTable(table);
    expect(text).toMatch(new RegExp(`model-a\twhatsup-a\t1\t[\\d.]+\t${(100 * ref.individual).toFixed(1)}\t${ref.pair.toFixed(1)}\t${ref.set.toFixed(1)}`));
    expect(text).toMatch(/old-model whatsup-a: no What'sUp metrics/);

    const html = whatsupTableHtml(table);
    expect(html).toContain(`data-testid="wu:model-a:whatsup-a:pair" data-value="${summary.whatsup['whatsup-a'].pair}"`);
    expect(html).toContain(`data-testid="wuc:model-a:whatsup-a:left:right">${ref.prep_counts.left.right}<`);
  });

  it("beside What'sUp's published rows: Table 1's What'sUp models, ours ranked among them", async () => {
    const dir = await resultsFolder('model-b', ['a-like mostly right']);
    const rows = buildWhatsupTable(await loadAllResults([dir])).rows;
    const paper = await readPaperTables();
    const [block] = whatsupBesidePublished(rows, paper);
    expect(block.split).toBe('whatsup-a');
    const whatsupRows = paper.table1.filter((r) => r.source === 'whatsup');
    expect(block.published).toHaveLength(whatsupRows.length);
    expect(block.published[0].value).toBe(Math.max(...whatsupRows.map((r) => r.values.subset_a)));
    const ours = 100 * rows[0].metrics.individual!;
    expect(block.ours[0].individual).toBeCloseTo(ours, 12);
    expect(block.ours[0].above).toBe(whatsupRows.filter((r) => r.values.subset_a < ours).length);
    expect(block.chance).toBe(25);
  });

  it('gsr score reasoning prints them and gsr analyze whatsup shows the table', { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-whatsup-cli-'));
    const run = scored('b-like mostly right', 'model-c');
    const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(run.prompts));
    writeFileSync(join(dir, 'responses.jsonl'), jsonl(run.responses));
    const out = join(dir, 'res');
    const score = runCli(['score', 'reasoning', '--prompts', join(dir, 'prompts.jsonl'), '--responses', join(dir, 'responses.jsonl'), '--out', out]);
    expect(score.status, score.stderr).toBe(0);
    const pct = (v: number) => `${v.toFixed(1)}%`;
    expect(score.stdout).toContain(`whatsup-b    What'sUp metrics (mean of 1 pass(es)): individual=${pct(100 * run.c.individual)} pair=${pct(run.c.pair)} set=${pct(run.c.set)}`);
    const analyze = runCli(['analyze', 'whatsup', '--results', out, '--json']);
    expect(analyze.status, analyze.stderr).toBe(0);
    const printed = JSON.parse(analyze.stdout);
    expect(printed.rows[0]).toMatchObject({ model: 'model-c', split: 'whatsup-b' });
    expect(printed.rows[0].metrics.set).toBeCloseTo(run.c.set / 100, 12);
    expect(printed.published[0]).toMatchObject({ split: 'whatsup-b', column: 'subset_b' });
  });
});
