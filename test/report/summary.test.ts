import { join } from 'node:path';
import { readFileSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  loadAllResults,
  loadModelResults,
  buildReasoningTable,
  buildGroundingTable,
  buildDapTable,
  buildSplitBreakdown,
  positionBiasRows,
  binomialTest,
  bootstrapMean,
  type ItemOutcome,
  type ModelResults,
} from '../../src/analysis/index.js';
import { orderSplits } from '../../src/formats/manifest.js';
import { escapeHtml } from '../../src/report/index.js';
import { EXAMPLE_RESULTS, MODELS, exampleWorkspace, readJsonl } from './helpers.js';

const stat = { seed: 0, resamples: 500 };
const dirs = MODELS.map((m) => join(EXAMPLE_RESULTS, m));

describe('results folders', () => {
  it('loads full and partial folders and DAP variants', async () => {
    const all = await loadAllResults(dirs);
    expect(all.map((r) => r.model)).toEqual(MODELS);
    const alpha = all[0];
    expect(alpha.reasoning.map((v) => v.variant)).toEqual(['', 'dap', 'nodap']);
    expect(alpha.grounding?.columns['whatsup-a/subject'].n).toBe(16 / 2);
    const delta = all[3];
    expect(delta.grounding).toBeNull();
    expect(delta.groundingOutcomes).toBeNull();
    expect(all.every((r) => r.warnings.length === 0)).toBe(true);
  });

  it('folds rotations into CircularEval / VanillaEval outcomes that agree with reasoning.json', async () => {
    const all = await loadAllResults(dirs);
    for (const r of all) {
      const root = r.reasoning.find((v) => v.variant === '')!;
      for (const [split, s] of Object.entries(root.summary!.splits)) {
        const items = root.items!.filter((i) => i.split === split);
        expect(items.length).toBe(s.n);
        expect(s.circular).not.toBeNull();
        expect(items.filter((i) => i.circular).length / items.length).toBeCloseTo(s.circular!, 12);
        // Equal rotations per item: the mean of per-item shares is the per-prompt accuracy.
        expect(items.reduce((a, i) => a + i.vanilla, 0) / items.length).toBeCloseTo(s.vanilla!, 12);
        expect(items.filter((i) => i.first).length / items.length).toBeCloseTo(s.vanilla_first!, 12);
      }
    }
  });

  it('keeps going past bad records and names the file', async () => {
    const ws = await exampleWorkspace();
    const beta = ws.results[1];
    appendFileSync(join(beta, 'reasoning-items.jsonl'), JSON.stringify({ item: 'x', split: 'whatsup-a' }) + '\n{not json\n');
    writeFileSync(join(beta, 'grounding.json'), '{"model": "model-beta", "columns": 3}');
    const r = await loadModelResults(beta);
    expect(r.warnings.some((w) => w.includes('reasoning-items.jsonl') && w.includes('lack required fields'))).toBe(true);
    expect(r.warnings.some((w) => w.includes('reasoning-items.jsonl') && w.includes('malformed JSON'))).toBe(true);
    expect(r.warnings.some((w) => w.includes('grounding.json') && w.includes('columns'))).toBe(true);
    expect(r.grounding).toBeNull();
    expect(r.reasoning[0].items!.length).toBe(12);
  });

  it('rejects an empty folder and duplicate models with one-line errors', async () => {
    const ws = await exampleWorkspace();
    const empty = join(ws.dir, 'empty');
    mkdirSync(empty);
    await expect(loadModelResults(empty)).rejects.toThrow(/no reasoning.json/);
    await expect(loadModelResults(join(ws.dir, 'missing'))).rejects.toThrow(/results folder not found/);
    await expect(loadAllResults([dirs[0], dirs[0]])).rejects.toThrow(/appears twice/);
  });
});

