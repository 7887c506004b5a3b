/**
 * `gsr models pull` (docs/perception.md, "Pinned downloads"): downloads a model's files into
 * <modelsDir>/<id>/ from the revision its manifest pins, checks each against the manifest's size and
 * sha256, else against the content hash the hub sends, records what it got in
 * <modelsDir>/models.lock.json, and refuses a later file that differs from the lock unless asked to
 * update. Resumes a `.part` file with an HTTP Range request; offline it says where to put the files.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { lockEntry, modelsLockPath, readModelsLock, withLockEntry, writeModelsLock, type ModelsLock, type ModelsLockEntry } from '../formats/models-lock.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { notice } from '../util/log.js';
import { createProgress } from '../util/progress.js';
import { modelDownloadPath, type ModelFile, type ModelManifest } from './manifest.js';

export interface PullOptions {
  /**
   * Take a file that differs from the lock and rewrite its entry. Installed files are then also
   * compared with the hub's current hash, and fetched again when it differs.
   */
  update?: boolean;
}

export interface PulledFile {
  role: string;
  path: string;
  bytes: number;
  /** `downloaded`, `resumed` (continued a .part file) or `present` (already installed and valid). */
  action: 'downloaded' | 'resumed' | 'present';
  sha256: string;
  /** How the content was checked: the manifest's sha256, the hub's hash, the lock's sha256, or not at all. */
  verified: ModelsLockEntry['verified'] | 'lock';
  /** Checked against a known sha256 (the manifest's, the hub's or the lock's). */
  sha256Verified: boolean;
  /** The commit the file came from (the hub's word, else the manifest's), null when unknown. */
  revision: string | null;
}

/** What the hub says about a file before sending it (huggingface_hub reads the same headers). */
interface HubMeta {
  /** `X-Repo-Commit`: the commit the revision resolved to. */
  commit: string | null;
  /** `X-Linked-Etag` (large files), or the ETag of a hub response when it is 64 hex digits. */
  sha256: string | null;
  /** The ETag of a small file on the hub: the git blob sha1 of its bytes. */
  gitSha1: string | null;
  /** `X-Linked-Size`, else the Content-Length of a direct answer. */
  size: number | null;
}

const NO_META: HubMeta = { commit: null, sha256: null, gitSha1: null, size: null };
const HEX40 = /^[0-9a-f]{40}$/;
const HEX64 = /^[0-9a-f]{64}$/;

function byHand(file: ModelFile, dest: string): string {
  return `put ${file.url ? `${file.url} ` : 'the file '}by hand at ${dest}${file.note ? ` (${file.note})` : ''}`;
}

/** An ETag without its weak marker and quotes. */
function bareEtag(value: string | null): string | null {
  return value === null ? null : value.replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

function metaOf(res: Response): HubMeta {
  const commit = bareEtag(res.headers.get('x-repo-commit'));
  const linked = bareEtag(res.headers.get('x-linked-etag'));
  const etag = bareEtag(res.headers.get('etag'));
  // Only a Hugging Face answer (it names the commit, or links a large file) says what its ETag means.
  const hub = (commit !== null && HEX40.test(commit)) || linked !== null;
  const size = Number(res.headers.get('x-linked-size') ?? (res.ok ? res.headers.get('content-length') : null) ?? NaN);
  return {
    commit: commit !== null && HEX40.test(commit) ? commit : null,
    sha256: linked !== null && HEX64.test(linked) ? linked : hub && etag !== null && HEX64.test(etag) ? etag : null,
    gitSha1: hub && linked === null && etag !== null && HEX40.test(etag) ? etag : null,
    size: Number.isSafeInteger(size) && size >= 0 ? size : null,
  };
}

/** A network error's one-line cause. */
function networkError(err: unknown): Error {
  const cause = (err as { cause?: unknown }).cause;
  return new Error(cause ? errorMessage(cause) : errorMessage(err));
}

/**
 * The hub's headers for `url`, without following a redirect to another host (the file itself may
 * live on a CDN that knows nothing of the hub). A server that does not answer HEAD gives no metadata.
 */
async function hubMetadata(url: string): Promise<HubMeta> {
  let current = url;
  for (let hop = 0; hop < 5; hop++) {
    let res: Response;
    try {
      res = await fetch(current, { method: 'HEAD', redirect: 'manual' });
    } catch (err) {
      throw networkError(err);
    }
    await res.body?.cancel();
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      const next = new URL(location, current);
      const meta = metaOf(res);
      // A move inside the hub (a renamed repository) is followed; a hand-over to a CDN ends the search.
      if (next.origin === new URL(current).origin && meta.commit === null && meta.sha256 === null) {
        current = next.href;
        continue;
      }
      return meta;
    }
    if (res.status === 401 || res.status === 403 || res.status === 404) throw new Error(`HTTP ${res.status} ${res.statusText}`);
    return res.ok ? metaOf(res) : NO_META;
  }
  return NO_META;
}

