import { createRequire } from 'node:module';
import { setNoticeWriter } from './log.js';

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

// Loaded only when a bar is drawn, so commands start without it (docs/cli.md, "Start-up").
const require = createRequire(import.meta.url);

/**
 * A progress bar on stderr with rate, failures and ETA. Silent unless {@link progressEnabled}, so
 * logs stay readable. While it shows, notices (util/log.ts) are printed above it rather than over it:
 * cli-progress's MultiBar redraws its bar below whatever it logs.
 */
export function createProgress(label: string, total: number, unit = 'items', options: ProgressOptions = {}): Progress {
  if (!progressEnabled()) return { tick() {}, stop() {} };
  const cliProgress = require('cli-progress') as typeof import('cli-progress');
  const bars = new cliProgress.MultiBar(
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
  const bar = bars.create(total, 0, { failed: 0, rate: '0.0', note: '' });
  const start = Date.now();
  let done = 0;
  let failed = 0;
  let stopped = false;
  const restore = setNoticeWriter((line) => {
    bars.log(line);
    bars.update(); // draws the line and the bar below it now, not at the next tick
  });
  return {
    tick(n = 1, isFailed = false) {
      done += n;
      if (isFailed) failed += n;
      const secs = (Date.now() - start) / 1000;
      bar.update(done, { failed, rate: secs > 0 ? (done / secs).toFixed(1) : '0.0' });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      restore();
      bars.stop();
    },
    note(text: string) {
      bar.update({ note: text });
    },
  };
}
