import cliProgress from 'cli-progress';

export interface Progress {
  /** Advances by `n` finished units; `failed` counts towards the failure tally. */
  tick(n?: number, failed?: boolean): void;
  stop(): void;
}

/**
 * A progress bar on stderr with rate and ETA. Silent when stderr is not a terminal
 * (CI, pipes) unless GSR_PROGRESS=1, so logs stay readable.
 */
export function createProgress(label: string, total: number, unit = 'items'): Progress {
  const enabled = process.env.GSR_PROGRESS === '1' || (process.stderr.isTTY && process.env.GSR_PROGRESS !== '0');
  if (!enabled) return { tick() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {value}/{total} ${unit} | failed {failed} | {rate}/s | ETA {eta_formatted}`,
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
      // cli-progress draws nothing on a non-terminal stream unless told to (GSR_PROGRESS=1 in CI/pipes).
      noTTYOutput: !process.stderr.isTTY,
    },
    cliProgress.Presets.shades_classic,
  );
  const start = Date.now();
  let done = 0;
  let failed = 0;
  bar.start(total, 0, { failed: 0, rate: '0.0' });
  return {
    tick(n = 1, isFailed = false) {
      done += n;
      if (isFailed) failed += n;
      const secs = (Date.now() - start) / 1000;
      bar.update(done, { failed, rate: secs > 0 ? (done / secs).toFixed(1) : '0.0' });
    },
    stop() {
      bar.stop();
    },
  };
}
