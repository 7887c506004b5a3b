/** The review server's guards: token beyond loopback, Host header, paths that leave the dataset root. */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, isLoopback } from '../../src/review/server.js';
import { ReviewSession } from '../../src/review/session.js';
import { syntheticReviewSet, type SyntheticReviewSet } from './helpers.js';
import { scaled } from '../helpers/cli.js';

describe('review server guards', () => {
  let set: SyntheticReviewSet;
  let session: ReviewSession;
  let outside: string;

  beforeAll(async () => {
    set = await syntheticReviewSet(4, { seed: 2, rate: 0 });
    outside = mkdtempSync(join(tmpdir(), 'gsr-outside-'));
    writeFileSync(join(outside, 'secret.jpg'), 'not for you');
    // Item 0's image becomes a symlink that leads out of the dataset root.
    const items = readFileSync(set.manifest, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    mkdirSync(join(set.dir, 'linked'));
    symlinkSync(join(outside, 'secret.jpg'), join(set.dir, 'linked', 'escape.jpg'));
    items[0].image = 'linked/escape.jpg';
    writeFileSync(set.manifest, items.map((i: unknown) => JSON.stringify(i)).join('\n') + '\n');
    session = await ReviewSession.open({ annotations: set.pseudoFile, manifest: set.manifest, journal: join(set.dir, 'j.sqlite'), segmenter: null });
  }, scaled(60_000));

  afterAll(async () => {
    await session?.close();
  }, scaled(180_000));

  it('needs the token on every API request when one is set', async () => {
    const app = await buildServer(session, { token: 'tok-123', allowedHosts: null });
    expect((await app.inject({ url: '/api/session' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/session?token=wrong' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/session', headers: { 'x-gsr-token': 'tok-12' } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/api/session?token=tok-123' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/queue', headers: { 'x-gsr-token': 'tok-123' } })).statusCode).toBe(200);
    const edit = await app.inject({ method: 'POST', url: `/api/slot/${set.items[1].id}/subject/edit`, payload: { kind: 'accept' } });
    expect(edit.statusCode).toBe(401);
    // The page itself holds no data and loads without the token (it reads it from its URL).
    const page = await app.inject({ url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'sha256-/);
    await app.close();
  }, scaled(180_000));

  it('makes a token for any address but loopback', () => {
    for (const h of ['127.0.0.1', '127.3.2.1', '::1', 'localhost']) expect(isLoopback(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.5', 'example.org']) expect(isLoopback(h)).toBe(false);
  }, scaled(180_000));

  it('answers only to the bound host names on loopback (no DNS rebinding)', async () => {
    const app = await buildServer(session, { token: null, allowedHosts: new Set(['127.0.0.1:9999']) });
    expect((await app.inject({ url: '/api/session', headers: { host: 'evil.example:9999' } })).statusCode).toBe(421);
    expect((await app.inject({ url: '/api/session', headers: { host: '127.0.0.1:9999' } })).statusCode).toBe(200);
    await app.close();
  }, scaled(180_000));

  it('serves images inside the dataset root and refuses one whose real path leaves it', async () => {
    const app = await buildServer(session, { token: null, allowedHosts: null });
    const ok = await app.inject({ url: `/api/image/${set.items[1].id}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('image/jpeg');
    const escaped = await app.inject({ url: `/api/image/${set.items[0].id}` });
    expect(escaped.statusCode).toBe(400);
    expect(escaped.body).not.toContain('not for you');
    expect(JSON.parse(escaped.body).error).toMatch(/leads outside/);
    for (const url of ['/api/image/..%2F..%2Fetc%2Fpasswd', '/api/image/%2Fetc%2Fpasswd', '/api/slot/..%2Fx/subject']) {
      const r = await app.inject({ url });
      expect(r.statusCode).toBe(400);
      expect(JSON.parse(r.body).error).toMatch(/no (item|label)/);
    }
    await app.close();
  }, scaled(180_000));

  it('rejects malformed edits and says when no segmenter is installed, keeping the box edit', async () => {
    const app = await buildServer(session, { token: null, allowedHosts: null });
    const key = `/api/slot/${set.items[1].id}/subject`;
    expect((await app.inject({ method: 'POST', url: `${key}/edit`, payload: { kind: 'box', box: [1, 2, 'x', 4] } })).statusCode).toBe(400);
    expect((await app.inject({ method: 'POST', url: `${key}/edit`, payload: { kind: 'mask', box: [1, 2, 3, 4], mask: { size: [1, 1], counts: '' }, score: 1, segmenter: 'x' } })).statusCode).toBe(400);
    expect((await app.inject({ method: 'POST', url: `${key}/edit`, payload: { kind: 'box', box: [50, 40, 10, 60] } })).statusCode).toBe(400);
    const box = await app.inject({ method: 'POST', url: `${key}/edit`, payload: { kind: 'box', box: [10, 20, 110, 120.004] } });
    expect(box.statusCode).toBe(200);
    expect(JSON.parse(box.body)).toMatchObject({ box: [10, 20, 110, 120], state: 'edited', box_changed: true });
    const seg = await app.inject({ method: 'POST', url: `${key}/segment` });
    expect(seg.statusCode).toBe(409);
    expect(JSON.parse(seg.body).error).toMatch(/no segmenter installed.*box edit is kept/);
    expect(session.label(`${set.items[1].id}/subject`).box).toEqual([10, 20, 110, 120]);
    await app.close();
  }, scaled(180_000));

  it('refuses a journal made for another annotation file', async () => {
    await expect(ReviewSession.open({ annotations: set.truthFile, manifest: set.manifest, journal: join(set.dir, 'j.sqlite'), segmenter: null })).rejects.toThrow(/reviews another annotation file/);
  }, scaled(180_000));
});
