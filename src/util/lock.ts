/**
 * One writer per output tree. A folder's lock is a kernel record lock on a small SQLite file in it
 * (`.gsr.lock`), held by an open transaction: taking it is one atomic step, and the kernel drops it
 * the moment its holder exits for any reason (kill -9 included), so nobody ever has to judge a lock
 * stale from a pid or a time stamp. The file itself is never removed (removing it would let a second
 * holder lock a new file while the first still holds the old one); its presence means nothing.
 *
 * A folder's lock covers everything under it. The command that holds a folder keeps an EXCLUSIVE
 * transaction on its lock file; every gsr command that writes under some folder keeps a SHARED one on
 * the lock file of each folder above its output that has one (readers of a lock never create it). So
 * a writer under a held folder is refused (its SHARED lock fails), and a folder whose subtree is being
 * written cannot be taken (its EXCLUSIVE lock fails). A command taking a folder also looks for held
 * locks below it, which covers a writer that started there before the folder had a lock file; see
 * docs/security.md for the one case this leaves (a plain file writer in a tree never locked before).
 *
 * Who holds a lock is told by notes beside it (`.gsr.lock.owner` for the folder's holder, a
 * `.gsr.lock.<pid>.<hex>.reader` per writer below), read only for the message, never to decide.
 *
 * POSIX record locks belong to the process and vanish when it closes any descriptor of the file;
 * SQLite keeps its descriptors open for that reason, so nothing in the holding process may open the
 * lock file by other means.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GsrError } from './errors.js';
import { removeStaleTemps, writeFileAtomicSync } from './fs.js';
import { notice } from './log.js';
import { pidAlive } from './process.js';

/** Lock file name inside an output folder. */
export const LOCK_FILE = '.gsr.lock';
const OWNER_SUFFIX = '.owner';
const READER_NOTE = /^\.gsr\.lock\.(\d+)\.[0-9a-f]{8}\.reader$/;

export interface Lock {
  /** Gives the lock up (idempotent); exiting the process does the same. */
  release(): void;
}

interface Owner {
  pid: number;
  command: string;
  since: string;
}

function readOwner(path: string): Owner | null {
  try {
    const o = JSON.parse(readFileSync(path, 'utf8')) as Owner;
    return Number.isInteger(o.pid) && pidAlive(o.pid) ? o : null;
  } catch {
    return null;
  }
}

/** Who holds the lock in `folder`, from the notes of live processes (possibly not yet written). */
function describeHolder(folder: string): string {
  let names: string[] = [];
  try {
    names = readdirSync(folder);
  } catch {
    /* the folder went away: no note to read */
  }
  const notes = [...names.filter((n) => READER_NOTE.test(n)), LOCK_FILE + OWNER_SUFFIX];
  for (const n of notes) {
    const o = readOwner(join(folder, n));
    if (o) return `${o.command} (pid ${o.pid}, since ${o.since})`;
  }
  return 'another gsr process';
}

/**
 * A transaction on a lock file: EXCLUSIVE (the folder's holder) or SHARED (a writer below it). Null
 * when another holder has it; undefined when a lock file to share is not there.
 */
function transact(path: string, mode: 'exclusive' | 'shared'): Database.Database | null | undefined {
  let db: Database.Database;
  try {
    db = mode === 'exclusive' ? new Database(path, { timeout: 0 }) : new Database(path, { timeout: 0, readonly: true, fileMustExist: true });
  } catch (err) {
    if (mode === 'shared' && !existsSync(path)) return undefined; // removed meanwhile: nothing to hold
    throw new GsrError(`cannot open the lock ${path}: ${(err as Error).message}`);
  }
  try {
    if (mode === 'exclusive') {
      db.pragma('journal_mode = MEMORY'); // nothing is written: no -journal file beside the lock
      db.exec('BEGIN EXCLUSIVE');
    }
    else {
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM sqlite_master').get(); // a read takes the SHARED lock
    }
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw new GsrError(`cannot take the lock ${path}: ${(err as Error).message}`);
  }
}

function ownerNote(command: string): string {
  return JSON.stringify({ pid: process.pid, command, since: new Date().toISOString() } satisfies Owner) + '\n';
}

/** Takes the lock at `path` alone (no folders above or below are looked at), or returns null when it is held. */
export function tryLock(path: string, command: string): Lock | null {
  mkdirSync(dirname(path), { recursive: true });
  const db = transact(path, 'exclusive');
  if (!db) return null;
  // For the message a refused writer prints; never read to decide anything. Removed while still held.
  try {
    writeFileAtomicSync(path + OWNER_SUFFIX, ownerNote(command));
  } catch (err) {
    db.close(); // a disk that cannot take the note (full, read-only) must not leave the folder locked
    throw err;
  }
  return once(() => {
    rmSync(path + OWNER_SUFFIX, { force: true });
    db.close(); // closing ends the transaction and drops the lock
  });
}

