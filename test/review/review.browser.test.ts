/**
 * The whole review loop in headless chromium: the queue on corrupted synthetic labels, a corner
 * dragged with the mouse, keyboard accept, re-segmenting with the fixture SAM, reload, a killed and
 * restarted server, and the exported COCO file with its provenance.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { readCocoFile } from '../../src/formats/coco.js';
import { rleDecode } from '../../src/geometry/rle.js';
import { buildSlots } from '../../src/review/labels.js';
import { buildQueue } from '../../src/review/queue.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';
import { writeSamDecoderFixture, writeSamEncoderFixture } from '../helpers/onnx-fixtures.js';
import { syntheticReviewSet, type SyntheticReviewSet } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`skipping the review browser test: ${CHROMIUM} is not installed (apt-get install chromium)`);

const REVIEWER = 'eve <img src=x onerror="window.__pwned=1">';
const NOTE = '<script>window.__pwned = 2</script><b onmouseover="window.__pwned=3">bold?</b>';

interface Server {
  child: ChildProcess;
  url: string;
}

function startServer(args: string[]): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'review', ...args], { cwd: REPO_ROOT, env: { ...process.env, GSR_PROGRESS: '0' } });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /gsr review: (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${err}`));
    });
  });
}

function kill(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!server || server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}

describe.skipIf(!haveChromium)('gsr review in headless chromium', () => {
  let set: SyntheticReviewSet;
  let args: string[];
  let server: Server | undefined;
  let browser: Browser;
  let page: Page;
  let key: string;
  let dragged: number[];
  const errors: string[] = [];
  // Requests the page has sent and not yet finished: the restart test kills the server only when
  // there are none, so what it checks is the journal, not a request cut mid-answer.
  const inFlight = new Set<Request>();

  beforeAll(async () => {
    set = await syntheticReviewSet(40, { seed: 3, rate: 0.1 });
    const models = join(set.dir, 'models', 'slimsam-77-uniform');
    mkdirSync(models, { recursive: true });
    writeSamEncoderFixture(join(models, 'vision_encoder.onnx'));
    writeSamDecoderFixture(join(models, 'prompt_encoder_mask_decoder.onnx'));
    args = ['--annotations', set.pseudoFile, '--manifest', set.manifest, '--port', '0', '--reviewer', REVIEWER, '--segmenter', 'slimsam-77-uniform', '--models-dir', join(set.dir, 'models')];
    server = await startServer(args);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('request', (r) => inFlight.add(r));
    page.on('requestfinished', (r) => inFlight.delete(r));
    page.on('requestfailed', (r) => inFlight.delete(r));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(server.url);
    await page.getByTestId('queue-entry').first().waitFor();
  }, scaled(180_000));

  afterAll(async () => {
    await browser?.close();
    await kill(server);
  }, scaled(180_000));

  it('lists the corrupted labels first, in the library queue order', async () => {
    const shown = await page.getByTestId('queue-entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')));
    const { slots } = buildSlots(set.pseudo, set.items);
    expect(shown).toEqual(buildQueue(slots, set.pseudo).map((e) => e.key));
    const corrupted = new Set(set.corrupted.map((c) => c.key));
    const head = shown.slice(0, corrupted.size);
    const inHead = head.filter((k) => corrupted.has(k!)).length;
    console.log(`review browser test: ${inHead} of the first ${corrupted.size} queue entries are the ${corrupted.size} corrupted labels (${shown.length} labels)`);
    expect(inHead / corrupted.size).toBeGreaterThanOrEqual(0.6);
    expect(corrupted.has(shown[0]!)).toBe(true);
    // Every entry shows why it is there.
    expect(await page.getByTestId('queue-entry').first().locator('.why').textContent()).not.toBe('');
  }, scaled(180_000));

  it('drags a corner with the mouse, re-segments, takes a note and accepts with the keyboard', async () => {
    const target = set.corrupted.find((c) => c.kind !== 'not-found')!;
    key = target.key;
    await page.locator(`#queue li[data-key="${key}"]`).click();
    await expect.poll(() => page.getByTestId('phrase').textContent()).toBe(set.items.find((i) => i.id === target.item)![target.role]);
    const before = (await page.getByTestId('box-readout').textContent())!.split(', ').map(Number);
    // Drag the bottom-right corner to the true box's bottom-right corner.
    const handle = await page.getByTestId('handle-se').boundingBox();
    const overlay = (await page.getByTestId('overlay').boundingBox())!;
    const image = set.pseudo.images.find((i) => i.item_id === target.item)!;
    const sx = overlay.width / image.width;
    const sy = overlay.height / image.height;
    // Keep the corner right and below the box's top-left, so the box stays valid.
    const tx = Math.max(target.truth[2], before[0] + 20);
    const ty = Math.max(target.truth[3], before[1] + 20);
    await page.mouse.move(handle!.x + handle!.width / 2, handle!.y + handle!.height / 2);
    await page.mouse.down();
    await page.mouse.move(overlay.x + tx * sx, overlay.y + ty * sy, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('saved: box');
    dragged = (await page.getByTestId('box-readout').textContent())!.split(', ').map(Number);
    expect(dragged[0]).toBeCloseTo(before[0], 0);
    expect(dragged[1]).toBeCloseTo(before[1], 0);
    expect(Math.abs(dragged[2] - tx)).toBeLessThanOrEqual(2);
    expect(Math.abs(dragged[3] - ty)).toBeLessThanOrEqual(2);
    expect(await page.getByTestId('model-box').count()).toBe(1);

    await page.keyboard.press('s');
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: scaled(60_000) }).toBe('saved: re-segment');
    await expect.poll(() => page.getByTestId('mask').isVisible()).toBe(true);
    expect(await page.locator('#info').textContent()).toContain('slimsam-77-uniform');

    page.once('dialog', (d) => void d.accept(NOTE));
    await page.keyboard.press('n');
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('saved: note');
    expect(await page.getByTestId('note').textContent()).toBe(NOTE);

    await page.keyboard.press('a');
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('saved: accept');
    // Accepting moves on to the next label.
    await expect.poll(() => page.locator('#queue li.current').getAttribute('data-key')).not.toBe(key);
    await page.screenshot({ path: join(set.dir, 'review.png') });
  }, scaled(120_000));

  it('shows the reviewer name and note as text, never as markup', async () => {
    await page.locator(`#queue li[data-key="${key}"]`).click();
    await expect.poll(() => page.getByTestId('note').textContent()).toBe(NOTE);
    expect(await page.locator('#reviewer').textContent()).toBe(`reviewer: ${REVIEWER}`);
    expect(await page.locator('#info').textContent()).toContain(REVIEWER);
    expect(await page.locator('main b, header img, main script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  }, scaled(180_000));

  const expectEdit = async () => {
    await expect.poll(() => page.getByTestId('state').textContent()).toBe('accepted');
    expect((await page.getByTestId('box-readout').textContent())!.split(', ').map(Number)).toEqual(dragged);
    await expect.poll(() => page.getByTestId('mask').isVisible()).toBe(true);
    expect(await page.getByTestId('note').textContent()).toBe(NOTE);
  };

  it('keeps the edit across a reload', async () => {
    await page.reload();
    await page.locator(`#queue li[data-key="${key}"]`).click();
    await expectEdit();
    expect(await page.locator(`#queue li[data-key="${key}"] .badge`).textContent()).toBe('accepted');
  }, scaled(180_000));

  it('keeps the edit when the server is killed and started again', async () => {
    await expect.poll(() => inFlight.size).toBe(0);
    await kill(server);
    // With the server gone, a click says so in the status line; the only console lines are the
    // browser's own for the refused connection, and nothing is thrown.
    const before = errors.length;
    await page.locator('#queue li').nth(1).click();
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('not loaded: cannot reach the review server (is gsr review still running?)');
    expect(errors.splice(before)).toEqual(['Failed to load resource: net::ERR_CONNECTION_REFUSED']);
    server = await startServer(args);
    await page.goto(`${server.url}#${encodeURIComponent(key)}`);
    await expectEdit();
  }, scaled(120_000));

  it('draws a box for a noun the detector never found, and undoes it with the keyboard', async () => {
    const missing = set.corrupted.find((c) => c.kind === 'not-found')!;
    await page.locator(`#queue li[data-key="${missing.key}"]`).click();
    await expect.poll(() => page.getByTestId('box-readout').textContent()).toBe('none');
    const overlay = (await page.getByTestId('overlay').boundingBox())!;
    await page.keyboard.press('d');
    await page.mouse.move(overlay.x + overlay.width * 0.2, overlay.y + overlay.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(overlay.x + overlay.width * 0.4, overlay.y + overlay.height * 0.6, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('saved: box');
    expect(await page.getByTestId('state').textContent()).toBe('edited');
    const image = set.pseudo.images.find((i) => i.item_id === missing.item)!;
    const drawn = (await page.getByTestId('box-readout').textContent())!.split(', ').map(Number);
    expect(drawn[0]).toBeCloseTo(image.width * 0.2, -1);
    expect(drawn[3]).toBeCloseTo(image.height * 0.6, -1);
    expect(await page.getByTestId('model-box').count()).toBe(0);
    await page.keyboard.press('z');
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('saved: undo');
    expect(await page.getByTestId('box-readout').textContent()).toBe('none');
    expect(await page.getByTestId('state').textContent()).toBe('unreviewed');
    expect(await page.locator('#btn-undo').isDisabled()).toBe(true);
  }, scaled(180_000));

  it('filters the queue by review state and reason', async () => {
    await page.selectOption('#filter-state', 'accepted');
    await expect.poll(() => page.getByTestId('queue-entry').count()).toBe(1);
    await page.selectOption('#filter-state', '');
    await page.selectOption('#filter-reason', 'not-found');
    const n = set.corrupted.filter((c) => c.kind === 'not-found').length;
    await expect.poll(() => page.getByTestId('queue-entry').count()).toBe(n);
    await page.selectOption('#filter-reason', '');
    expect(errors).toEqual([]);
  }, scaled(180_000));

  it('exports COCO with provenance that the later stages read', async () => {
    const out = join(set.dir, 'reviewed.json');
    const r = runCli(['review', 'export', '--annotations', set.pseudoFile, '--manifest', set.manifest, '--out', out, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).counts).toMatchObject({ 'human-edited': 1, 'human-accepted': 0 });
    const coco = JSON.parse(readFileSync(out, 'utf8'));
    const target = set.corrupted.find((c) => c.key === key)!;
    const image = coco.images.find((i: { item_id: string }) => i.item_id === target.item);
    const ann = coco.annotations.find((a: { image_id: number; role: string }) => a.image_id === image.id && a.role === target.role);
    const model = set.pseudo.annotations.find((a) => a.image_id === image.id && a.role === target.role)!;
    expect(ann.review).toMatchObject({ source: 'human-edited', reviewer: REVIEWER });
    expect(Date.parse(ann.review.time)).toBeGreaterThan(Date.now() - 600_000);
    expect(ann.model_bbox).toEqual(model.bbox);
    expect(ann.bbox).toEqual([dragged[0], dragged[1], dragged[2] - dragged[0], dragged[3] - dragged[1]].map((v) => expect.closeTo(v, 0)) as unknown as number[]);
    // The fixture segmenter's mask is the box itself.
    const mask = rleDecode(ann.segmentation);
    expect(ann.area).toBe(mask.reduce((s: number, v: number) => s + v, 0));
    expect(ann.area / (ann.bbox[2] * ann.bbox[3])).toBeGreaterThan(0.9);
    expect(ann.depth?.region).toBe('mask');
    const untouched = coco.annotations.filter((a: { review: { source: string } }) => a.review.source === 'model');
    expect(untouched.length).toBe(set.pseudo.annotations.length - 1);
    expect(untouched.every((a: { review: { reviewer: unknown } }) => a.review.reviewer === null)).toBe(true);
    expect(coco.info.review).toMatchObject({ base_file: set.pseudoFile, reviewers: [REVIEWER] });
    // Valid against the annotation file schema (the relabel test scores a reviewed file too).
    await readCocoFile(out);
  }, scaled(180_000));
});
