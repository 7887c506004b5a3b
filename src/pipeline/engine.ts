/**
 * The stage engine. Each stage writes into `<out>/.<stage>.partial/`; only when it has finished
 * does the engine record its outputs' digests in `.stage.json` and move the folder to `<out>/<stage>/`,
 * so a folder under its final name is always complete. A stage is skipped when its hash (settings,
 * input fingerprints and the digests of the stages it reads, and the code it runs: the package version
 * and src/util/code-digest.ts over its modules) matches its completed record and its files are all there. A partial folder left by a crash is kept and handed back to the stage when the
 * hash is unchanged, so stages that journal their work resume; long-lived state (the answer store)
 * lives in `<out>/.state/<stage>/` and survives reruns.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GsrError, errorMessage } from '../util/errors.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/fs.js';
import { lockOutputFolder } from '../util/lock.js';
import { hashCanonical } from '../prompts/key.js';
import { codeDigest } from '../util/code-digest.js';
import { folderDigest, type FileEntry } from './hash.js';
import { VERSION } from '../util/version.js';
import { PipelineProgress, type StageProgress } from './progress.js';

/** Bump when stage semantics change so old outputs are not reused (2: stage records hold their hash's parts, the hash covers code). */
export const ENGINE_VERSION = 2;
export const STAGE_RECORD = '.stage.json';
const PARTIAL_HASH = '.partial-hash';

export interface StageContext {
  /** Folder the stage writes its outputs into (becomes `<out>/<stage>/` when it completes). */
  dir: string;
  /** Where `dir` will be moved when the stage completes (for relative links between stages). */
  finalDir: string;
  /** Persistent per-stage folder for caches and stores (kept across runs; created by the stage when needed). */
  stateDir: string;
  /** Final folder of an upstream stage named in `after`. */
  input(stage: string): string;
  /** Summary an upstream stage returned. */
  summaryOf<T = unknown>(stage: string): T;
  progress: StageProgress;
  notice(message: string): void;
  /** Aborted when the user interrupts the run: stop, keep what is done, throw. */
  signal?: AbortSignal;
  /** The run was started with `--force`: stages that keep answers in a store ask them again. */
  force?: boolean;
}

export interface Stage {
  name: string;
  /** Everything besides input files that determines the outputs (JSON-serialisable). */
  settings: unknown;
  /** Upstream stages whose outputs this stage reads. */
  after: string[];
  /** Fingerprint of outside inputs (files, folders, endpoints' identities); part of the hash. */
  fingerprint?(): Promise<unknown>;
  /**
   * The modules (their `import.meta.url`) whose code makes the outputs: the digest of everything they
   * import is part of the hash, so new code reruns the stage (src/util/code-digest.ts).
   */
  code?: readonly string[];
  /**
   * What the stage does when the run is interrupted while it runs, printed then (e.g. "finishing the
   * answers in flight"); default: it finishes, and the run stops before the next stage.
   */
  stopping?: string;
  /** Does the work; returns a JSON summary kept in the stage record. */
  run(ctx: StageContext): Promise<unknown>;
}

/** The exit code of an interrupted run (docs/cli.md, "Exit codes"). */
export const INTERRUPTED_EXIT = 130;

/** What a stage's hash is made of, each part hashed on its own, so that a rerun can say why. */
export interface StageHashParts {
  /** The stage's settings. */
  settings: string;
  /** Its outside fingerprint and the output digests of the stages it reads. */
  inputs: string;
  /** The package version and the digest of the code it runs. */
  code: string;
}

export interface StageRecord {
  stage: string;
  hash: string;
  parts: StageHashParts;
  engine: number;
  completed_at: string;
  seconds: number;
  digest: string;
  files: FileEntry[];
  summary: unknown;
}

export interface StageOutcome {
  name: string;
  status: 'ran' | 'skipped';
  seconds: number;
  dir: string;
  record: StageRecord;
}

const isEngineFile = (rel: string) => rel === STAGE_RECORD || rel === PARTIAL_HASH;

async function readRecord(dir: string): Promise<StageRecord | null> {
  try {
    return JSON.parse(await readFile(join(dir, STAGE_RECORD), 'utf8')) as StageRecord;
  } catch {
    return null;
  }
}

