/**
 * The review app's layout from 1280 px up, with photos larger than the screen: the info panel and
 * the action buttons stay inside the window (no horizontal scrolling), and the box overlay covers
 * the photo exactly. The server runs in-process; the 1280 px view is saved as a screenshot.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ReviewSession, serveReview } from '../../src/review/index.js';
import { screenshotPath } from '../helpers/screenshots.js';
import { syntheticReviewSet } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the review layout test: ${CHROMIUM} is not installed (apt-get install chromium)`);

describe.skipIf(!haveChromium)('review app layout', () => {
  let session: ReviewSession;
  let server: Awaited<ReturnType<typeof serveReview>>;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const set = await syntheticReviewSet(3, { seed: 1, rate: 0.5 }, 5, { width: 1600, height: 1200 });
    session = await ReviewSession.open({ annotations: set.pseudoFile, manifest: set.manifest, reviewer: 'layout', segmenter: null });
    server = await serveReview(session, { port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(server.url);
    await page.getByTestId('queue-entry').first().waitFor();
    // Polled from here: waitForFunction polls with eval inside the page, which the app's CSP refuses
    // once the first, synchronous check has passed without the photo loaded.
    const loaded = "(() => { const img = document.querySelector('#photo'); return img !== null && img.complete && img.naturalWidth > 0; })()";
    for (const deadline = Date.now() + 60_000; !(await page.evaluate(loaded)); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > deadline) throw new Error('the photo did not load within 60 s');
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await session?.close();
  });

  for (const width of [1280, 1400, 1920]) {
    it(`fits a 1600 px photo and the panel in ${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });
      const box = async (sel: string) => (await page.locator(sel).boundingBox())!;
      const panel = await box('#panel');
      const photo = await box('#photo');
      const overlay = await box('#overlay');
      expect(panel.x + panel.width, 'info panel inside the window').toBeLessThanOrEqual(width);
      expect(panel.width).toBeGreaterThanOrEqual(220);
      expect(photo.x + photo.width).toBeLessThanOrEqual(panel.x);
      expect(photo.width, 'the photo keeps a usable size').toBeGreaterThanOrEqual(400);
      for (const k of ['x', 'y', 'width', 'height'] as const) expect(Math.abs(overlay[k] - photo[k]), `overlay ${k}`).toBeLessThanOrEqual(1);
      const actions = await box('#actions');
      expect(actions.x + actions.width).toBeLessThanOrEqual(width);
      const scroll = (await page.evaluate("({ doc: document.documentElement.scrollWidth, main: document.querySelector('main').scrollWidth - document.querySelector('main').clientWidth })")) as { doc: number; main: number };
      expect(scroll.doc, 'no horizontal scrolling').toBeLessThanOrEqual(width);
      expect(scroll.main).toBeLessThanOrEqual(0);
      if (width === 1280) await page.screenshot({ path: screenshotPath('review-1280.png') });
    }, 60_000);
  }
});
