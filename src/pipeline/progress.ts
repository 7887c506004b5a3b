/**
 * One progress display for a whole pipeline: a single bar on stderr whose label names the current
 * stage ("[3/7] answer"), and one line per finished stage. The bar shows only on a terminal (or with
 * GSR_PROGRESS=1); the stage lines always go to stderr.
 */
import cliProgress from 'cli-progress';

export interface StageProgress {
  /** Declares the work of the current stage (or a new phase of it). */
  start(total: number, unit?: string): void;
  tick(n?: number, failed?: boolean): void;
}

export class PipelineProgress {
  private bar: cliProgress.SingleBar | null = null;
  private readonly enabled: boolean;
  private label = '';
  private failed = 0;

  constructor(
    private readonly stageCount: number,
    private readonly write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
  ) {
    this.enabled = process.env.GSR_PROGRESS === '1' || (process.stderr.isTTY === true && process.env.GSR_PROGRESS !== '0');
  }

  /** A progress handle for stage `index` (0-based). */
  stage(index: number, name: string): StageProgress {
    this.label = `[${index + 1}/${this.stageCount}] ${name}`;
    return {
      start: (total, unit = 'items') => this.startBar(total, unit),
      tick: (n = 1, failed = false) => {
        if (failed) this.failed += n;
        this.bar?.increment(n, { failed: this.failed });
      },
    };
  }

  private startBar(total: number, unit: string): void {
    if (!this.enabled) return;
    this.stopBar();
    this.failed = 0;
    this.bar = new cliProgress.SingleBar(
      { format: `${this.label} [{bar}] {value}/{total} ${unit} | failed {failed} | ETA {eta_formatted}`, stream: process.stderr, hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total, 0, { failed: 0 });
  }

  private stopBar(): void {
    this.bar?.stop();
    this.bar = null;
  }

  /** Ends the current stage's bar and prints its one-line outcome. */
  line(text: string): void {
    this.stopBar();
    this.write(`gsr: ${text}`);
  }

  stop(): void {
    this.stopBar();
  }
}
