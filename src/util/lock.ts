/**
 * One writer per output. The lock is a kernel record lock on a small SQLite file, held by an open
 * EXCLUSIVE transaction: taking it is one atomic step, and the kernel drops it the moment its holder
 * exits for any reason (kill -9 included), so nobody ever has to judge a lock stale from a pid or a
 * time stamp. The file itself is never removed (removing it would let a second holder lock a new
 * file while the first still holds the old one); its presence means nothing.
 *
 * POSIX record locks belong to the process and vanish when it closes any descriptor of the file, so
 * nothing in the holding process may open the lock file by other means.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GsrError } from './errors.js';
import { removeStaleTemps, writeFileAtomicSync } from './fs.js';
import { notice } from './log.js';

/** Lock file name inside an output folder. */
export const LOCK_FILE = '.gsr.lock';
const OWNER_SUFFIX = '.owner';

export interface Lock {
  /** Gives the lock up (idempotent); exiting the process does the same. */
  release(): void;
}

interface Owner {
  pid: number;
  command: string;
  since: string;
}

/** Who holds the lock, from the note its holder wrote (possibly not yet written, or a previous holder's). */
function describeOwner(path: string): string {
  try {
    const o = JSON.parse(readFileSync(path + OWNER_SUFFIX, 'utf8')) as Owner;
    return `${o.command} (pid ${o.pid}, since ${o.since})`;
  } catch {
    return 'another gsr process';
  }
}

/** Takes the lock at `path`, or returns null when another holder has it. */
export function tryLock(path: string, command: string): Lock | null {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw new GsrError(`cannot take the lock ${path}: ${(err as Error).message}`);
  }
  // For the message a refused writer prints; never read to decide anything.
  writeFileAtomicSync(path + OWNER_SUFFIX, JSON.stringify({ pid: process.pid, command, since: new Date().toISOString() } satisfies Owner) + '\n');
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.close(); // closing ends the transaction and drops the lock
    },
  };
}

/**
 * Takes the lock of an output folder for `command` (named to a refused writer), or throws a GsrError
 * naming the holder. Then removes the temp files that killed writers left in the folder.
 */
export function lockOutputFolder(folder: string, command: string): Lock {
  const path = join(folder, LOCK_FILE);
  const lock = tryLock(path, command);
  if (lock === null) throw new GsrError(`${folder} is in use by ${describeOwner(path)}; wait for it to finish or stop it`);
  const removed = removeStaleTemps(folder);
  if (removed > 0) notice(`removed ${removed} unfinished temp file${removed === 1 ? '' : 's'} that a stopped run left in ${folder}`);
  return lock;
}
