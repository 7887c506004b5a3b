/**
 * Pinned, verified downloads against a fake Hugging Face hub on loopback (test/helpers/fake-hub.ts):
 * the manifest's revision, the hub's sha256 and git sha1, the lock file, a changed file refused and
 * taken with --update, an interrupted pull resumed through the CDN redirect.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeModel } from '../../src/annotate/provenance.js';
import { readModelsLock, writeModelsLock } from '../../src/formats/models-lock.js';
import { listManifests, parseManifest, type ModelManifest } from '../../src/perception/manifest.js';
import { pullModel } from '../../src/perception/pull.js';
import { GsrError } from '../../src/util/errors.js';
import { REPO_ROOT, scaled } from '../helpers/cli.js';
import { FakeHub, gitSha1Of, sha256Of } from '../helpers/fake-hub.js';
import { writeDepthFixture } from '../helpers/onnx-fixtures.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-pull-'));
const hub = new FakeHub();
// Deterministic bytes: a large (LFS) model file and a small tokenizer file, and a second version of each.
const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + ((i * i) >> 3)) & 255));
const MODEL_V1 = bytes(200_000, 1);
const MODEL_V2 = bytes(200_000, 2);
const TOKENIZER = Buffer.from(JSON.stringify({ version: '1.0', vocab: { a: 0, b: 1 } }));

function manifest(id: string, files: Array<{ role: string; path: string; url: string; sha256?: string | null; bytes?: number | null }>, revision: string | null): ModelManifest {
  const depth = JSON.parse(readFileSync(join(REPO_ROOT, 'models/depth-anything-v2-small.json'), 'utf8')) as Record<string, unknown>;
  return parseManifest({ ...depth, id, revision, files: files.map((f) => ({ sha256: null, bytes: null, ...f })) }, id);
}

let dirCount = 0;
const freshDir = () => join(work, `models-${dirCount++}`);
const errorOf = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as Error);
const since = (n: number) => hub.requests.slice(n);

/** Runs the CLI without blocking this process (the fake hub must keep answering). */
function gsr(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), ...args], { cwd: REPO_ROOT, env: { ...process.env, GSR_PROGRESS: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

let pinned = '';
beforeAll(async () => {
  await hub.start();
  hub.set('onnx/model.onnx', MODEL_V1);
  hub.set('tokenizer.json', TOKENIZER);
  pinned = hub.commit;
});
afterAll(() => hub.close());

describe('gsr models pull: pinned revision, verified by the hub', () => {
  it("a large file through the CDN redirect is checked against the hub's sha256; a small one against its git blob sha1; both go in the lock", async () => {
    const dir = freshDir();
    const m = manifest(
      'tiny',
      [
        { role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned) },
        { role: 'tokenizer', path: 'tokenizer.json', url: hub.url('tokenizer.json', pinned) },
      ],
      pinned,
    );
    const before = hub.requests.length;
    const [model, tokenizer] = await pullModel(m, dir);
    expect(model).toMatchObject({ action: 'downloaded', verified: 'hub-sha256', sha256Verified: true, sha256: sha256Of(MODEL_V1), bytes: MODEL_V1.length, revision: pinned });
    expect(tokenizer).toMatchObject({ action: 'downloaded', verified: 'hub-git-sha1', sha256: sha256Of(TOKENIZER), revision: pinned });
    expect(readFileSync(join(dir, 'tiny/model.onnx')).equals(MODEL_V1)).toBe(true);
    // HEAD on the hub (not followed to the CDN), then the GET that the hub hands to the CDN.
    expect(since(before).map((r) => `${r.server} ${r.method} ${r.path.split('?')[0]}`)).toEqual([
      `hub HEAD /org/tiny/resolve/${pinned}/onnx/model.onnx`,
      `hub GET /org/tiny/resolve/${pinned}/onnx/model.onnx`,
      `cdn GET /blobs/${sha256Of(MODEL_V1)}`,
      `hub HEAD /org/tiny/resolve/${pinned}/tokenizer.json`,
      `hub GET /org/tiny/resolve/${pinned}/tokenizer.json`,
    ]);
    const lock = await readModelsLock(join(dir, 'models.lock.json'));
    expect(lock.files).toEqual([
      { id: 'tiny', role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned), revision: pinned, bytes: MODEL_V1.length, sha256: sha256Of(MODEL_V1), verified: 'hub-sha256', time: expect.any(String) },
      { id: 'tiny', role: 'tokenizer', path: 'tokenizer.json', url: hub.url('tokenizer.json', pinned), revision: pinned, bytes: TOKENIZER.length, sha256: sha256Of(TOKENIZER), verified: 'hub-git-sha1', time: expect.any(String) },
    ]);
    expect(Number.isNaN(Date.parse(lock.files[0].time))).toBe(false);
    // Installed and matching the lock: nothing is fetched again.
    const n = hub.requests.length;
    expect((await pullModel(m, dir)).map((f) => [f.action, f.verified])).toEqual([
      ['present', 'lock'],
      ['present', 'lock'],
    ]);
    expect(hub.requests.length).toBe(n);
    // The lock is no manifest, even in a folder of manifests.
    writeFileSync(join(dir, 'tiny.json'), JSON.stringify(m));
    expect((await listManifests(dir)).map((x) => x.id)).toEqual(['tiny']);
  });

  it('pulls running at the same time into one folder each keep their lock entries', async () => {
    const dir = freshDir();
    const ids = ['tiny-a', 'tiny-b', 'tiny-c', 'tiny-d'];
    const pulls = ids.map((id) => pullModel(manifest(id, [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned) }], pinned), dir));
    await Promise.all(pulls);
    const lock = await readModelsLock(join(dir, 'models.lock.json'));
    expect(lock.files.map((f) => f.id)).toEqual(ids);
  });

  it("a manifest's own sha256 and size come first; a hub that disagrees with it is refused before any download", async () => {
    const ok = await pullModel(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned), sha256: sha256Of(MODEL_V1), bytes: MODEL_V1.length }], pinned), freshDir());
    expect(ok[0]).toMatchObject({ verified: 'manifest', sha256Verified: true });
    const dir = freshDir();
    const before = hub.requests.length;
    const err = await errorOf(pullModel(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned), sha256: sha256Of(MODEL_V2) }], pinned), dir));
    expect(err).toBeInstanceOf(GsrError);
    expect(err!.message).toBe(`tiny model: the hub serves sha256 ${sha256Of(MODEL_V1)}, the manifest expects ${sha256Of(MODEL_V2)}; nothing downloaded`);
    expect(since(before).map((r) => r.method)).toEqual(['HEAD']);
    expect(existsSync(join(dir, 'tiny'))).toBe(false);
  });

  it("bytes that do not match the hash the hub announced are removed, not installed", async () => {
    const dir = freshDir();
    hub.corrupt = true;
    try {
      const err = await errorOf(pullModel(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned) }], pinned), dir));
      expect(err).toBeInstanceOf(GsrError);
      expect(err!.message).toMatch(new RegExp(`^tiny model: downloaded file failed its check \\(sha256 [0-9a-f]{64}, the hub says ${sha256Of(MODEL_V1)}\\); removed it$`));
      expect(existsSync(join(dir, 'tiny/model.onnx'))).toBe(false);
      expect(existsSync(join(dir, 'tiny/model.onnx.part'))).toBe(false);
    } finally {
      hub.corrupt = false;
    }
  });

  it("a leftover .part of full length but other bytes: the server has nothing more (416), the git sha1 fails, the file is fetched again", async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'tiny'), { recursive: true });
    writeFileSync(join(dir, 'tiny/tokenizer.json.part'), Buffer.alloc(TOKENIZER.length, 120));
    const before = hub.requests.length;
    const [f] = await pullModel(manifest('tiny', [{ role: 'tokenizer', path: 'tokenizer.json', url: hub.url('tokenizer.json', pinned) }], pinned), dir);
    expect(f).toMatchObject({ action: 'downloaded', verified: 'hub-git-sha1' });
    expect(since(before).map((r) => r.range)).toEqual([null, `bytes=${TOKENIZER.length}-`, null]);
    expect(readFileSync(join(dir, 'tiny/tokenizer.json')).equals(TOKENIZER)).toBe(true);
  });

  it('revisions: an unknown revision is a 404, a URL that fetches another revision than the manifest pins and a hub that serves another commit are errors', async () => {
    const missing = await errorOf(pullModel(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', 'f'.repeat(40)) }], 'f'.repeat(40)), freshDir()));
    expect(missing!.message).toMatch(/^cannot download .*\/resolve\/f{40}\/onnx\/model\.onnx \(HTTP 404 Not Found\); offline\? put /);
    const mixed = await errorOf(pullModel(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', 'main') }], pinned), freshDir()));
    expect(mixed!.message).toBe(`tiny model: the manifest pins revision ${pinned} but its URL fetches "main"`);
    hub.reportCommit = 'e'.repeat(40);
    try {
      const other = await errorOf(pullModel(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned) }], pinned), freshDir()));
      expect(other!.message).toBe(`tiny model: the hub served commit ${'e'.repeat(40)}, the manifest pins ${pinned}`);
    } finally {
      hub.reportCommit = null;
    }
  });
});