/** True when every file the record lists is there with its recorded size. */
async function filesIntact(dir: string, record: StageRecord): Promise<boolean> {
  for (const f of record.files) {
    try {
      if ((await stat(join(dir, f.path))).size !== f.size) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** A stage's hash and its parts: settings; outside fingerprint and upstream digests; code. */
async function stageHash(stage: Stage, digestOf: (stage: string) => string | null): Promise<{ hash: string; parts: StageHashParts }> {
  const upstream = stage.after.map((a) => [a, digestOf(a)]);
  const fingerprint = stage.fingerprint ? await stage.fingerprint() : null;
  const parts: StageHashParts = {
    settings: hashCanonical(stage.settings ?? null),
    inputs: hashCanonical({ fingerprint, upstream }),
    code: hashCanonical({ version: VERSION, code: stage.code?.length ? codeDigest(stage.code) : null }),
  };
  return { hash: hashCanonical({ stage: stage.name, engine: ENGINE_VERSION, parts }), parts };
}

/** Why a completed stage would run again, in the words `gsr pipeline status` prints. */
export type StaleReason = 'inputs changed' | 'settings changed' | 'code changed' | 'outputs changed' | 'upstream reruns';

function staleReasons(record: StageRecord, now: { hash: string; parts: StageHashParts }): StaleReason[] {
  // A record of an older engine has other parts (or none): the engine's own code changed.
  if (record.engine !== ENGINE_VERSION || !record.parts) return ['code changed'];
  const reasons: StaleReason[] = [];
  if (record.parts.inputs !== now.parts.inputs) reasons.push('inputs changed');
  if (record.parts.settings !== now.parts.settings) reasons.push('settings changed');
  if (record.parts.code !== now.parts.code) reasons.push('code changed');
  return reasons.length > 0 ? reasons : ['code changed'];
}

export interface StageStatus {
  name: string;
  /** `complete`: would be skipped; `stale`: done, but would run again (see `reasons`); `missing`: never completed. */
  state: 'complete' | 'stale' | 'missing';
  /** Why a stale stage would run again (empty otherwise). */
  reasons: StaleReason[];
  /** An interrupted run's partial folder is there (it resumes when the hash still matches). */
  partial: boolean;
  completed_at: string | null;
}

/** What a run would do now, stage by stage, without running anything. */
export async function stageStatus(stages: Stage[], out: string): Promise<StageStatus[]> {
  const records = new Map<string, StageRecord | null>();
  const statuses: StageStatus[] = [];
  let upstreamChanged = false;
  for (const stage of stages) {
    const finalDir = join(out, stage.name);
    const record = await readRecord(finalDir);
    records.set(stage.name, record);
    let state: StageStatus['state'] = 'missing';
    let reasons: StaleReason[] = [];
    if (record) {
      // Downstream of a stage that will rerun, outputs may change: call them stale, not complete.
      const now = upstreamChanged ? null : await stageHash(stage, (a) => records.get(a)?.digest ?? null);
      if (now === null) reasons = ['upstream reruns'];
      else if (now.hash !== record.hash) reasons = staleReasons(record, now);
      else if (!(await filesIntact(finalDir, record))) reasons = ['outputs changed'];
      state = reasons.length === 0 ? 'complete' : 'stale';
    }
    if (state !== 'complete') upstreamChanged = true;
    statuses.push({ name: stage.name, state, reasons, partial: existsSync(join(out, `.${stage.name}.partial`)), completed_at: record?.completed_at ?? null });
  }
  return statuses;
}

export interface RunStagesOptions {
  /** Output folder. */
  out: string;
  /** Rerun every stage even when unchanged. */
  force?: boolean;
  progress?: PipelineProgress;
  signal?: AbortSignal;
}

/** Runs stages in order, skipping unchanged ones. Throws on the first stage that fails. */
export async function runStages(stages: Stage[], options: RunStagesOptions): Promise<StageOutcome[]> {
  const names = new Set<string>();
  for (const s of stages) {
    for (const a of s.after) if (!names.has(a)) throw new Error(`stage ${s.name} reads ${a}, which does not run before it`);
    if (names.has(s.name)) throw new Error(`stage ${s.name} is defined twice`);
    names.add(s.name);
  }
  // Creates the folder once nothing above it is held, so a refused run writes nothing.
  const lock = lockOutputFolder(options.out, 'gsr pipeline run');
  // Old folders a crash left between the two renames of a folder swap.
  for (const name of await readdir(options.out)) if (/\.old-\d+$/.test(name)) await rm(join(options.out, name), { recursive: true, force: true });
  const progress = options.progress ?? new PipelineProgress(stages.length);
  const done = new Map<string, StageOutcome>();
  const outcomes: StageOutcome[] = [];
  // The stage running now says how it stops (the CLI's own line says only that it was interrupted).
  let running: { index: number; stage: Stage } | null = null;
  const onAbort = () => {
    if (running) progress.line(`[${running.index + 1}/${stages.length}] ${running.stage.name}: interrupted: ${running.stage.stopping ?? 'finishing this stage, then stopping'}`);
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (const [index, stage] of stages.entries()) {
      if (options.signal?.aborted) throw new GsrError(`interrupted before stage ${stage.name} (the stages before it are complete; run again to go on)`, INTERRUPTED_EXIT);
      const started = Date.now();
      const finalDir = join(options.out, stage.name);
      const { hash, parts } = await stageHash(stage, (a) => done.get(a)!.record.digest);
      const existing = await readRecord(finalDir);
      if (!options.force && existing?.hash === hash && (await filesIntact(finalDir, existing))) {
        const outcome: StageOutcome = { name: stage.name, status: 'skipped', seconds: (Date.now() - started) / 1000, dir: finalDir, record: existing };
        done.set(stage.name, outcome);
        outcomes.push(outcome);
        progress.line(`[${index + 1}/${stages.length}] ${stage.name}: unchanged, skipped`);
        continue;
      }
      const partial = join(options.out, `.${stage.name}.partial`);
      const partialHash = existsSync(join(partial, PARTIAL_HASH)) ? (await readFile(join(partial, PARTIAL_HASH), 'utf8')).trim() : null;
      if (partialHash !== hash || options.force) await rm(partial, { recursive: true, force: true });
      else progress.line(`[${index + 1}/${stages.length}] ${stage.name}: resuming an interrupted run`);
      await mkdir(partial, { recursive: true });
      await writeFileAtomic(join(partial, PARTIAL_HASH), hash + '\n');
      const stateDir = join(options.out, '.state', stage.name);
      const ctx: StageContext = {
        dir: partial,
        finalDir,
        stateDir,
        input: (name) => {
          const o = done.get(name);
          if (!o || !stage.after.includes(name)) throw new Error(`stage ${stage.name} did not declare ${name} in after`);
          return o.dir;
        },
        summaryOf: <T>(name: string) => done.get(name)!.record.summary as T,
        progress: progress.stage(index, stage.name),
        notice: (m) => progress.line(`[${index + 1}/${stages.length}] ${stage.name}: ${m}`),
        signal: options.signal,
        force: options.force,
      };
      let summary: unknown;
      running = { index, stage };
      try {
        summary = await stage.run(ctx);
      } catch (err) {
        // The partial folder stays (for resume) under a name that never looks complete.
        if (options.signal?.aborted) throw new GsrError(`${stage.name}: ${errorMessage(err)}`, INTERRUPTED_EXIT);
        // The cause is kept, so that a fault of the machine is still told from an item's (src/util/errors.ts).
        throw err instanceof GsrError ? Object.assign(new GsrError(`${stage.name}: ${err.message}`, err.exitCode), { cause: err }) : new Error(`${stage.name}: ${errorMessage(err)}`, { cause: err });
      } finally {
        running = null;
      }
      const { digest, files } = await folderDigest(partial, isEngineFile);
      const seconds = (Date.now() - started) / 1000;
      const record: StageRecord = { stage: stage.name, hash, parts, engine: ENGINE_VERSION, completed_at: new Date().toISOString(), seconds, digest, files, summary: summary ?? null };
      await writeJsonAtomic(join(partial, STAGE_RECORD), record);
      await rm(join(partial, PARTIAL_HASH), { force: true });
      await replaceFolder(partial, finalDir);
      const outcome: StageOutcome = { name: stage.name, status: 'ran', seconds, dir: finalDir, record };
      done.set(stage.name, outcome);
      outcomes.push(outcome);
      progress.line(`[${index + 1}/${stages.length}] ${stage.name}: done in ${seconds.toFixed(1)} s`);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    progress.stop();
    lock.release();
  }
  return outcomes;
}

/** Moves a finished folder into place; the old one is moved aside first and removed after. */
async function replaceFolder(from: string, to: string): Promise<void> {
  const aside = `${to}.old-${process.pid}`;
  const hadOld = existsSync(to);
  if (hadOld) await rename(to, aside);
  await rename(from, to);
  if (hadOld) await rm(aside, { recursive: true, force: true });
}
