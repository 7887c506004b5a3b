/**
 * The benchmark plug-in interface. A benchmark brings its items (imported or generated), builds
 * chat prompts from them (ordered text and image parts), extracts and judges answers in one or more
 * named scoring modes, answers with its own baselines, and describes its report tables. The shared
 * machinery (src/benchmarks/prompts-file.ts, score.ts) does the files, keys and aggregation around it.
 */
import type { z } from 'zod';
import type { CellLike } from '../analysis/vsp.js';
import type { BenchItem } from '../formats/bench-item.js';
import type { BenchPrompt } from '../formats/chat-prompt.js';
import type { EpisodeRecord, EpisodeStep } from '../formats/episodes.js';
import type { Answerer } from '../mllm/types.js';
import type { ReportSection, ReportTable } from '../report/bench-page.js';

/**
 * Items and what they share (prompt templates, in-context example pools), kept once in
 * context.json beside items.jsonl rather than copied into every item.
 */
export interface ItemSet<I extends BenchItem = BenchItem> {
  items: I[];
  context?: unknown;
}

/** A prompt as a plug-in builds it: the shared code adds `key` and the images' sha256. */
export type DraftPrompt = Omit<BenchPrompt, 'key' | 'benchmark'>;

/** Prompt settings from the CLI or the pipeline file; each plug-in documents and checks its own. */
export type PromptSettings = Record<string, unknown>;

/** One answer judged in one mode. */
export interface Judgement {
  /** The answer was in the expected form (a missing marker or unreadable value is invalid). */
  valid: boolean;
  correct: boolean;
  /** Partial credit in [0, 1] where a scorer gives points (default: 1 when correct, else 0). */
  credit?: number;
  /** What was read from the output (for the gallery and debugging). */
  extracted?: unknown;
  /** Why it is wrong or invalid, in a few words. */
  reason?: string;
  /**
   * Invalid by the benchmark's official scorer's own count, where that differs from `valid` (VSP's
   * scripts, official mode; docs/vsp.md). Absent where the scorer keeps no such count.
   */
  scriptInvalid?: boolean;
}

/** A scored response, one per prompt, model and mode (scores.jsonl). */
export interface ScoredResponse {
  key: string;
  item: string;
  task: string;
  level: string;
  variant: string;
  model: string;
  mode: string;
  status: 'ok' | 'failed' | 'missing';
  valid: boolean;
  correct: boolean;
  credit: number;
  extracted?: unknown;
  reason?: string;
  /** The judgement's scriptInvalid, where the judge gives one. */
  scriptInvalid?: boolean;
}

/** Aggregate of one (model, mode, task, level, variant) cell. */
export interface ScoreCell extends CellLike {
  correct: number;
  invalid: number;
  /** Failed requests or prompts without a response (scored wrong). */
  failed: number;
  /** credit / n. */
  accuracy: number;
  /** Answers (status ok) that the official scorer counts invalid; present only where the judge gives scriptInvalid. */
  scriptInvalid?: number;
}

export type { ReportTable, ReportSection } from '../report/bench-page.js';

/** What a plug-in's report hook receives. */
export interface ReportInput<I extends BenchItem = BenchItem> {
  items: ReadonlyMap<string, I>;
  prompts: ReadonlyMap<string, BenchPrompt>;
  cells: ScoreCell[];
  scored: ScoredResponse[];
  /** Raw outputs by `${model}\0${key}`. */
  outputs: ReadonlyMap<string, string>;
  /** The analysis the plug-in computed (its `analyze` result), if any. */
  analysis?: unknown;
  /** Episodic plug-ins: every model's episodes, by model name. */
  episodes?: ReadonlyMap<string, readonly EpisodeRecord[]>;
  /** Episodic plug-ins: the episode settings the episodes ran under (as the pipeline gave them). */
  episodeSettings?: Record<string, unknown>;
  /** Episodic plug-ins: the item whose episodes the report replays step by step (default: the plug-in's choice). */
  replayItem?: string;
}

/** Options a baseline answerer factory gets. */
export interface BaselineOptions {
  /** Name of the model in results. */
  name: string;
  seed: number;
}