describe('gsr models pull: the lock refuses a changed file unless --update', () => {
  it('a file changed on the hub (main moved) is refused before downloading; --update takes it and rewrites the lock', async () => {
    const dir = freshDir();
    const m = manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', 'main') }], null);
    const [first] = await pullModel(m, dir);
    expect(first).toMatchObject({ verified: 'hub-sha256', revision: hub.commit });
    const v1Commit = hub.commit;
    hub.set('onnx/model.onnx', MODEL_V2);
    try {
      // Installed and unchanged locally: no network, still v1.
      expect((await pullModel(m, dir))[0]).toMatchObject({ action: 'present', sha256: sha256Of(MODEL_V1) });
      // A fresh machine with the same lock: the hub now serves v2.
      rmSync(join(dir, 'tiny/model.onnx'));
      const before = hub.requests.length;
      const err = await errorOf(pullModel(m, dir));
      expect(err).toBeInstanceOf(GsrError);
      expect(err!.message).toMatch(new RegExp(`^tiny model: the hub now serves sha256 ${sha256Of(MODEL_V2)}, not the file in .*models\\.lock\\.json \\(sha256 ${sha256Of(MODEL_V1)}, 200000 bytes, pulled .+\\); pass --update to take it and rewrite the lock$`));
      expect(since(before).map((r) => r.method)).toEqual(['HEAD']);
      expect(existsSync(join(dir, 'tiny/model.onnx'))).toBe(false);
      const lock = await readModelsLock(join(dir, 'models.lock.json'));
      expect(lock.files[0]).toMatchObject({ sha256: sha256Of(MODEL_V1), revision: v1Commit });

      const [taken] = await pullModel(m, dir, { update: true });
      expect(taken).toMatchObject({ action: 'downloaded', sha256: sha256Of(MODEL_V2), revision: hub.commit });
      expect(readFileSync(join(dir, 'tiny/model.onnx')).equals(MODEL_V2)).toBe(true);
      const after = await readModelsLock(join(dir, 'models.lock.json'));
      expect(after.files).toHaveLength(1);
      expect(after.files[0]).toMatchObject({ sha256: sha256Of(MODEL_V2), revision: hub.commit, bytes: MODEL_V2.length, verified: 'hub-sha256' });
    } finally {
      hub.set('onnx/model.onnx', MODEL_V1);
    }
  });

  it('--update also replaces an installed file when the hub now has another one', async () => {
    const dir = freshDir();
    const m = manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', 'main') }], null);
    await pullModel(m, dir);
    hub.set('onnx/model.onnx', MODEL_V2);
    try {
      const [f] = await pullModel(m, dir, { update: true });
      expect(f).toMatchObject({ action: 'downloaded', sha256: sha256Of(MODEL_V2) });
      expect((await readModelsLock(join(dir, 'models.lock.json'))).files[0].sha256).toBe(sha256Of(MODEL_V2));
      // Nothing new on the hub: --update leaves it in place.
      expect((await pullModel(m, dir, { update: true }))[0].action).toBe('present');
    } finally {
      hub.set('onnx/model.onnx', MODEL_V1);
    }
  });

  it('a server that sends no hash: the download itself is compared with the lock, and refused', async () => {
    const dir = freshDir();
    hub.plain = true;
    try {
      const m = manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', 'main') }], null);
      expect((await pullModel(m, dir))[0]).toMatchObject({ verified: 'none', sha256Verified: false, revision: null });
      hub.set('onnx/model.onnx', MODEL_V2);
      rmSync(join(dir, 'tiny/model.onnx'));
      const err = await errorOf(pullModel(m, dir));
      expect(err!.message).toMatch(new RegExp(`^tiny model: the hub now serves sha256 ${sha256Of(MODEL_V2)} \\(200000 bytes\\), not the file in .*; pass --update`));
      expect(existsSync(join(dir, 'tiny/model.onnx'))).toBe(false);
      expect(existsSync(join(dir, 'tiny/model.onnx.part'))).toBe(false);
      expect((await pullModel(m, dir, { update: true }))[0].sha256).toBe(sha256Of(MODEL_V2));
    } finally {
      hub.plain = false;
      hub.set('onnx/model.onnx', MODEL_V1);
    }
  });
});

