import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getManifest, parseManifest } from '../../src/perception/manifest.js';
import { pullModel } from '../../src/perception/pull.js';
import { verifyInstalled, verifyPath } from '../../src/perception/store.js';
import { GsrError } from '../../src/util/errors.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { writeDepthFixture } from '../helpers/onnx-fixtures.js';
import { itShared } from '../helpers/shared.js';
import { FASTESTDET_TINY } from './paths.js';

/** Runs the CLI without blocking this process (the test's HTTP server must keep answering). */
function gsr(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts'), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, GSR_PROGRESS: '0' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

const work = mkdtempSync(join(tmpdir(), 'gsr-models-'));
const modelsDir = join(work, 'models');
const manifests = join(work, 'manifests');
const payload = readFileSync(writeDepthFixture(join(work, 'served', 'tiny.onnx')));
const sha = createHash('sha256').update(payload).digest('hex');
const ranges: string[] = [];
let server: Server;
let base = '';

function testManifest(id: string, url: string, sha256: string | null) {
  const depth = JSON.parse(readFileSync(join(REPO_ROOT, 'models/depth-anything-v2-small.json'), 'utf8')) as Record<string, unknown>;
  return parseManifest({ ...depth, id, files: [{ role: 'model', path: 'model.onnx', url, bytes: payload.length, sha256 }] }, id);
}

beforeAll(async () => {
  mkdirSync(join(modelsDir, 'fastestdet'), { recursive: true });
  // The random-weight FastestDet with the real model's contract (not its bytes).
  symlinkSync(FASTESTDET_TINY, join(modelsDir, 'fastestdet', 'FastestDet.onnx'));
  server = createServer((req, res) => {
    const range = req.headers.range;
    if (range) ranges.push(range);
    const m = range?.match(/^bytes=(\d+)-$/);
    if (m) {
      const start = Number(m[1]);
      res.writeHead(206, { 'content-range': `bytes ${start}-${payload.length - 1}/${payload.length}`, 'content-length': payload.length - start });
      res.end(payload.subarray(start));
    } else {
      res.writeHead(200, { 'content-length': payload.length });
      res.end(payload);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mkdirSync(manifests, { recursive: true });
  writeFileSync(join(manifests, 'tiny-depth.json'), JSON.stringify(testManifest('tiny-depth', `${base}/tiny.onnx`, sha)));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('gsr models list / verify', () => {
  it('lists installed and missing models with size and licence', async () => {
    const r = await gsr(['models', 'list', '--json', '--models-dir', modelsDir]);
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ id: string; status: string; bytes: number | null; licence: string }>;
    const fd = rows.find((x) => x.id === 'fastestdet')!;
    expect([fd.status, fd.bytes]).toEqual(['installed', statSync(FASTESTDET_TINY).size]);
    expect(fd.licence).toMatch(/BSD-3-Clause/);
    expect(rows.find((x) => x.id === 'grounding-dino-tiny')!.status).toBe('missing');
  });

  it('verifies an installed model: size and sha256 against the manifest, then the contract', async () => {
    const [f] = await verifyInstalled(await getManifest('fastestdet'), modelsDir);
    // Other bytes than the published file, the same contract: only size and sha256 are reported.
    expect(f).toMatchObject({ ok: false, sha256Checked: true });
    expect(f!.problems).toHaveLength(2);
    expect(f!.problems[0]).toMatch(/^size is \d+ bytes, expected 998169$/);
    expect(f!.problems[1]).toMatch(/^sha256 is [0-9a-f]{64}, expected 31cb14c017fce347cb4c846ec62fdf00d76bb3beecdf4be21e7116ac67feb880$/);
  });

  itShared('verifies the real FastestDet: size, sha256 and contract', ['fastestdet'], async ({ fastestdet }) => {
    const dir = join(work, 'real');
    mkdirSync(join(dir, 'fastestdet'), { recursive: true });
    symlinkSync(join(fastestdet, 'FastestDet.onnx'), join(dir, 'fastestdet', 'FastestDet.onnx'));
    const [f] = await verifyInstalled(await getManifest('fastestdet'), dir);
    expect(f).toMatchObject({ ok: true, problems: [], sha256Checked: true });
  });

  it('fails clearly for a file whose input name differs from the contract', async () => {
    const bad = writeDepthFixture(join(work, 'bad.onnx'), { inputName: 'pixels' });
    const r = await gsr(['models', 'verify', bad, '--model', 'depth-anything-v2-small']);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/gsr: error: .*bad\.onnx does not match the depth-anything-v2-small model contract: missing input "pixel_values"; unexpected input "pixels"/);
  });

  it('finds the contract a file matches when no model is named', async () => {
    const r = await verifyPath(FASTESTDET_TINY);
    expect(r.matches).toEqual([{ id: 'fastestdet', role: 'model' }]);
  });
});

describe('gsr models pull', () => {
  it('downloads with a sha256 check, then verifies', async () => {
    const r = await gsr(['models', 'pull', 'tiny-depth', '--manifests', manifests, '--models-dir', modelsDir]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^downloaded .*tiny-depth\/model\.onnx .*sha256 ok/);
    expect(readFileSync(join(modelsDir, 'tiny-depth/model.onnx'))).toEqual(payload);
    const [v] = await verifyInstalled(await getManifest('tiny-depth', manifests), modelsDir);
    expect(v).toMatchObject({ ok: true, sha256Checked: true });
    const [again] = await pullModel(await getManifest('tiny-depth', manifests), modelsDir);
    expect(again!.action).toBe('present');
  });

  it('resumes a partial download with a Range request', async () => {
    const dir = join(work, 'resume');
    mkdirSync(join(dir, 'tiny-depth'), { recursive: true });
    writeFileSync(join(dir, 'tiny-depth/model.onnx.part'), payload.subarray(0, 100));
    const [f] = await pullModel(testManifest('tiny-depth', `${base}/tiny.onnx`, sha), dir);
    expect(f!.action).toBe('resumed');
    expect(ranges).toContain('bytes=100-');
    expect(readFileSync(join(dir, 'tiny-depth/model.onnx'))).toEqual(payload);
  });

  it('rejects and removes a download with the wrong sha256', async () => {
    const dir = join(work, 'badsha');
    const err = await pullModel(testManifest('tiny-depth', `${base}/tiny.onnx`, 'f'.repeat(64)), dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GsrError);
    expect((err as Error).message).toMatch(/failed its check \(sha256 [0-9a-f]{64}, expected f{64}\)/);
    expect(existsSync(join(dir, 'tiny-depth/model.onnx'))).toBe(false);
    expect(existsSync(join(dir, 'tiny-depth/model.onnx.part'))).toBe(false);
  });

  it('says where to put the files by hand when offline', async () => {
    const err = await pullModel(testManifest('tiny-depth', 'http://127.0.0.1:1/tiny.onnx', sha), join(work, 'offline')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GsrError);
    expect((err as Error).message).toMatch(/^cannot download http:\/\/127\.0\.0\.1:1\/tiny\.onnx \(.+\); offline\? put .* by hand at .*offline\/tiny-depth\/model\.onnx$/);
    expect((err as Error).message).not.toContain('\n');
  });

  it('every shipped manifest parses, and unknown ids fail clearly', async () => {
    await expect(getManifest('no-such-model')).rejects.toThrow(/unknown model "no-such-model" \(known: .*fastestdet/);
  });
});