/**
 * One running episode of an episodic benchmark. The loop (src/benchmarks/episodes.ts) asks for the next
 * step's prompt, gets a reply (a model's, through the run store, or a baseline policy's action) and hands
 * it back, until `done`.
 */
export interface Episode {
  /** The task is done, the step cap reached, or nothing is left to try. */
  readonly done: boolean;
  /** The next step's single-turn prompt (text parts only). */
  prompt(): DraftPrompt;
  /** Applies one reply: reads the action, executes it and records the step. Never throws on model text. */
  reply(text: string, key: string | null): EpisodeStep;
  /** The episode's record; `failed` ends it early with a failed request's reason. */
  record(model: string, failed?: string): EpisodeRecord;
}

/** A factory of fresh episodes; a policy actor is passed along, so a plug-in can give it the protocol it plays. */
export type EpisodeFactory<I extends BenchItem = BenchItem> = (item: I, actor: 'model' | 'policy', policy?: EpisodePolicy) => Episode;

/** A baseline that acts without a model: it reads the plug-in's own episode object (not a prompt). */
export interface EpisodePolicy {
  readonly name: string;
  /** The protocol it plays, where the plug-in has several (default: the plug-in's choice for baselines). */
  readonly protocol?: string;
  /** The reply for the episode's next step (an action in the benchmark's syntax). */
  act(episode: Episode): string;
}

/** What an episodic plug-in adds (ET-Plan-Bench, docs/et-plan.md "The episode loop"). */
export interface EpisodeHooks<I extends BenchItem = BenchItem> {
  /** Checks the pipeline's `episodes` settings (a GsrError naming the key when bad); returns them with defaults. */
  parseSettings(raw: Record<string, unknown>): unknown;
  /**
   * Loads what the episodes need (apartments, ...) and returns a factory of fresh episodes, one per
   * item and actor (a plug-in may give baseline policies another protocol than models); `settings`
   * is what parseSettings returned. The factory throws a GsrError for an item that cannot run.
   */
  prepare(items: ReadonlyMap<string, I>, settings: unknown, context: unknown): Promise<EpisodeFactory<I>>;
  /** Baseline policies by kind. */
  readonly policies: Readonly<Record<string, (items: ReadonlyMap<string, I>, options: BaselineOptions) => EpisodePolicy>>;
  /** Checks the pipeline's `metrics` settings; returns them with defaults. */
  parseMetrics(raw: Record<string, unknown>): unknown;
  /**
   * Metrics over every model's episodes: score cells (success per model, task, level, subset) for the
   * shared code, and the plug-in's analysis (JSON) that its `tables` and `sections` read.
   */
  score(items: ReadonlyMap<string, I>, episodes: ReadonlyMap<string, readonly EpisodeRecord[]>, metrics: unknown): { cells: ScoreCell[]; analysis: unknown };
}

/** One answer of the refine stage, by item id: the stored response (a failed one after the runner's retries). */
export interface RefineAnswer {
  status: 'ok' | 'failed';
  output: string;
  error: string | null;
}

/**
 * An optional pass of a model over generated items (ET-Plan-Bench: common-sense filtering and
 * rephrasing, docs/et-plan.md "Filtering and rephrasing by an LLM"). The pipeline's refine stage asks
 * `prompts` through the cached runner and gives the answers to `apply`, which returns the new item
 * set. An answer that cannot be read is counted, never an error.
 */
export interface RefineHooks<I extends BenchItem = BenchItem> {
  /** Checks the pipeline's `refine` settings (all but `model`); returns them with defaults. */
  parseSettings(raw: Record<string, unknown>): unknown;
  /** One keyed prompt per item (pure). */
  prompts(items: Iterable<I>, settings: unknown): BenchPrompt[];
  /** The items kept (changed as the answers say), the new context and counts; `model` names who answered. */
  apply(set: ItemSet<I>, answers: ReadonlyMap<string, RefineAnswer>, settings: unknown, model: string): { set: ItemSet<I>; summary: Record<string, number>; problems: string[] };
}