describe('gsr models pull: an interrupted pull resumes', () => {
  it('a connection cut mid-file leaves a .part; the next pull asks the CDN (through the hub redirect) for the rest', async () => {
    const dir = freshDir();
    const m = manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned) }], pinned);
    hub.cutNextAfter = 70_000;
    const err = await errorOf(pullModel(m, dir));
    expect(err).toBeInstanceOf(GsrError);
    expect(err!.message).toMatch(/^cannot download .*onnx\/model\.onnx \(.+\); offline\? put /);
    const part = join(dir, 'tiny/model.onnx.part');
    const kept = statSync(part).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(70_000);
    expect(existsSync(join(dir, 'tiny/model.onnx'))).toBe(false);

    const before = hub.requests.length;
    const [f] = await pullModel(m, dir);
    expect(f).toMatchObject({ action: 'resumed', verified: 'hub-sha256', sha256: sha256Of(MODEL_V1) });
    const cdn = since(before).filter((r) => r.server === 'cdn');
    expect(cdn.map((r) => r.range)).toEqual([`bytes=${kept}-`]);
    expect(readFileSync(join(dir, 'tiny/model.onnx')).equals(MODEL_V1)).toBe(true);
    expect(existsSync(part)).toBe(false);
  });

  it("a .part left by another version fails the hub's hash once resumed and is fetched again from the start", async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'tiny'), { recursive: true });
    writeFileSync(join(dir, 'tiny/model.onnx.part'), MODEL_V2.subarray(0, 50_000));
    const [f] = await pullModel(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', pinned) }], pinned), dir);
    expect(f).toMatchObject({ action: 'downloaded', sha256: sha256Of(MODEL_V1) });
    expect(readFileSync(join(dir, 'tiny/model.onnx')).equals(MODEL_V1)).toBe(true);
  });
});

