/**
 * One progress display for a whole pipeline: a single bar on stderr whose label names the current
 * stage ("[3/7] answer"), and one line per finished stage. The bar shows only on a terminal (or with
 * GSR_PROGRESS=1); the stage lines always go to stderr.
 */
import { createProgress, type Progress } from '../util/progress.js';

export interface StageProgress {
  /** Declares the work of the current stage (or a new phase of it). */
  start(total: number, unit?: string): void;
  tick(n?: number, failed?: boolean): void;
}

export class PipelineProgress {
  private bar: Progress | null = null;
  private label = '';

  constructor(
    private readonly stageCount: number,
    private readonly write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
  ) {}

  /** A progress handle for stage `index` (0-based). */
  stage(index: number, name: string): StageProgress {
    this.label = `[${index + 1}/${this.stageCount}] ${name}`;
    return {
      start: (total, unit = 'items') => this.startBar(total, unit),
      tick: (n = 1, failed = false) => this.bar?.tick(n, failed),
    };
  }

  private startBar(total: number, unit: string): void {
    this.stopBar();
    this.bar = createProgress(this.label, total, unit, { clearOnComplete: true });
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
