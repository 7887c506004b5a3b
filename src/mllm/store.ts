import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { GsrError, MachineFault, errorMessage, isMachineFault } from '../util/errors.js';
import { faultPoint } from '../util/faults.js';
import { hashCanonical } from '../prompts/key.js';
import { pidAlive } from '../util/process.js';

/**
 * The run store: one SQLite file (WAL) holding every response, committed one row per response as it
 * arrives. A response is identified by prompt key + model + settings id (hash of the generation settings).
 * Runners claim a prompt before sending it, so two runners on one store never ask the same prompt
 * while both are alive; a claim whose owner process is gone (kill -9) or whose lease ran out is taken over.
 */
export const STORE_SCHEMA_VERSION = 1;

/** Everything besides the prompt that determines a response. */
export interface GenerationSettings {
  answerer: string;
  model: string;
  temperature?: number;
  max_tokens?: number;
  top_p?: number;
  seed?: number;
  [key: string]: unknown;
}

/** Short id of a settings object (first 16 hex digits of its canonical sha256). */
export function settingsId(settings: GenerationSettings): string {
  return hashCanonical(settings).slice(0, 16);
}

export interface StoredResponse {
  key: string;
  model: string;
  settings: string;
  status: 'ok' | 'failed';
  output: string;
  error: string | null;
  attempts: number;
  latency_ms: number | null;
  started_at: string | null;
  finished_at: string | null;
  item: string;
  split: string | null;
  task: string | null;
  permutation: number[] | null;
  role: 'subject' | 'object' | null;
  rotation: number | null;
  source: 'run' | 'import';
}

export type ClaimResult = 'claimed' | 'done' | 'busy';