describe('report tables', () => {
  it('Table 1 shows the summary values with bootstrap CIs around them', async () => {
    const all = await loadAllResults(dirs);
    const t = buildReasoningTable(all, stat);
    expect(t.splits).toEqual(['whatsup-a', 'whatsup-b']);
    const alphaJson = JSON.parse(readFileSync(join(dirs[0], 'reasoning.json'), 'utf8'));
    const cell = t.rows[0].cells['whatsup-a'].circular;
    expect(cell.value).toBe(alphaJson.splits['whatsup-a'].circular);
    expect(cell.ci!.low).toBeLessThanOrEqual(cell.value!);
    expect(cell.ci!.high).toBeGreaterThanOrEqual(cell.value!);
    expect(t.rows[0].total.circular.value).toBe(alphaJson.total_average.circular);
    // Same seed, same interval.
    expect(buildReasoningTable(all, stat).rows[0].cells['whatsup-a'].circular.ci).toEqual(cell.ci);
  });

  it('VanillaEval is pooled over prompts and so is its interval, on a split mixing 2 and 4 options', () => {
    // always-first: one rotation of each item right; 20 items of 2 options, 40 of 4.
    const items: ItemOutcome[] = Array.from({ length: 60 }, (_, i) => {
      const k = i < 20 ? 2 : 4;
      return { item: `i${i}`, split: 'mixed', relation: 'on', rotations: k, right: 1, options: k, circular: false, vanilla: 1 / k, first: true, unparsed: false };
    });
    const pooled = 60 / 200;
    const model: ModelResults = {
      model: 'always-first', dir: '/x', grounding: null, groundingOutcomes: null, warnings: [],
      reasoning: [{ variant: '', items, summary: { model: 'always-first', splits: { mixed: { n: 60, circular: 0, vanilla: pooled } }, total_average: { circular: 0, vanilla: pooled } } }],
    };
    const t = buildReasoningTable([model], { seed: 0, resamples: 2000 });
    for (const c of [t.rows[0].cells.mixed.vanilla, t.rows[0].total.vanilla]) {
      expect(c.value).toBe(pooled);
      expect(c.ci!.estimate).toBeCloseTo(pooled, 15);
      expect(c.ci!.low).toBeLessThanOrEqual(pooled);
      expect(c.ci!.high).toBeGreaterThanOrEqual(pooled);
    }
    // The mean of item shares (1/3 here) is a different estimator, whose interval misses the point.
    expect(bootstrapMean(items.map((i) => i.vanilla), { seed: 0 }).low).toBeGreaterThan(pooled);
    // CircularEval against chance: 0 of 60 items passed, p = 1.
    expect(buildSplitBreakdown([model])[0]).toMatchObject({ circular_correct: 0, chance_expected: 20, chance_p: 1, options: { min: 2, max: 4 } });
  });

  it('Table 2 covers models with grounding only, CIs from hits', async () => {
    const all = await loadAllResults(dirs);
    const t = buildGroundingTable(all, stat);
    expect(t.rows.map((r) => r.model)).toEqual(['model-alpha', 'model-beta', 'model-gamma']);
    expect(t.columns).toEqual(['whatsup-a/subject', 'whatsup-a/object', 'whatsup-b/subject', 'whatsup-b/object']);
    const beta = JSON.parse(readFileSync(join(dirs[1], 'grounding.json'), 'utf8'));
    expect(t.rows[1].cells['whatsup-a/object'].value).toBe(beta.columns['whatsup-a/object'].accuracy);
    expect(t.rows[1].avg.value).toBe(beta.avg_g_score);
    // A column with every object hit (or missed) has a zero-width interval.
    const allHit = t.rows[1].cells['whatsup-a/object'];
    expect(allHit.value).toBe(1);
    expect([allHit.ci!.low, allHit.ci!.high]).toEqual([1, 1]);
  });

  it('DAP rows pair the same items and match a hand count', async () => {
    const all = await loadAllResults(dirs);
    const rows = buildDapTable(all);
    const row = rows.find((r) => r.subset === 'all')!;
    const circ = (path: string) => {
      const by = new Map<string, boolean>();
      for (const r of readJsonl(path)) by.set(r.item as string, (by.get(r.item as string) ?? true) && (r.correct as boolean));
      return by;
    };
    const withDap = circ(join(dirs[0], 'dap', 'reasoning-items.jsonl'));
    const without = circ(join(dirs[0], 'nodap', 'reasoning-items.jsonl'));
    let b = 0;
    let c = 0;
    for (const [item, w] of withDap) {
      if (w && !without.get(item)) b++;
      if (!w && without.get(item)) c++;
    }
    expect([row.mcnemar.b, row.mcnemar.c, row.n]).toEqual([b, c, withDap.size]);
    expect(row.with).toBe([...withDap.values()].filter(Boolean).length / withDap.size);
  });

  it('per-split rows test CircularEval against each item\'s chance and position bias sums to 1', async () => {
    const all = await loadAllResults(dirs);
    const rows = buildSplitBreakdown(all);
    const alphaA = rows.find((r) => r.model === 'model-alpha' && r.split === 'whatsup-a')!;
    expect(alphaA.options).toEqual({ min: 4, max: 4 });
    const items = all[0].reasoning[0].items!.filter((i) => i.split === 'whatsup-a');
    const passed = items.filter((i) => i.circular).length;
    expect(alphaA.circular_correct).toBe(passed);
    // Every item has 4 options: H0 is Bin(8, 1/4), 2 passes expected.
    expect(alphaA.chance_expected).toBeCloseTo(2, 12);
    expect(alphaA.chance_p).toBeCloseTo(binomialTest(passed, 8, 0.25).p_greater, 12);
    const bias = positionBiasRows(all).filter((r) => r.series === 'model-alpha');
    expect(bias.map((r) => r.category)).toEqual(['A', 'B', 'C', 'D']);
    expect(bias.reduce((s, r) => s + r.value, 0)).toBeCloseTo(1, 12);
  });

  it('the per-split table counts items and unparsed prompts each in its own unit', async () => {
    const { splitTableHtml } = await import('../../src/report/render.js');
    const model: ModelResults = {
      model: 'answers-a', dir: '/x', grounding: null, groundingOutcomes: null, warnings: [],
      reasoning: [{ variant: '', items: [], summary: { model: 'answers-a', splits: { 'whatsup-a': { n: 60, prompts: 200, circular: 0, vanilla: 0, unparsed: 200 } } } }],
    };
    const html = splitTableHtml(buildSplitBreakdown([model]));
    expect(html).toContain('<th>Items</th><th>Unparsed prompts</th>');
    expect(html).toContain('<td>60</td><td>200 of 200</td>');
  });

  it('orders splits like the benchmark and escapes HTML', () => {
    expect(orderSplits(['zzz', 'gqa-two', 'whatsup-b', 'whatsup-a'])).toEqual(['whatsup-a', 'whatsup-b', 'gqa-two', 'zzz']);
    expect(escapeHtml(`<img src=x onerror="a('b')">&`)).toBe('&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;');
  });
});

describe('partial input', () => {
  it('renders a report for a model with reasoning only', async () => {
    const { renderHtmlReport } = await import('../../src/report/index.js');
    const html = await renderHtmlReport(await loadAllResults([dirs[3]]), { resamples: 100, generated: 'test' });
    expect(html).toContain('No grounding results.');
    expect(html).toContain('needs at least 3 models with both metrics (have 0)');
    expect(html).toContain('data-testid="t1:tg:model-delta:whatsup-a:circular"');
  });
});
