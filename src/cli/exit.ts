/**
 * Exit codes, the same for every command (docs/cli.md, "Exit codes"; test/cli/exit-codes.test.ts
 * has one test per row).
 */
import { notice } from '../util/log.js';

export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** The command failed: bad input, a file that cannot be read, or not one item succeeded. */
  failed: 1,
  /** A usage error: an unknown option or command, a bad option value, a missing argument. */
  usage: 2,
  /** It finished, but some items failed (the output holds the others; stderr says which). */
  someFailed: 3,
  /** Interrupted (Ctrl-C or SIGTERM); what was finished is kept. */
  interrupted: 130,
} as const;

/** Reasons shown on stderr when items fail; the rest are counted. */
export const REASONS_SHOWN = 5;

export interface ItemCounts {
  failed: number;
  total: number;
  /** Items that are done (in this run or before); none means the command failed as a whole. */
  succeeded: number;
  /** More counts for the summary line, e.g. `ok 3, already done 0`. */
  detail?: string;
}

/**
 * Ends a command that finished with some items failed: a summary on stderr (`2 of 5 prompts failed
 * (ok 3, already done 0); exit code 3`, then the first few `reasons`) and exit code 3, or 1 when not
 * one item succeeded. Does nothing when none failed.
 */
export function reportItemFailures(noun: string, counts: ItemCounts, reasons: readonly string[]): void {
  if (counts.failed === 0) return;
  const none = counts.succeeded === 0;
  const code = none ? EXIT.failed : EXIT.someFailed;
  const detail = counts.detail ? ` (${counts.detail})` : '';
  notice(`${counts.failed} of ${counts.total} ${noun} failed${detail}; ${none ? 'none succeeded; ' : ''}exit code ${code}${reasons.length > 0 ? ':' : ''}`);
  for (const reason of reasons.slice(0, REASONS_SHOWN)) notice(`  ${reason}`);
  if (reasons.length > REASONS_SHOWN) notice(`  ... and ${reasons.length - REASONS_SHOWN} more`);
  process.exitCode = code;
}