export interface Benchmark<I extends BenchItem = BenchItem> {
  /** Registry name (`gsr dataset import <name>`, `benchmark: <name>` in a pipeline). */
  readonly name: string;
  readonly title: string;
  /** Checks one items.jsonl line; throws a GsrError saying what is wrong. */
  parseItem(raw: unknown): I;
  /** Reads a published copy from `root` (all or nothing: throws GsrError naming the bad file). */
  importItems?(root: string, onProgress?: (done: number, total: number) => void): Promise<ItemSet<I>>;
  /**
   * Generates items from settings such as count and seed (same seed, same items). `settings.out`
   * is the item set's folder: the plug-in writes its images there and may leave the items' `root`
   * out (loadItemSet gives them the folder they are loaded from, so the set can move).
   */
  generateItems?(settings: Record<string, unknown>, onProgress?: (done: number, total: number) => void): Promise<ItemSet<I>>;
  /**
   * Prompts for one item (pure: no I/O; image parts name absolute paths). `context` is the item
   * set's shared context (templates, in-context examples), as imported or generated.
   */
  buildPrompts(item: I, settings: PromptSettings, context: unknown): DraftPrompt[];
  /**
   * The schemas of its `generate` and prompt settings, where it has them. A pipeline file's
   * `${VAR}` fills arrive as text; its loader reads text that spells a number or a flag as one
   * where these want one (src/pipeline/bench.ts), so `count: ${N:-330}` and `count: 330` agree.
   */
  readonly settingsSchemas?: { readonly generate?: z.ZodType; readonly prompts?: z.ZodType };
  /** Scoring modes; the first is the default. */
  readonly modes: readonly string[];
  /** Extracts and judges one output. Never throws on model text: bad text is invalid or wrong. */
  judge(item: I, prompt: BenchPrompt, output: string, mode: string): Judgement;
  /**
   * Default answer attempts per item: the runner asks again, up to this many times in all, while the
   * output is invalid in the first mode (1, or absent: ask once). A pipeline model may override it.
   */
  readonly answerAttempts?: number;
  /**
   * The most answers per prompt the benchmark's own protocol allows (VSP: 1, its official runners
   * never ask again). Answers are shared by every mode, so a model asking for more is an error.
   */
  readonly maxAnswerAttempts?: number;
  /**
   * Request settings the benchmark's protocol fixes (SVAT: a Yes/No completion of at most 5 new
   * tokens, greedy). A pipeline model entry that sets its own overrides them; the settings in force
   * are recorded with the run.
   */
  readonly requestDefaults?: { readonly max_tokens?: number; readonly temperature?: number };
  /** Baseline answerers by kind (answer from the items, not from a model). */
  readonly baselines: Readonly<Record<string, (items: ReadonlyMap<string, I>, options: BaselineOptions) => Answerer>>;
  /**
   * Sums scored responses into cells when a plug-in groups prompts (What'sUp's CircularEval: an item
   * counts once, correct when all its rotations are); default `scoreCells`.
   */
  aggregate?(scored: ScoredResponse[]): ScoreCell[];
  /**
   * Statistics over the score cells (per model and across models); JSON-serialisable. `settings` are
   * the report's analysis settings (a pipeline's `report.analysis`), as the plug-in documents them.
   */
  analyze?(cells: ScoreCell[], settings?: Record<string, unknown>): unknown;
  /** Tables for the report and the CLI. */
  tables(cells: ScoreCell[], analysis?: unknown): ReportTable[];
  /**
   * Caveats that every result on this item set carries (SVAT: I5 items without photographs); the
   * report opens with them and a pipeline run warns with each.
   */
  notes?(items: ReadonlyMap<string, I>): string[];
  /** Extra report sections (plots, galleries); optional. */
  sections?(input: ReportInput<I>): Promise<ReportSection[]>;
  /**
   * Multi-step episodes (an episodic plug-in): its pipelines run dataset -> episodes -> score -> report
   * instead of prompts -> answer -> score, and `buildPrompts`/`judge` refuse with a GsrError.
   */
  readonly episodes?: EpisodeHooks<I>;
  /** An optional model pass over generated items before they are used (a pipeline's `benchmark.refine`). */
  readonly refine?: RefineHooks<I>;
}
