/**
 * The review journal: every edit is one row in SQLite (WAL), committed before the server answers, so
 * closing the tab or killing the server loses at most the edit in flight. The journal remembers the
 * annotation file it reviews (sha256), and refuses another.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { GsrError, MachineFault, errorMessage, isMachineFault } from '../util/errors.js';
import { faultPoint } from '../util/faults.js';
import { EditSchema, type Edit, type EditEvent } from './edits.js';

const SCHEMA_VERSION = 1;
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  slot TEXT NOT NULL, reviewer TEXT NOT NULL, time TEXT NOT NULL, edit TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_slot ON events (slot, seq);
`;

export class ReviewJournal {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;

  private constructor(
    readonly path: string,
    base: { file: string; sha256: string } | null,
  ) {
    if (!base && !existsSync(path)) throw new GsrError(`review journal not found: ${path}`);
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(path, { timeout: 10_000, fileMustExist: !base });
      this.db.pragma('journal_mode = WAL');
      // FULL: each committed edit is on disk before the page hears it was saved.
      this.db.pragma('synchronous = FULL');
      this.db.exec(SCHEMA);
    } catch (err) {
      throw new GsrError(`cannot open review journal ${path}: ${errorMessage(err)}`);
    }
    const meta = new Map((this.db.prepare('SELECT name, value FROM meta').all() as Array<{ name: string; value: string }>).map((r) => [r.name, r.value]));
    const version = meta.get('schema_version');
    if (version !== undefined && Number(version) !== SCHEMA_VERSION) throw new GsrError(`${path}: review journal schema ${version}, this gsr reads ${SCHEMA_VERSION}`);
    if (base) {
      const known = meta.get('base_sha256');
      if (known !== undefined && known !== base.sha256) {
        this.db.close();
        throw new GsrError(`${path}: this journal reviews another annotation file (${meta.get('base_file')}, sha256 ${known.slice(0, 12)}); give --journal a new file`);
      }
      const put = this.db.prepare('INSERT OR IGNORE INTO meta VALUES (?, ?)');
      put.run('schema_version', String(SCHEMA_VERSION));
      put.run('base_file', base.file);
      put.run('base_sha256', base.sha256);
    }
    this.insert = this.db.prepare('INSERT INTO events (slot, reviewer, time, edit) VALUES (?, ?, ?, ?)');
  }

  /** Opens (or creates) the journal for the annotation file with this sha256. */
  static open(path: string, base: { file: string; sha256: string }): ReviewJournal {
    return new ReviewJournal(path, base);
  }

  /** Opens an existing journal read-only in spirit (for export and agreement). */
  static openExisting(path: string): ReviewJournal {
    return new ReviewJournal(path, null);
  }

  meta(name: string): string | undefined {
    return (this.db.prepare('SELECT value FROM meta WHERE name = ?').pluck().get(name) as string | undefined) ?? undefined;
  }

  /** Appends one edit and returns it as stored (committed when this returns). */
  append(slot: string, reviewer: string, edit: Edit, time = new Date().toISOString()): EditEvent {
    let info;
    try {
      faultPoint(this.path, 'sqlite');
      info = this.insert.run(slot, reviewer, time, JSON.stringify(edit));
    } catch (err) {
      // A full or failing disk is not a bad edit: the edit is not saved and the page says why (src/review/server.ts).
      if (isMachineFault(err)) throw new MachineFault(`review journal ${this.path}: ${errorMessage(err)}; the edit was not saved`, { cause: err });
      throw err;
    }
    return { seq: Number(info.lastInsertRowid), slot, reviewer, time, edit };
  }

  /** All events in order; a row that does not parse is an error naming it. */
  events(): EditEvent[] {
    const rows = this.db.prepare('SELECT seq, slot, reviewer, time, edit FROM events ORDER BY seq').all() as Array<{ seq: number; slot: string; reviewer: string; time: string; edit: string }>;
    return rows.map((r) => {
      const parsed = EditSchema.safeParse(JSON.parse(r.edit));
      if (!parsed.success) throw new GsrError(`${this.path}: event ${r.seq} is not a review edit (${parsed.error.issues[0].message})`);
      return { seq: r.seq, slot: r.slot, reviewer: r.reviewer, time: r.time, edit: parsed.data };
    });
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Groups events by slot, each list in seq order. */
export function eventsBySlot(events: readonly EditEvent[]): Map<string, EditEvent[]> {
  const out = new Map<string, EditEvent[]>();
  for (const e of events) (out.get(e.slot) ?? out.set(e.slot, []).get(e.slot)!).push(e);
  return out;
}
