import cliProgress from 'cli-progress';

export interface Progress {
  /** Advances by `n` finished units; `failed` counts towards the failure tally. */
  tick(n?: number, failed?: boolean): void;
  stop(): void;
  /** Replaces the bar's status text (e.g. a queue's workers and jobs in flight), where it has one. */
  note?(text: string): void;
}

/** Progress bars show on a terminal, or anywhere with GSR_PROGRESS=1; GSR_PROGRESS=0 hides them. */
export function progressEnabled(): boolean {
  return process.env.GSR_PROGRESS === '1' || (process.stderr.isTTY === true && process.env.GSR_PROGRESS !== '0');
}

export interface ProgressOptions {
  /** Erase the bar when it stops (a pipeline prints its own line per stage instead). */
  clearOnComplete?: boolean;
  /** Show a status text after the ETA, set with `note()`. */
  note?: boolean;
}

/**
 * A progress bar on stderr with rate, failures and ETA. Silent unless {@link progressEnabled}, so
 * logs stay readable.
 */
export function createProgress(label: string, total: number, unit = 'items', options: ProgressOptions = {}): Progress {
  if (!progressEnabled()) return { tick() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {value}/{total} ${unit} | failed {failed} | {rate}/s | ETA {eta_formatted}${options.note ? ' | {note}' : ''}`,
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
      clearOnComplete: options.clearOnComplete ?? false,
      // cli-progress draws nothing on a non-terminal stream unless told to (GSR_PROGRESS=1 in CI/pipes).
      noTTYOutput: !process.stderr.isTTY,
    },
    cliProgress.Presets.shades_classic,
  );
  const start = Date.now();
  let done = 0;
  let failed = 0;
  bar.start(total, 0, { failed: 0, rate: '0.0', note: '' });
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
    note(text: string) {
      bar.update({ note: text });
    },
  };
}