/** Downloads `url` into `part`, continuing it with a Range request when it already holds bytes. */
async function download(url: string, part: string, label: string): Promise<'downloaded' | 'resumed'> {
  const have = existsSync(part) ? statSync(part).size : 0;
  let res: Response;
  try {
    res = await fetch(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, redirect: 'follow' });
  } catch (err) {
    throw networkError(err);
  }
  if (res.status === 416 && have > 0) {
    // The .part already holds everything the server has.
    await res.body?.cancel();
    return 'resumed';
  }
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status} ${res.statusText}`);
  const range = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
  const resumed = res.status === 206 && have > 0 && range !== null && Number(range[1]) === have;
  if (res.status === 206 && !resumed) {
    await res.body.cancel();
    throw new Error(`the server answered a request for bytes ${have}- with ${res.headers.get('content-range') ?? 'no Content-Range'}`);
  }
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

/** sha256 of a file, its size, and its git blob sha1 when asked (`blob <size>\0` then the bytes). */
async function fileHashes(path: string, gitSha1: boolean): Promise<{ sha256: string; bytes: number; gitSha1: string | null }> {
  const bytes = statSync(path).size;
  const sha = createHash('sha256');
  const git = gitSha1 ? createHash('sha1').update(`blob ${bytes}\0`) : null;
  for await (const chunk of createReadStream(path)) {
    sha.update(chunk as Buffer);
    git?.update(chunk as Buffer);
  }
  return { sha256: sha.digest('hex'), bytes, gitSha1: git?.digest('hex') ?? null };
}

type Hashes = Awaited<ReturnType<typeof fileHashes>>;

/** The first way `got` fails the manifest's and the hub's word, and how it was verified otherwise. */
function judge(file: ModelFile, meta: HubMeta, got: Hashes): { problem?: string; verified: ModelsLockEntry['verified'] } {
  if (file.bytes !== null && got.bytes !== file.bytes) return { problem: `size ${got.bytes} bytes, expected ${file.bytes}`, verified: 'none' };
  if (file.sha256 && got.sha256 !== file.sha256) return { problem: `sha256 ${got.sha256}, expected ${file.sha256}`, verified: 'none' };
  if (meta.size !== null && got.bytes !== meta.size) return { problem: `size ${got.bytes} bytes, the hub says ${meta.size}`, verified: 'none' };
  if (meta.sha256 && got.sha256 !== meta.sha256) return { problem: `sha256 ${got.sha256}, the hub says ${meta.sha256}`, verified: 'none' };
  if (meta.gitSha1 && got.gitSha1 !== meta.gitSha1) return { problem: `git blob sha1 ${got.gitSha1}, the hub says ${meta.gitSha1}`, verified: 'none' };
  return { verified: file.sha256 ? 'manifest' : meta.sha256 ? 'hub-sha256' : meta.gitSha1 ? 'hub-git-sha1' : 'none' };
}

/** The revision segment of a Hugging Face `/resolve/<revision>/` URL. */
function resolvedRevision(url: string): string | null {
  return /\/resolve\/([^/]+)\//.exec(new URL(url).pathname)?.[1] ?? null;
}

/** A manifest's URL must fetch the revision it pins; an unpinned Hugging Face URL is said out loud. */
function checkRevision(manifest: ModelManifest, file: ModelFile & { url: string }): void {
  const segment = resolvedRevision(file.url);
  if (manifest.revision) {
    if (segment !== null && segment !== manifest.revision) {
      throw new GsrError(`${manifest.id} ${file.role}: the manifest pins revision ${manifest.revision} but its URL fetches "${segment}"`);
    }
  } else if (segment !== null) {
    notice(`${manifest.id} ${file.role}: revision unknown (the manifest pins none); downloading "${segment}", the lock records the commit the hub serves`);
  }
}

/**
 * Adds one entry to the lock file, re-read under a writer lock, so that pulls running at the same
 * time into one models folder (other processes, or several in this one) each keep their entries.
 */
async function addToLock(lockPath: string, entry: ModelsLockEntry): Promise<ModelsLock> {
  // Loaded here: only a pull that writes needs the native SQLite module behind the lock.
  const { tryLock } = await import('../util/lock.js');
  const guard = `${lockPath}.writer`;
  let held = tryLock(guard, 'gsr models pull');
  while (held === null) {
    await new Promise((r) => setTimeout(r, 20));
    held = tryLock(guard, 'gsr models pull');
  }
  try {
    const lock = withLockEntry(await readModelsLock(lockPath), entry);
    await writeModelsLock(lockPath, lock);
    return lock;
  } finally {
    held.release();
  }
}

function refuseChange(lockPath: string, entry: ModelsLockEntry, now: string): GsrError {
  return new GsrError(
    `${entry.id} ${entry.role}: the hub now serves ${now}, not the file in ${lockPath} (sha256 ${entry.sha256}, ${entry.bytes} bytes, pulled ${entry.time}); pass --update to take it and rewrite the lock`,
  );
}

/**
 * Downloads every file of `manifest` that is not already installed and valid, records each in the
 * lock beside the models, and returns what was done per file. A `.part` file left by an interrupted
 * pull is continued (and started again if the result fails its check).
 */
export async function pullModel(manifest: ModelManifest, modelsDir: string, options: PullOptions = {}): Promise<PulledFile[]> {
  const lockPath = modelsLockPath(modelsDir);
  let lock: ModelsLock = await readModelsLock(lockPath);
  const out: PulledFile[] = [];
  const record = async (file: ModelFile, got: Hashes, verified: ModelsLockEntry['verified'], revision: string | null) => {
    const entry = { id: manifest.id, role: file.role, path: file.path, url: file.url, revision, bytes: got.bytes, sha256: got.sha256, verified, time: new Date().toISOString() };
    lock = await addToLock(lockPath, entry);
  };
  for (const file of manifest.files) {
    const dest = modelDownloadPath(manifest, file.role, modelsDir);
    const entry = lockEntry(lock, manifest.id, file.role);
    const present = existsSync(dest) ? await presentFile(manifest, file, dest, entry, options) : null;
    if (present) {
      // A file installed before the lock existed (or by hand) is recorded as it is.
      if (!entry) await record(file, present.hashes, present.pulled.verified === 'manifest' ? 'manifest' : 'none', manifest.revision ?? null);
      out.push(present.pulled);
      continue;
    }
    if (!file.url) throw new GsrError(`${manifest.id} ${file.role} has no download URL: ${byHand(file, dest)}`);
    const url = file.url;
    checkRevision(manifest, { ...file, url });
    const fail = (err: unknown) => new GsrError(`cannot download ${url} (${errorMessage(err).split('\n')[0]}); offline? ${byHand(file, dest)}`);
    const meta = await hubMetadata(url).catch((err: unknown) => {
      throw fail(err);
    });
    if (manifest.revision && meta.commit !== null && meta.commit !== manifest.revision) {
      throw new GsrError(`${manifest.id} ${file.role}: the hub served commit ${meta.commit}, the manifest pins ${manifest.revision}`);
    }
    if (file.sha256 && meta.sha256 && meta.sha256 !== file.sha256) {
      throw new GsrError(`${manifest.id} ${file.role}: the hub serves sha256 ${meta.sha256}, the manifest expects ${file.sha256}; nothing downloaded`);
    }
    if (entry && !options.update && meta.sha256 && meta.sha256 !== entry.sha256) throw refuseChange(lockPath, entry, `sha256 ${meta.sha256}`);
    await mkdir(dirname(dest), { recursive: true });
    const part = `${dest}.part`;
    const fetchOnce = () => download(url, part, `${manifest.id} ${file.path}`).catch((err: unknown) => {
      throw fail(err);
    });
    let action = await fetchOnce();
    let got = await fileHashes(part, meta.gitSha1 !== null);
    let verdict = judge(file, meta, got);
    if (verdict.problem && action === 'resumed') {
      // The bytes kept from an earlier try may belong to another version: start again once.
      notice(`${manifest.id} ${file.role}: the resumed file failed its check (${verdict.problem}); downloading it again from the start`);
      await rm(part, { force: true });
      action = await fetchOnce();
      got = await fileHashes(part, meta.gitSha1 !== null);
      verdict = judge(file, meta, got);
    }
    if (verdict.problem) {
      await rm(part, { force: true });
      throw new GsrError(`${manifest.id} ${file.role}: downloaded file failed its check (${verdict.problem}); removed it`);
    }
    if (entry && !options.update && got.sha256 !== entry.sha256) {
      await rm(part, { force: true });
      throw refuseChange(lockPath, entry, `sha256 ${got.sha256} (${got.bytes} bytes)`);
    }
    if (verdict.verified === 'none') notice(`${manifest.id} ${file.role}: no sha256 known and none from the server: download not verified (got ${got.sha256}; recorded in ${lockPath})`);
    await rename(part, dest);
    const revision = meta.commit ?? manifest.revision ?? null;
    await record(file, got, verdict.verified, revision);
    out.push({ role: file.role, path: dest, bytes: got.bytes, action, sha256: got.sha256, verified: verdict.verified, sha256Verified: verdict.verified === 'manifest' || verdict.verified === 'hub-sha256', revision });
  }
  return out;
}

/**
 * An installed file that needs no download, or null. It must pass the manifest's size and sha256 and
 * match its lock entry; with `update`, also the hub's current hash when the hub sends one.
 */
async function presentFile(manifest: ModelManifest, file: ModelFile, dest: string, entry: ModelsLockEntry | undefined, options: PullOptions): Promise<{ pulled: PulledFile; hashes: Hashes } | null> {
  const got = await fileHashes(dest, false);
  let { problem } = judge(file, NO_META, got);
  if (!problem && entry && entry.sha256 !== got.sha256) problem = `sha256 ${got.sha256}, the lock says ${entry.sha256}`;
  if (problem) {
    notice(`${dest}: ${problem}; downloading again`);
    await rm(dest, { force: true });
    return null;
  }
  if (options.update && file.url) {
    const meta = await hubMetadata(file.url).catch(() => NO_META);
    if (meta.sha256 !== null && meta.sha256 !== got.sha256) return null;
    if (meta.gitSha1 !== null && (await fileHashes(dest, true)).gitSha1 !== meta.gitSha1) return null;
  }
  const verified = file.sha256 ? 'manifest' : entry ? 'lock' : 'none';
  const pulled: PulledFile = { role: file.role, path: dest, bytes: got.bytes, action: 'present', sha256: got.sha256, verified, sha256Verified: verified !== 'none', revision: entry?.revision ?? manifest.revision ?? null };
  return { pulled, hashes: got };
}
