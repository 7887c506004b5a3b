/** Notices and progress go to stderr so that `--json` output on stdout stays clean. */
export function notice(message: string): void {
  process.stderr.write(`gsr: ${message}\n`);
}