/** One answer that was judged invalid and asked again (runs with several answer attempts). */
export interface StoredAttempt {
  key: string;
  model: string;
  settings: string;
  /** 1-based; the response row holds the last attempt. */
  attempt: number;
  output: string;
  reason: string;
  finished_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (id TEXT PRIMARY KEY, model TEXT NOT NULL, json TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS responses (
  key TEXT NOT NULL, model TEXT NOT NULL, settings TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  output TEXT NOT NULL, error TEXT, attempts INTEGER NOT NULL, latency_ms REAL,
  started_at TEXT, finished_at TEXT,
  item TEXT NOT NULL, split TEXT, task TEXT, permutation TEXT, role TEXT, rotation INTEGER,
  source TEXT NOT NULL,
  PRIMARY KEY (key, model, settings)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS responses_by_run ON responses (model, settings, status);
CREATE TABLE IF NOT EXISTS claims (
  key TEXT NOT NULL, model TEXT NOT NULL, settings TEXT NOT NULL,
  owner TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (key, model, settings)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS answer_attempts (
  key TEXT NOT NULL, model TEXT NOT NULL, settings TEXT NOT NULL, attempt INTEGER NOT NULL,
  output TEXT NOT NULL, reason TEXT NOT NULL, finished_at TEXT NOT NULL,
  PRIMARY KEY (key, model, settings, attempt)
) WITHOUT ROWID;
`;

type Row = Omit<StoredResponse, 'permutation'> & { permutation: string | null };

function fromRow(r: Row): StoredResponse {
  return { ...r, permutation: r.permutation === null ? null : (JSON.parse(r.permutation) as number[]) };
}

/** The WHERE clause and its arguments for an optional model and settings filter. */
function filterClause(filter: { model?: string; settings?: string }): { where: string; args: string[] } {
  const terms: string[] = [];
  const args: string[] = [];
  for (const column of ['model', 'settings'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    terms.push(`${column} = ?`);
    args.push(value);
  }
  return { where: terms.length ? `WHERE ${terms.join(' AND ')}` : '', args };
}

export class RunStore {
  private readonly db: Database.Database;
  /** Identifies this process's claims. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly host = hostname();
  private readonly stmts;
  // Made once: inside an open transaction (the runner's group commit) rows are written directly, since a
  // nested better-sqlite3 transaction would cost a savepoint per row.
  private readonly claimTx;
  private readonly commitTx;

  private constructor(readonly path: string, create: boolean) {
    if (!create && !existsSync(path)) throw new GsrError(`run store not found: ${path}`);
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path, { timeout: 30_000 });
      this.db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode: a committed transaction survives a process crash (kill -9); only an OS
      // crash or power loss can drop the last few.
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(SCHEMA);
    } catch (err) {
      throw new GsrError(`cannot open run store ${path}: ${errorMessage(err)}`);
    }
    const version = this.db.prepare(`SELECT value FROM meta WHERE name = 'schema_version'`).pluck().get() as string | undefined;
    if (version === undefined) this.db.prepare(`INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)`).run(String(STORE_SCHEMA_VERSION));
    else if (Number(version) !== STORE_SCHEMA_VERSION) throw new GsrError(`${path}: run store schema ${version}, this gsr reads ${STORE_SCHEMA_VERSION}`);
    this.stmts = {
      status: this.db.prepare(`SELECT status FROM responses WHERE key = ? AND model = ? AND settings = ?`).pluck(),
      one: this.db.prepare(`SELECT * FROM responses WHERE key = ? AND model = ? AND settings = ?`),
      claimGet: this.db.prepare(`SELECT owner, host, pid, expires_at FROM claims WHERE key = ? AND model = ? AND settings = ?`),
      claimPut: this.db.prepare(
        `INSERT INTO claims VALUES (@key, @model, @settings, @owner, @host, @pid, @expires_at)
         ON CONFLICT (key, model, settings) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid, expires_at = excluded.expires_at`,
      ),
      attemptPut: this.db.prepare(`INSERT OR IGNORE INTO answer_attempts VALUES (@key, @model, @settings, @attempt, @output, @reason, @finished_at)`),
      attemptsOf: this.db.prepare(`SELECT * FROM answer_attempts WHERE key = ? AND model = ? AND settings = ? ORDER BY attempt`),
      attemptCounts: this.db.prepare(`SELECT key, count(*) AS n FROM answer_attempts WHERE model = ? AND settings = ? GROUP BY key`),
      claimDel: this.db.prepare(`DELETE FROM claims WHERE key = ? AND model = ? AND settings = ? AND owner = ?`),
      upsert: this.db.prepare(
        `INSERT INTO responses VALUES (@key, @model, @settings, @status, @output, @error, @attempts, @latency_ms, @started_at, @finished_at, @item, @split, @task, @permutation, @role, @rotation, @source)
         ON CONFLICT (key, model, settings) DO UPDATE SET status = excluded.status, output = excluded.output, error = excluded.error,
           attempts = CASE WHEN excluded.source = 'run' AND responses.source = 'run' THEN responses.attempts + excluded.attempts ELSE excluded.attempts END,
           latency_ms = excluded.latency_ms, started_at = excluded.started_at, finished_at = excluded.finished_at, item = excluded.item,
           split = excluded.split, task = excluded.task, permutation = excluded.permutation, role = excluded.role, rotation = excluded.rotation, source = excluded.source
         WHERE responses.status <> 'ok' OR @replace = 1`,
      ),
    };
    this.claimTx = this.db.transaction((key: string, model: string, settings: string, leaseMs: number) => this.claimRow(key, model, settings, leaseMs));
    this.commitTx = this.db.transaction((r: StoredResponse, replace: boolean) => this.commitRow(r, replace));
  }

  /** Opens a store file, creating it unless `create` is false. */
  static open(path: string, options: { create?: boolean } = {}): RunStore {
    return new RunStore(path, options.create ?? true);
  }

  /**
   * Runs a write; a fault of the machine (a full disk: SQLITE_FULL, an I/O error, a read-only or
   * locked file) becomes one MachineFault line naming the store, which stops the run (src/util/errors.ts).
   */
  private write<T>(fn: () => T): T {
    try {
      faultPoint(this.path, 'sqlite');
      return fn();
    } catch (err) {
      if (err instanceof MachineFault || !isMachineFault(err)) throw err;
      throw new MachineFault(`run store ${this.path}: ${errorMessage(err)} (${(err as { code?: string }).code}); the rows of this write were not recorded`, { cause: err });
    }
  }

  /** Records a settings object and returns its id. */
  registerSettings(settings: GenerationSettings): string {
    const id = settingsId(settings);
    this.write(() => this.db.prepare(`INSERT OR IGNORE INTO settings VALUES (?, ?, ?, ?)`).run(id, settings.model, JSON.stringify(settings), new Date().toISOString()));
    return id;
  }

  /** The settings ids (with their JSON) stored for a model, or for all models. */
  listSettings(model?: string): Array<{ id: string; model: string; settings: GenerationSettings; responses: number }> {
    const rows = this.db
      .prepare(
        `SELECT s.id, s.model, s.json, (SELECT count(*) FROM responses r WHERE r.model = s.model AND r.settings = s.id) AS responses
         FROM settings s ${model !== undefined ? 'WHERE s.model = ?' : ''} ORDER BY s.created_at`,
      )
      .all(...(model !== undefined ? [model] : [])) as Array<{ id: string; model: string; json: string; responses: number }>;
    return rows.map((r) => ({ id: r.id, model: r.model, settings: JSON.parse(r.json) as GenerationSettings, responses: r.responses }));
  }

  /** Keys answered ok for one model and settings: what a resumed run skips. */
  doneKeys(model: string, settings: string): Set<string> {
    const keys = this.db.prepare(`SELECT key FROM responses WHERE model = ? AND settings = ? AND status = 'ok'`).pluck().all(model, settings) as string[];
    return new Set(keys);
  }

  /**
   * Claims a prompt for this process: `done` when it already has an ok response, `busy` when a live
   * runner holds an unexpired claim on it.
   */
  claim(key: string, model: string, settings: string, leaseMs: number): ClaimResult {
    return this.db.inTransaction ? this.claimRow(key, model, settings, leaseMs) : this.write(() => this.claimTx.immediate(key, model, settings, leaseMs));
  }

  private claimRow(key: string, model: string, settings: string, leaseMs: number): ClaimResult {
    if (this.stmts.status.get(key, model, settings) === 'ok') return 'done';
    const held = this.stmts.claimGet.get(key, model, settings) as { owner: string; host: string; pid: number; expires_at: number } | undefined;
    const now = Date.now();
    if (held !== undefined && held.owner !== this.owner && held.expires_at > now && !(held.host === this.host && !pidAlive(held.pid))) return 'busy';
    this.stmts.claimPut.run({ key, model, settings, owner: this.owner, host: this.host, pid: process.pid, expires_at: now + leaseMs });
    return 'claimed';
  }

  /** The stored response of one prompt, model and settings id, if any. */
  response(key: string, model: string, settings: string): StoredResponse | undefined {
    const row = this.stmts.one.get(key, model, settings) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** Drops this process's claim without a response (interrupted). */
  release(key: string, model: string, settings: string): void {
    this.stmts.claimDel.run(key, model, settings, this.owner);
  }

  /**
   * Commits one response and drops the claim, in one transaction. Never overwrites an ok response
   * unless `replace` (imports with --replace). Returns whether the row was written.
   */
  commit(r: StoredResponse, replace = false): boolean {
    return this.db.inTransaction ? this.commitRow(r, replace) : this.write(() => this.commitTx.immediate(r, replace));
  }

  private commitRow(r: StoredResponse, replace: boolean): boolean {
    const info = this.stmts.upsert.run({ ...r, permutation: r.permutation === null ? null : JSON.stringify(r.permutation), replace: replace ? 1 : 0 });
    this.stmts.claimDel.run(r.key, r.model, r.settings, this.owner);
    return info.changes > 0;
  }

  /**
   * Records an invalid answer that will be asked again. Written before the next attempt is sent, so a
   * resumed run continues the count; an attempt number is stored once (a repeat is ignored).
   */
  recordAttempt(a: StoredAttempt): void {
    this.write(() => this.stmts.attemptPut.run(a));
  }

  /** The invalid answers stored for one prompt, in order. */
  attempts(key: string, model: string, settings: string): StoredAttempt[] {
    return this.stmts.attemptsOf.all(key, model, settings) as StoredAttempt[];
  }

  /** Invalid answers per prompt key for one model and settings (prompts with none are absent). */
  attemptCounts(model: string, settings: string): Map<string, number> {
    const rows = this.stmts.attemptCounts.all(model, settings) as Array<{ key: string; n: number }>;
    return new Map(rows.map((r) => [r.key, r.n]));
  }

  /**
   * Drops every response, claim and invalid-answer record of one model and settings id, so a run asks
   * its prompts again (`gsr pipeline run --force`). Returns the responses dropped.
   */
  discard(model: string, settings: string): number {
    return this.transaction(() => {
      for (const table of ['claims', 'answer_attempts']) this.db.prepare(`DELETE FROM ${table} WHERE model = ? AND settings = ?`).run(model, settings);
      return this.db.prepare(`DELETE FROM responses WHERE model = ? AND settings = ?`).run(model, settings).changes;
    });
  }

  /** A note kept in the store (e.g. the queued run a model's prompts went to); null when absent. */
  getMeta(name: string): string | null {
    return (this.db.prepare(`SELECT value FROM meta WHERE name = ?`).pluck().get(name) as string | undefined) ?? null;
  }

  /** Sets a note, or removes it with null. */
  setMeta(name: string, value: string | null): void {
    if (value === null) this.db.prepare(`DELETE FROM meta WHERE name = ?`).run(name);
    else this.db.prepare(`INSERT INTO meta VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`).run(name, value);
  }

  /** Runs `fn` in one transaction (bulk imports). */
  transaction<T>(fn: () => T): T {
    return this.write(() => this.db.transaction(fn).immediate());
  }

  /** Streams stored responses, optionally for one model and settings id, in key order. */
  *responses(filter: { model?: string; settings?: string } = {}): Generator<StoredResponse> {
    const { where, args } = filterClause(filter);
    const sql = `SELECT * FROM responses ${where} ORDER BY model, settings, key`;
    for (const row of this.db.prepare(sql).iterate(...args)) yield fromRow(row as Row);
  }

  /** Counts by status for one model and settings (or all). */
  counts(filter: { model?: string; settings?: string } = {}): Record<string, number> {
    const { where, args } = filterClause(filter);
    const rows = this.db.prepare(`SELECT status, count(*) AS n FROM responses ${where} GROUP BY status`).all(...args) as Array<{ status: string; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  close(): void {
    if (this.db.open) {
      this.db.prepare(`DELETE FROM claims WHERE owner = ?`).run(this.owner);
      this.db.close();
    }
  }
}
