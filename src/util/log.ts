type LineWriter = (line: string) => void;

/** Writers that print above a progress bar, the newest last (util/progress.ts). */
const writers: LineWriter[] = [];

/** Notices and progress go to stderr so that `--json` output on stdout stays clean. */
export function notice(message: string): void {
  const line = `gsr: ${message}\n`;
  const writer = writers.at(-1);
  if (writer) writer(line);
  else process.stderr.write(line);
}

/**
 * Routes notices through `writer` (a progress bar prints them above itself, so it never draws over
 * them) until the returned function is called.
 */
export function setNoticeWriter(writer: LineWriter): () => void {
  writers.push(writer);
  return () => {
    const at = writers.lastIndexOf(writer);
    if (at >= 0) writers.splice(at, 1);
  };
}
