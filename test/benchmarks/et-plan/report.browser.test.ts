import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runBenchPipeline } from '../../../src/pipeline/bench.js';
import { writeFixtureItemSet } from './fixture-items.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the et-plan report browser test: ${CHROMIUM} is not installed`);

describe.skipIf(!haveChromium)('the et-plan report in headless chromium', () => {
  it('shows the tables, the plot and a replay view that steps through an episode', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-etplan-report-'));
    await writeFixtureItemSet(join(dir, 'items'));
    const file = join(dir, 'et-plan.yaml');
    writeFileSync(file, `name: et-plan-report
out: ${join(dir, 'out')}
benchmark: { name: et-plan, items: ${join(dir, 'items')} }
models:
  - { name: oracle, kind: oracle }
  - { name: greedy, kind: greedy }
report: { title: ET-Plan-Bench report test, replay: man-mug-microwave }
`);
    const r = await runBenchPipeline(file);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('request', (q) => !q.url().startsWith('file:') && !q.url().startsWith('data:') && requests.push(q.url()));
      await page.goto(`file://${r.report}`);
      await expect(page.locator('#tbl-et-plan-metrics tr').count()).resolves.toBeGreaterThan(4);
      expect(await page.locator('#sec-et-plan-success-plot svg').count()).toBe(1);
      // Two replays (oracle, greedy) of the same item; before any click each shows its first frame only.
      const oracle = page.locator('#replay-0');
      expect(await oracle.locator('.frame').count()).toBe(6);
      expect(await oracle.locator('.frame:visible').count()).toBe(1);
      expect(await oracle.locator('.frame:visible').getAttribute('data-step')).toBe('0');
      await expect(oracle.locator('.frame:visible .room').textContent()).resolves.toBe('bedroom (3)');
      await expect(oracle.locator('.frame:visible .held').textContent()).resolves.toBe('nothing');
      expect(await page.locator('#replay-1 .frame:visible').count()).toBe(1);
      // Step by step: next, next (the grab), then a jump through the strip to the last step.
      await oracle.locator('.frame:visible a.next').click();
      await oracle.locator('.frame:visible a.next').click();
      const frame = oracle.locator('.frame:visible');
      expect(await frame.getAttribute('data-step')).toBe('2');
      await expect(frame.locator('code.action').textContent()).resolves.toBe('[grab] <mug> (24)');
      await expect(frame.locator('.room').textContent()).resolves.toBe('kitchen (1)');
      await expect(frame.locator('.held').textContent()).resolves.toBe('mug (24)');
      await expect(frame.locator('pre.visible').textContent()).resolves.toContain('- microwave (26), closed, off');
      expect(await frame.locator('svg.plan circle.character').count()).toBe(1);
      await oracle.locator('.strip a').nth(5).click();
      await expect(oracle.locator('.frame:visible code.action').textContent()).resolves.toBe('[putin] <mug> (24) <microwave> (26)');
      await expect(oracle.locator('.frame:visible').textContent()).resolves.toContain('Criteria steps met: 1 of 1');
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
