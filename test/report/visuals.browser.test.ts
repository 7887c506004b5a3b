/**
 * The report's pictures in headless chromium with twelve models (the example results three times
 * over, renamed): distinct colours past ten models, accuracy axes on 0-100% titled in words with a
 * point at 0 in view, confidences as scores, one gallery card per item. Screenshots of each part go
 * through test/helpers/screenshots.ts.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runCli } from '../helpers/cli.js';
import { closestPair } from '../helpers/colour.js';
import { screenshotPath } from '../helpers/screenshots.js';
import { exampleWorkspace, MODELS } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the report visuals test: ${CHROMIUM} is not installed (apt-get install chromium)`);

describe.skipIf(!haveChromium)('report visuals in headless chromium', () => {
  let browser: Browser;
  let page: Page;
  const names: string[] = [];

  beforeAll(async () => {
    const ws = await exampleWorkspace('gsr-visuals-');
    const dirs = [...ws.results];
    for (const copy of [2, 3]) {
      for (const m of MODELS) {
        const dir = join(ws.dir, 'results', `${m}-${copy}`);
        cpSync(join(ws.dir, 'results', m), dir, { recursive: true });
        for (const f of ['reasoning.json', 'grounding.json']) {
          const p = join(dir, f);
          if (existsSync(p)) writeFileSync(p, JSON.stringify({ ...JSON.parse(readFileSync(p, 'utf8')), model: `${m}-${copy}` }));
        }
        dirs.push(dir);
      }
    }
    // One model at 0 on both regression axes: its point must not hide on an axis.
    const zero = join(ws.dir, 'results', 'model-alpha-3');
    const g = JSON.parse(readFileSync(join(zero, 'grounding.json'), 'utf8'));
    g.columns['whatsup-a/subject'].accuracy = 0;
    writeFileSync(join(zero, 'grounding.json'), JSON.stringify(g));
    const rs = JSON.parse(readFileSync(join(zero, 'reasoning.json'), 'utf8'));
    rs.splits['whatsup-a'].circular = 0;
    writeFileSync(join(zero, 'reasoning.json'), JSON.stringify(rs));
    names.push(...dirs.map((d) => JSON.parse(readFileSync(join(d, 'reasoning.json'), 'utf8')).model as string));
    const out = join(ws.dir, 'report.html');
    const r = runCli(['report', '--results', ...dirs, '--out', out, '--manifest', ws.manifest, '--resamples', '200', '--gallery-per-group', '3']);
    expect(r.status, r.stderr).toBe(0);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`file://${out}`);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('gives each of twelve models its own colour', async () => {
    expect(names).toHaveLength(12);
    const legend = await page.locator('#sec-position-bias svg .role-legend-symbol path').evaluateAll((ps) => ps.map((p) => p.getAttribute('fill')!));
    expect(legend).toHaveLength(12);
    expect(new Set(legend).size).toBe(12);
    expect(closestPair(legend), 'the closest two legend colours (CIE76 ΔE)').toBeGreaterThan(10);
    // The bars use the legend's colours.
    const bars = await page.locator('#sec-position-bias svg .mark-rect.role-mark path').evaluateAll((ps) => ps.map((p) => p.getAttribute('fill')!));
    expect(new Set(bars)).toEqual(new Set(legend));
    await page.locator('#sec-position-bias .plot').screenshot({ path: screenshotPath('report-position-bias.png') });
  });

  it('draws the regression on 0-100% axes titled in words, with the point at 0 in view', async () => {
    const svg = page.locator('#sec-regression svg');
    const labels = await svg.locator('.role-axis-label text').allTextContents();
    expect(labels).toContain('100%');
    expect(labels).toContain('0%');
    expect(labels.filter((l) => /^1[1-9]0%$|^1\.1$|^-/.test(l))).toEqual([]);
    const titles = await svg.locator('.role-axis-title text').allTextContents();
    expect(titles).toEqual(expect.arrayContaining(["G-Score, What'sUp Subset A subjects (%)", "CircularEval, What'sUp Subset A (%)"]));
    expect(titles.join(' ')).not.toMatch(/grounding:|reasoning:/);
    // Every point lies inside the picture and clear of both axis lines.
    const points = await svg.locator('.mark-symbol.role-mark path').evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect()).map((b) => ({ left: b.left, right: b.right, top: b.top, bottom: b.bottom })));
    const domains = await svg.locator('.role-axis-domain line').evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect()).map((b) => ({ left: b.left, right: b.right, top: b.top, bottom: b.bottom })));
    expect(points.length).toBeGreaterThanOrEqual(3);
    const yAxis = domains.find((d) => d.right - d.left < 2)!;
    const xAxis = domains.find((d) => d.bottom - d.top < 2)!;
    const leftmost = points.reduce((a, b) => (a.left < b.left ? a : b));
    expect(leftmost.left, 'the point at 0 is right of the y axis').toBeGreaterThan(yAxis.right);
    expect(Math.max(...points.map((p) => p.bottom)), 'the point at 0 is above the x axis').toBeLessThan(xAxis.top);
    await page.locator('#sec-regression .plot').screenshot({ path: screenshotPath('report-regression.png') });
  });

  it('shows one gallery card per item with all its rotations', async () => {
    const cards = await page.locator('#gallery .entry[data-kind="reasoning"]').evaluateAll((es) => es.map((e) => `${e.getAttribute('data-model')}|${e.getAttribute('data-item')}`));
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.length).toBe(new Set(cards).size);
    const first = page.locator('#gallery .entry[data-kind="reasoning"]').first();
    const answers = await first.locator('.answer').count();
    expect(answers).toBeGreaterThan(1);
    expect(await first.locator('.thumb').count()).toBe(1);
    expect(await first.locator('.meta').first().textContent()).toMatch(new RegExp(`\\d+ of ${answers} rotations right`));
    await page.selectOption('select[data-filter="kind"]', 'reasoning');
    await page.locator('#gallery').scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('report-gallery.png') });
  });
});