function once(fn: () => void): Lock {
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      fn();
    },
  };
}

/** Every folder above `path` (nearest first), up to the file system's root. */
function foldersAbove(path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); ; d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) return out;
  }
}

/**
 * SHARED locks on the lock file of each folder in `folders` that has one and is not in `have`
 * (added to it); throws naming the holder when one of them is held.
 */
function holdAbove(folders: string[], target: string, command: string, have: Map<string, Lock>): void {
  for (const folder of folders) {
    const path = join(folder, LOCK_FILE);
    if (have.has(path) || !existsSync(path)) continue;
    const db = transact(path, 'shared');
    if (db === undefined) continue;
    if (db === null) {
      throw new GsrError(`${target} is inside ${folder}, which is in use by ${describeHolder(folder)}; wait for it to finish or stop it`);
    }
    const note = join(folder, `${LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.reader`);
    try {
      writeFileAtomicSync(note, ownerNote(command));
    } catch {
      /* a folder we may not write: the lock still holds, only the message loses a name */
    }
    have.set(path, once(() => (rmSync(note, { force: true }), db.close())));
  }
}

function releaseAll(locks: Map<string, Lock>): void {
  for (const l of [...locks.values()].reverse()) l.release();
}

/**
 * Declares that `command` writes the file `file` (its folder created as needed): holds a SHARED lock
 * on each folder above it that has a lock file, or throws a GsrError naming the holder of one that is
 * taken. Nothing is written when refused.
 */
export function holdOutputFile(file: string, command: string): Lock {
  const locks = new Map<string, Lock>();
  try {
    holdAbove(foldersAbove(resolve(file)), resolve(file), command, locks);
  } catch (err) {
    releaseAll(locks);
    throw err;
  }
  return once(() => releaseAll(locks));
}

/** Lock files under `folder` (not its own), symbolic links not followed. */
function locksBelow(folder: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === LOCK_FILE && d !== folder) out.push(join(d, e.name));
    }
  };
  walk(folder);
  return out;
}

/**
 * Takes an output folder and everything under it for `command` (named to a refused writer), or throws
 * a GsrError naming the holder: of a folder above it, of the folder itself, or of a folder below it.
 * When refused because of a folder above, nothing is written. Then removes the temp files that killed
 * writers left in the folder.
 */
export function lockOutputFolder(folder: string, command: string): Lock {
  const abs = resolve(folder);
  const above = foldersAbove(join(abs, LOCK_FILE)).slice(1);
  const locks = new Map<string, Lock>();
  try {
    holdAbove(above, abs, command, locks);
    const own = tryLock(join(abs, LOCK_FILE), command);
    if (own === null) throw new GsrError(`${abs} is in use by ${describeHolder(abs)}; wait for it to finish or stop it`);
    locks.set(join(abs, LOCK_FILE), own);
    // A folder above that got its lock file while this one was taken (see the file comment).
    holdAbove(above, abs, command, locks);
    for (const path of locksBelow(abs)) {
      const probe = transact(path, 'exclusive');
      if (!probe) throw new GsrError(`${abs} contains ${dirname(path)}, which is in use by ${describeHolder(dirname(path))}; wait for it to finish or stop it`);
      probe.close();
    }
    // Holding the folder alone, every writer's note in it is a dead writer's.
    for (const n of readdirSync(abs)) if (READER_NOTE.test(n)) rmSync(join(abs, n), { force: true });
  } catch (err) {
    releaseAll(locks);
    throw err;
  }
  const removed = removeStaleTemps(abs);
  if (removed > 0) notice(`removed ${removed} unfinished temp file${removed === 1 ? '' : 's'} that a stopped run left in ${abs}`);
  return once(() => releaseAll(locks));
}

/** What a command writes: folders it takes whole, folders it writes files in, and files. */
export interface Outputs {
  folders?: Array<string | undefined>;
  inside?: Array<string | undefined>;
  files?: Array<string | undefined>;
}

/** Holds all of a command's outputs ({@link lockOutputFolder}, {@link holdOutputFile}), or none and throws. */
export function holdOutputs(command: string, outputs: Outputs): Lock {
  const held: Lock[] = [];
  try {
    for (const f of outputs.folders ?? []) if (f !== undefined) held.push(lockOutputFolder(f, command));
    for (const d of outputs.inside ?? []) if (d !== undefined) held.push(holdOutputFile(join(d, LOCK_FILE), command));
    for (const f of outputs.files ?? []) if (f !== undefined) held.push(holdOutputFile(f, command));
  } catch (err) {
    for (const l of held.reverse()) l.release();
    throw err;
  }
  return once(() => {
    for (const l of held.reverse()) l.release();
  });
}

