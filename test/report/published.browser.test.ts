import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { comparePublished, loadAllResults } from '../../src/analysis/index.js';
import { readPaperNameMap, readPaperTables } from '../../src/formats/paper.js';
import { runCli } from '../helpers/cli.js';
import { PAPER_NAMED_MODELS, PAPER_NAMED_RESULTS } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the published-tables browser test: ${CHROMIUM} is not installed`);
const dirs = PAPER_NAMED_MODELS.map((m) => join(PAPER_NAMED_RESULTS, m));

describe('published beside measured', () => {
  it('matches folders by name and through the name map, and compares every published column', async () => {
    const list = comparePublished(await loadAllResults(dirs), await readPaperTables(), await readPaperNameMap(), { seed: 0, resamples: 200 });
    const key = (c: (typeof list)[number]) => `${c.table}|${c.model}|${c.paper_model}`;
    expect(list.map(key)).toEqual([
      'Table 1|LLaMA-3-LLaVA-NeXT-8B|LLaMA-3-LLaVA-NeXT-8B',
      'Table 2|LLaMA-3-LLaVA-NeXT-8B|LLaMA-3-LLaVA-NeXT-8B',
      'Table 3|LLaMA-3-LLaVA-NeXT-8B|LLaMA-3-LLaVA-NeXT-8B',
      'Table 1|LLaVA-1.5-Vicuna-7B|LLaVA-1.5-Vicuna-7B',
      'Table 2|LLaVA-1.5-Vicuna-7B|LLaVA-1.5-Vicuna-7B',
      'Table 1|llava-1.5-13b|LLaVA-1.5-Vicuna-13B',
      'Table 2|llava-1.5-13b|LLaVA-1.5-Vicuna-13B',
    ]);
    const t1 = list[0].cells;
    expect(t1.map((c) => c.column)).toEqual(['subset_a', 'subset_b', 'coco_one', 'coco_two', 'gqa_one', 'gqa_two', 'total_average']);
    expect(t1[0].published).toBe(94.2);
    // Total Average as the paper computes it: the plain mean of the six split accuracies.
    const six = t1.slice(0, 6).map((c) => c.ours!);
    expect(t1[6].ours).toBeCloseTo(six.reduce((s, v) => s + v, 0) / 6, 9);
    for (const c of list.flatMap((x) => x.cells)) {
      if (c.ours === null) continue;
      expect(c.difference).toBeCloseTo(c.ours - c.published, 9);
      if (c.low !== null) expect(c.inside).toBe(c.published >= c.low && c.published <= c.high!);
    }
    expect(list[1].cells.at(-1)!.column).toBe('avg_gscore');
    expect(list[2].cells.map((c) => [c.column, c.published])).toEqual([['without_depth', 53.4], ['with_depth', 60.3]]);
  });

  it.skipIf(!haveChromium)('gsr report shows the tables in chromium', { timeout: 300_000 }, async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'gsr-published-')), 'report.html');
    const r = runCli(['report', '--results', ...dirs, '--out', out, '--resamples', '200']);
    expect(r.status).toBe(0);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(`file://${out}`);
      await expect(page.locator('#sec-published h2').textContent()).resolves.toContain('Published beside measured');
      // Seven matched tables, then What'sUp's Subsets A and B among What'sUp's own models.
      expect(await page.locator('#sec-published h3').count()).toBe(9);
      expect(await page.locator('#sec-published table.whatsup').count()).toBe(2);
      for (const d of dirs) {
        const summary = JSON.parse(readFileSync(join(d, 'reasoning.json'), 'utf8')) as { model: string; whatsup: Record<string, { individual: number }> };
        const ours = page.locator(`[data-testid="wupub:whatsup-a:${summary.model}"]`);
        expect(await ours.isVisible()).toBe(true);
        expect(Number(await ours.getAttribute('data-value'))).toBeCloseTo(100 * summary.whatsup['whatsup-a'].individual, 10);
      }
      expect(await page.locator('#sec-whatsup table#whatsup tbody tr').count()).toBe(2 * dirs.length);
      const total = page.locator('[data-testid="pub:Table 1:LLaVA-1.5-Vicuna-7B:total_average"]');
      expect(await total.isVisible()).toBe(true);
      expect(await total.getAttribute('data-published')).toBe('61.3');
      expect(await page.locator('[data-testid="pub:Table 1:llava-1.5-13b:subset_a"] td').nth(2).textContent()).toBe('58.5');
      expect(await page.locator('[data-testid="pub:Table 3:LLaMA-3-LLaVA-NeXT-8B:with_depth"]').isVisible()).toBe(true);
      expect(await page.locator('#sec-published').textContent()).toContain("as the paper's LLaVA-1.5-Vicuna-13B");
    } finally {
      await browser.close();
    }
    const none = runCli(['report', '--results', ...dirs, '--out', out, '--no-paper', '--resamples', '50']);
    expect(none.status).toBe(0);
  });
});
