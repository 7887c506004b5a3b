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
