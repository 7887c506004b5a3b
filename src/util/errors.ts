/**
 * An error caused by the user's input (a bad path, malformed file, unknown name).
 * The CLI prints its message as one line, without a stack trace, and exits non-zero.
 */
export class GsrError extends Error {
  constructor(
    message: string,
    /** Process exit code the CLI uses for this error. */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'GsrError';
  }
}

/** Message of any thrown value, for one-line reporting. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * Error codes of the machine, not of an item (docs/security.md, "Faults of the machine"): a full or
 * read-only disk, a quota, an I/O error, too many open files, permission refused on the output side,
 * an SQLite store that is full, locked or failing. A run stops on them (or retries where that is
 * safe) and never records them as an item's failure.
 */
const MACHINE_CODES = new Set([
  'ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EMFILE', 'ENFILE', 'EACCES', 'EPERM', 'ENOMEM',
  'SQLITE_FULL', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_NOMEM', 'SQLITE_CORRUPT',
]);

/**
 * A fault of the machine or its environment (see {@link isMachineFault}) with a one-line message: the
 * CLI prints it as an error and exits 1. `cause` keeps the original error.
 */
export class MachineFault extends GsrError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 1);
    this.name = 'MachineFault';
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** The error code of `err` or of an error in its `cause` chain that names a machine fault, else null. */
export function machineFaultCode(err: unknown): string | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof MachineFault) return (e as { code?: string }).code ?? machineFaultCode(e.cause) ?? 'MACHINE';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      // better-sqlite3 codes carry the extended code (SQLITE_IOERR_WRITE): the primary code decides.
      const primary = code.startsWith('SQLITE_') ? code.split('_').slice(0, 2).join('_') : code;
      if (MACHINE_CODES.has(primary)) return primary;
    }
  }
  return null;
}

/**
 * The one classifier of failures (docs/security.md, "Faults of the machine"): true when `err` is the
 * machine's (full disk, I/O error, a model file that vanished, a full or locked store) rather than the
 * item's own (an undecodable image, a bad line, a refused prompt). Input files that cannot be read are
 * wrapped in a GsrError naming the item, without a code, so they stay item faults.
 */
export function isMachineFault(err: unknown): boolean {
  return machineFaultCode(err) !== null;
}

/** Codes that are the machine's even when an input is read: no file handles or memory left. */
const READ_SIDE_CODES = new Set(['EMFILE', 'ENFILE', 'ENOMEM']);

/**
 * True for a failure to read an input that is the machine's (too many open files, no memory);
 * other read errors (missing, unreadable, EACCES) are the item's own.
 */
export function isMachineFaultOnRead(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof MachineFault || (typeof code === 'string' && READ_SIDE_CODES.has(code));
}

/** A machine error code named in a recorded failure's message (journals of older versions recorded such faults as item failures). */
export function machineFaultInMessage(message: string): string | null {
  const m = /\b(ENOSPC|EDQUOT|EROFS|EIO|EMFILE|ENFILE|SQLITE_FULL|SQLITE_BUSY|SQLITE_LOCKED|SQLITE_IOERR)\b|no space left on device|disk quota exceeded|read-only file system|database or disk is full|database is locked|too many open files/i.exec(message);
  return m ? (m[1] ?? m[0]).toUpperCase() : null;
}