describe('gsr models pull (CLI)', { timeout: scaled(240_000) }, () => {
  it('prints how each file was checked and its revision; a changed file exits non-zero with one line; --update takes it', async () => {
    const manifests = join(work, 'manifests');
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, 'tiny.json'), JSON.stringify(manifest('tiny', [{ role: 'model', path: 'model.onnx', url: hub.url('onnx/model.onnx', 'main') }], null)));
    const dir = freshDir();
    const args = ['models', 'pull', 'tiny', '--manifests', manifests, '--models-dir', dir];
    const first = await gsr(args);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/tiny model: revision unknown \(the manifest pins none\); downloading "main", the lock records the commit the hub serves/);
    expect(first.stdout).toMatch(new RegExp(`^downloaded .*tiny/model\\.onnx \\(0\\.2 MiB, sha256 ok \\(the hub's\\), revision ${hub.commit}\\)\\nlock: .*models\\.lock\\.json\\n$`));
    hub.set('onnx/model.onnx', MODEL_V2);
    try {
      rmSync(join(dir, 'tiny/model.onnx'));
      const refused = await gsr(args);
      expect(refused.status).not.toBe(0);
      const lines = refused.stderr.trim().split('\n');
      expect(lines[lines.length - 1]).toMatch(/^gsr: error: tiny model: the hub now serves sha256 [0-9a-f]{64}, not the file in .*; pass --update to take it and rewrite the lock$/);
      const updated = await gsr([...args, '--update', '--json']);
      expect(updated.status, updated.stderr).toBe(0);
      const printed = JSON.parse(updated.stdout) as { lock: string; files: Array<{ sha256: string; revision: string }> };
      expect(printed.files[0]).toMatchObject({ sha256: sha256Of(MODEL_V2), revision: hub.commit });
      expect((await readModelsLock(printed.lock)).files[0].sha256).toBe(sha256Of(MODEL_V2));
    } finally {
      hub.set('onnx/model.onnx', MODEL_V1);
    }
  });
});

