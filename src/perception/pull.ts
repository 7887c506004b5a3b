/**
 * `gsr models pull`: downloads a model's files into <modelsDir>/<id>/ with resume (HTTP Range on a
 * `.part` file), size and sha256 checks, and a progress bar; offline it says where to put the files.
 */
import { createWriteStream, existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GsrError, errorMessage } from '../util/errors.js';
import { notice } from '../util/log.js';
import { createProgress } from '../util/progress.js';
import { modelDownloadPath, type ModelFile, type ModelManifest } from './manifest.js';
import { sha256File } from '../util/hash.js';

export interface PulledFile {
  role: string;
  path: string;
  bytes: number;
  /** `downloaded`, `resumed` (continued a .part file) or `present` (already installed and valid). */
  action: 'downloaded' | 'resumed' | 'present';
  sha256: string;
  sha256Verified: boolean;
}

function byHand(manifest: ModelManifest, file: ModelFile, dest: string): string {
  return `put ${file.url ? `${file.url} ` : 'the file '}by hand at ${dest}${file.note ? ` (${file.note})` : ''}`;
}

async function checkFile(manifest: ModelManifest, file: ModelFile, path: string): Promise<{ sha: string; problem?: string }> {
  const size = statSync(path).size;
  const sha = await sha256File(path);
  if (file.bytes !== null && size !== file.bytes) return { sha, problem: `size ${size} bytes, expected ${file.bytes}` };
  if (file.sha256 && sha !== file.sha256) return { sha, problem: `sha256 ${sha}, expected ${file.sha256}` };
  return { sha };
}

async function download(url: string, part: string, label: string): Promise<'downloaded' | 'resumed'> {
  const have = existsSync(part) ? statSync(part).size : 0;
  let res: Response;
  try {
    res = await fetch(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, redirect: 'follow' });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    throw new Error(cause ? errorMessage(cause) : errorMessage(err));
  }
  if (res.status === 416 && have > 0) {
    // The .part already holds everything the server has.
    return 'resumed';
  }
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status} ${res.statusText}`);
  const resumed = res.status === 206 && have > 0;
  const length = Number(res.headers.get('content-length') ?? NaN);
  const total = (resumed ? have : 0) + (Number.isFinite(length) ? length : 0);
  const bar = createProgress(label, total || 1, 'bytes');
  if (resumed) bar.tick(have);
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => bar.tick(chunk.length));
  try {
    await pipeline(body, createWriteStream(part, { flags: resumed ? 'a' : 'w' }));
  } finally {
    bar.stop();
  }
  return resumed ? 'resumed' : 'downloaded';
}

/**
 * Downloads every file of `manifest` that is not already installed and valid. A `.part` file left
 * by an interrupted pull is continued. Files failing the size or sha256 check are removed.
 */
export async function pullModel(manifest: ModelManifest, modelsDir: string): Promise<PulledFile[]> {
  const out: PulledFile[] = [];
  for (const file of manifest.files) {
    const dest = modelDownloadPath(manifest, file.role, modelsDir);
    if (existsSync(dest)) {
      const c = await checkFile(manifest, file, dest);
      if (!c.problem) {
        out.push({ role: file.role, path: dest, bytes: statSync(dest).size, action: 'present', sha256: c.sha, sha256Verified: !!file.sha256 });
        continue;
      }
      notice(`${dest}: ${c.problem}; downloading again`);
      await rm(dest, { force: true });
    }
    if (!file.url) throw new GsrError(`${manifest.id} ${file.role} has no download URL: ${byHand(manifest, file, dest)}`);
    await mkdir(dirname(dest), { recursive: true });
    const part = `${dest}.part`;
    let action: 'downloaded' | 'resumed';
    try {
      action = await download(file.url, part, `${manifest.id} ${file.path}`);
    } catch (err) {
      throw new GsrError(`cannot download ${file.url} (${errorMessage(err).split('\n')[0]}); offline? ${byHand(manifest, file, dest)}`);
    }
    const c = await checkFile(manifest, file, part);
    if (c.problem) {
      await rm(part, { force: true });
      throw new GsrError(`${manifest.id} ${file.role}: downloaded file failed its check (${c.problem}); removed it`);
    }
    if (!file.sha256) notice(`${manifest.id} ${file.role}: no sha256 known, download not verified (got ${c.sha})`);
    await rename(part, dest);
    out.push({ role: file.role, path: dest, bytes: statSync(dest).size, action, sha256: c.sha, sha256Verified: !!file.sha256 });
  }
  return out;
}
