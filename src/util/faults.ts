/**
 * Injected faults of the machine, for the file-system fault matrix (test/security/fault-matrix.test.ts;
 * docs/security.md, "Faults of the machine"). Off unless `GSR_FAULTS` is set (or a test calls
 * {@link setFaultPlan}): every write through the project's own write helpers (src/util/fs.ts, the
 * annotation journal, the run store, the review journal) is a numbered write point, and the plan
 * makes chosen points fail as the disk would.
 *
 * `GSR_FAULTS=CODE@N` fails write point N (1-based) and every later one with the errno CODE (ENOSPC,
 * EIO, EROFS, EDQUOT...): a full disk stays full. `CODE@N!` fails point N only (a passing I/O error).
 * `CODE@N~TEXT` counts only the writes whose path contains TEXT. The run store and the review journal
 * fail as SQLite does on such a disk (SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY).
 */

export interface FaultPlan {
  code: string;
  /** 1-based write point of the first failure. */
  at: number;
  /** Only point `at` fails; later writes succeed. */
  once?: boolean;
  /** Only writes whose path contains this count. */
  pathIncludes?: string;
}

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EIO: 'i/o error',
  EACCES: 'permission denied',
  EMFILE: 'too many open files',
};

const SQLITE_OF: Record<string, [string, string]> = {
  ENOSPC: ['SQLITE_FULL', 'database or disk is full'],
  EDQUOT: ['SQLITE_FULL', 'database or disk is full'],
  EROFS: ['SQLITE_READONLY', 'attempt to write a readonly database'],
  EACCES: ['SQLITE_READONLY', 'attempt to write a readonly database'],
  EIO: ['SQLITE_IOERR_WRITE', 'disk I/O error'],
};

let plan: FaultPlan | null | undefined;
let points = 0;

/** Parses a `GSR_FAULTS` value; throws on a malformed one (a test that injects nothing must not pass). */
export function parseFaultPlan(text: string): FaultPlan {
  const m = /^([A-Z]+)@(\d+)(!?)(?:~(.+))?$/.exec(text.trim());
  if (!m || Number(m[2]) < 1) throw new Error(`GSR_FAULTS: expected CODE@N, CODE@N! or CODE@N~TEXT, got "${text}"`);
  return { code: m[1], at: Number(m[2]), once: m[3] === '!', pathIncludes: m[4] };
}

function current(): FaultPlan | null {
  if (plan === undefined) plan = process.env.GSR_FAULTS ? parseFaultPlan(process.env.GSR_FAULTS) : null;
  return plan;
}

/** Sets (or clears, with null) the plan in this process and restarts the count of write points. */
export function setFaultPlan(next: FaultPlan | null): void {
  plan = next;
  points = 0;
}

/** Write points counted since the plan was set (a reference run's count tells a test where the points are). */
export function faultPointsSeen(): number {
  return points;
}

/** Throws the planned fault when this write point is due; a no-op without a plan. */
export function faultPoint(path: string, kind: 'file' | 'sqlite' = 'file'): void {
  const p = current();
  if (p === null) return;
  if (p.pathIncludes !== undefined && !path.includes(p.pathIncludes)) return;
  const n = ++points;
  if (n < p.at || (p.once && n !== p.at)) return;
  if (kind === 'sqlite') {
    const [code, text] = SQLITE_OF[p.code] ?? ['SQLITE_IOERR', 'disk I/O error'];
    throw Object.assign(new Error(text), { name: 'SqliteError', code });
  }
  const text = ERRNO_TEXT[p.code] ?? p.code.toLowerCase();
  throw Object.assign(new Error(`${p.code}: ${text}, write '${path}'`), { code: p.code, syscall: 'write', path });
}