describe('annotations record the revision', () => {
  it("info.models[]: the manifest's revision, and per file the commit the lock says it was pulled from", async () => {
    const dir = freshDir();
    const path = writeDepthFixture(join(dir, 'depth-anything-v2-small', 'model.onnx'));
    const sha = sha256Of(readFileSync(path));
    const id = 'depth-anything-v2-small';
    const shipped = (await listManifests()).find((m) => m.id === id)!;
    const { record } = await describeModel(id, 'depth', { modelsDir: dir });
    expect(record).toMatchObject({ id, sha256: sha, revision: shipped.revision });
    expect(record.files![0]).not.toHaveProperty('revision');
    const entry = { id, role: 'model', path: 'model.onnx', url: 'http://hub/x', revision: 'c'.repeat(40), bytes: 1, sha256: sha, verified: 'hub-sha256' as const, time: '2026-01-01T00:00:00Z' };
    await writeModelsLock(join(dir, 'models.lock.json'), { version: 1, files: [entry] });
    expect((await describeModel(id, 'depth', { modelsDir: dir })).record.files![0]).toMatchObject({ sha256: sha, revision: 'c'.repeat(40), matches_manifest: false });
    // A lock entry for other bytes says nothing about this file.
    await writeModelsLock(join(dir, 'models.lock.json'), { version: 1, files: [{ ...entry, sha256: 'd'.repeat(64) }] });
    expect((await describeModel(id, 'depth', { modelsDir: dir })).record.files![0]).not.toHaveProperty('revision');
  });
});

describe('shipped manifests', () => {
  it('a pinned revision is the one every Hugging Face URL fetches; an unpinned one is explicit', async () => {
    for (const m of await listManifests()) {
      const raw = JSON.parse(readFileSync(join(REPO_ROOT, 'models', `${m.id}.json`), 'utf8')) as Record<string, unknown>;
      for (const f of m.files.filter((x) => x.url?.includes('/resolve/'))) {
        const segment = /\/resolve\/([^/]+)\//.exec(f.url!)![1];
        if (m.revision) expect(segment, `${m.id} ${f.role}`).toBe(m.revision);
        else expect(raw, `${m.id}: an unpinned Hugging Face URL needs "revision": null`).toHaveProperty('revision', null);
      }
    }
  });

  it('every shipped manifest pins what it downloads: a revision, or a sha256 per file', async () => {
    for (const m of await listManifests()) {
      for (const f of m.files.filter((x) => x.url !== null)) expect(m.revision ?? f.sha256, `${m.id} ${f.role} is not pinned`).toBeTruthy();
    }
  });

  it('the git blob sha1 of the helper matches git itself (the rule the hub uses for small files)', () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(gitSha1Of(Buffer.from('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });
});
