import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runCli } from '../helpers/cli.js';
import { rleEncode } from '../../src/geometry/index.js';
import { exampleWorkspace, readJsonl } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the report browser test: ${CHROMIUM} is not installed (apt-get install chromium)`);

const SCRIPT = '<script>window.__pwned = 1</script>';
const IMG = '<img src="x" onerror="window.__pwned = 2">';
const HUGE = 'A'.repeat(1_000_000 - 9) + '</script>';
const EVIL_MODEL = 'gamma <b onmouseover="window.__pwned=3">';

describe.skipIf(!haveChromium)('gsr report in headless chromium', () => {
  let browser: Browser;
  let page: Page;
  let ws: Awaited<ReturnType<typeof exampleWorkspace>>;
  const consoleErrors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    ws = await exampleWorkspace();
    // Hostile outputs first in beta's file, so the gallery (first entries per group) shows them.
    const betaItems = join(ws.results[1], 'reasoning-items.jsonl');
    const base = readJsonl(betaItems)[0];
    const hostile = [SCRIPT, IMG, HUGE].map((output, i) => JSON.stringify({ ...base, key: `hostile-${i}`, output, correct: false, status: 'ok' }));
    writeFileSync(betaItems, hostile.join('\n') + '\n' + readFileSync(betaItems, 'utf8'));
    for (const f of ['reasoning.json', 'grounding.json']) {
      const p = join(ws.results[2], f);
      writeFileSync(p, JSON.stringify({ ...JSON.parse(readFileSync(p, 'utf8')), model: EVIL_MODEL }));
    }
    // Masks (a filled rectangle per object) and depth for every item, to check they are drawn.
    const annotations = join(ws.dir, 'annotations.json');
    const coco = { info: {}, images: [] as unknown[], annotations: [] as unknown[], categories: [{ id: 1, name: 'object' }] };
    readJsonl(ws.manifest).forEach((m, i) => {
      const [w, h] = [m.width as number, m.height as number];
      coco.images.push({ id: i + 1, file_name: m.image, width: w, height: h, item_id: m.id, split: m.split });
      for (const role of ['subject', 'object']) {
        const mask = new Uint8Array(w * h);
        for (let y = Math.floor(h / 4); y < Math.floor(h / 2); y++) mask.fill(1, y * w + Math.floor(w / 4), y * w + Math.floor(w / 2));
        coco.annotations.push({ id: coco.annotations.length + 1, image_id: i + 1, category_id: 1, bbox: [w / 4, h / 4, w / 4, h / 4], area: 1, iscrowd: 0, role, phrase: role, score: 0.9, segmentation: rleEncode(mask, h, w), depth: { median: 1.5, mean: 1.5, p10: 1, p90: 2, unit: 'm', region: 'mask' } });
      }
    });
    writeFileSync(annotations, JSON.stringify(coco));
    const out = join(ws.dir, 'report.html');
    const r = runCli(['report', '--results', ...ws.results, '--out', out, '--manifest', ws.manifest, '--annotations', annotations, '--resamples', '500', '--gallery-per-group', '4']);
    expect(r.stderr).toContain('wrote');
    expect(r.status).toBe(0);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    page.on('request', (req) => requests.push(req.url()));
    await page.goto(`file://${out}`);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('loads with no console errors and no request beyond the file itself', async () => {
    expect(consoleErrors).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'))).toEqual([]);
    expect(await page.title()).toBe('gsr-bench report');
    await page.screenshot({ path: join(ws.dir, 'report.png'), fullPage: false });
    expect(existsSync(join(ws.dir, 'report.png'))).toBe(true);
  });

  it('tables show the numbers of the results files', async () => {
    const value = async (id: string) => Number(await page.getByTestId(id).getAttribute('data-value'));
    const text = async (id: string) => (await page.getByTestId(id).textContent())!;
    const alpha = JSON.parse(readFileSync(join(ws.results[0], 'reasoning.json'), 'utf8'));
    expect(await value('t1:tg:model-alpha:whatsup-a:circular')).toBe(alpha.splits['whatsup-a'].circular);
    expect(await text('t1:tg:model-alpha:whatsup-a:circular')).toMatch(new RegExp(`^${(100 * alpha.splits['whatsup-a'].circular).toFixed(1)}\\[`));
    expect(await value('t1:tg:model-alpha:total:vanilla')).toBe(alpha.total_average.vanilla);
    const delta = JSON.parse(readFileSync(join(ws.results[3], 'reasoning.json'), 'utf8'));
    expect(await value('t1:tg:model-delta:whatsup-b:vanilla')).toBe(delta.splits['whatsup-b'].vanilla);
    const beta = JSON.parse(readFileSync(join(ws.results[1], 'grounding.json'), 'utf8'));
    expect(await value('t2:model-beta:whatsup-a/object')).toBe(beta.columns['whatsup-a/object'].accuracy);
    expect(await value('t2:model-beta:avg')).toBe(beta.avg_g_score);
    // model-delta has no grounding: no Table 2 row, but a Table 1 row.
    expect(await page.locator('#table2 tbody tr:not(.detector)').count()).toBe(3);
    // The example annotations all have confidence 0.9: the detector rows read 0.900 (a score) and 100.0 (%).
    expect(await page.locator('#table2 tr.detector td[data-value]').first().textContent()).toBe('0.900');
    expect(await page.locator('#table1-tg tbody tr').count()).toBe(4);
    // DAP: McNemar p from the item files.
    const p = await value('dap:model-alpha:whatsup-b:all:p');
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThanOrEqual(1);
    expect(await page.locator('#sec-regression svg').count()).toBe(1);
    expect(await page.locator('#sec-position-bias svg').count()).toBe(1);
  });

  it('hostile model text renders as text, never as markup', async () => {
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    const outputs = await page.locator('#gallery pre.output').allTextContents();
    expect(outputs).toContain(SCRIPT);
    expect(outputs).toContain(IMG);
    // The 1 MB output is a 2,000-character preview; the whole text is the linked side file.
    expect(outputs).toContain(HUGE.slice(0, 2000));
    const hrefs = await page.locator('#gallery a', { hasText: 'whole output' }).evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(hrefs).toHaveLength(1);
    expect(readFileSync(join(ws.dir, hrefs[0]), 'utf8')).toBe(HUGE);
    expect(await page.locator('#gallery img, #gallery script, b[onmouseover]').count()).toBe(0);
    expect(await page.locator('#table1-tg tbody th', { hasText: EVIL_MODEL }).count()).toBe(1);
  });

  it('gallery filters by model, split and verdict', async () => {
    const visible = () => page.locator('#gallery .entry:visible');
    const total = await page.locator('#gallery .entry').count();
    expect(await visible().count()).toBe(total);
    await page.selectOption('select[data-filter="model"]', 'model-alpha');
    const alphaCount = await visible().count();
    expect(alphaCount).toBeGreaterThan(0);
    expect(alphaCount).toBeLessThan(total);
    expect(new Set(await visible().evaluateAll((els) => els.map((e) => e.getAttribute('data-model'))))).toEqual(new Set(['model-alpha']));
    await page.selectOption('select[data-filter="split"]', 'whatsup-b');
    await page.selectOption('select[data-filter="verdict"]', 'hit');
    const rows = await visible().evaluateAll((els) => els.map((e) => [e.getAttribute('data-model'), e.getAttribute('data-split'), e.getAttribute('data-verdict')].join('|')));
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows)).toEqual(new Set(['model-alpha|whatsup-b|hit']));
    // Entries with images carry the annotation and model boxes.
    expect(await visible().first().locator('.box.gt').count()).toBe(1);
    expect(await visible().first().locator('.box.pred').count()).toBe(1);
    expect(await visible().first().locator('.mask').count()).toBe(1);
    expect(await visible().first().locator('.meta').first().textContent()).toContain('depth median 1.500 m');
    expect(await page.locator('#shown').textContent()).toBe(`${rows.length} of ${total} shown`);
    await page.locator('#gallery').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ws.dir, 'report-filtered.png') });
    await page.selectOption('select[data-filter="model"]', '');
    await page.selectOption('select[data-filter="split"]', '');
    await page.selectOption('select[data-filter="verdict"]', '');
    expect(await visible().count()).toBe(total);
  });
});
