/**
 * Stage `score`: one results folder per model, in the layout the analysis and report read:
 * `<model>/reasoning.*` (TG, or MC when TG is not asked), `<model>/{tg,mc}/`, `<model>/dap/` and
 * `<model>/nodap/` (the base task on the same items, for the paired DAP comparison), and
 * `<model>/grounding.*` (G-Score against the annotations).
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GRID_BOX_FORMAT } from '../../mllm/baselines/index.js';
import { readPromptFile, type PromptRecord } from '../../formats/prompts.js';
import { readResponseFile, type ResponseRecord } from '../../formats/responses.js';
import type { SkippedRecord } from '../../util/jsonl.js';
import {
  countNoBox,
  describeBoxFormat,
  groundingUnparsed,
  indexGroundTruth,
  indexPrompts,
  noLabelNote,
  scoreGrounding,
  reasoningUnparsed,
  resolveBoxFormat,
  scoreReasoning,
  unparsedWarning,
  writeGroundingResults,
  writeReasoningResults,
  type BoxFormatOption,
  type BoxFormatSource,
  type GroundTruthIndex,
  type PromptIndex,
  type ReasoningMode,
} from '../../scoring/index.js';
import { modelFolder, type ModelConfig, type PipelineConfig, type PipelineTask } from '../../formats/pipeline.js';
import type { Stage } from '../engine.js';
import { RESPONSES_FILE, modelTasks } from './answer.js';
import { promptFileFor } from './prompts.js';
import { SETTINGS_FILE } from '../ask.js';
import { ANNOTATIONS_FILE, readCocoFile } from '../../formats/coco.js';

export interface ModelScoreSummary {
  name: string;
  /** Total Average CircularEval / VanillaEval per reasoning variant ('' = the primary task). */
  reasoning: Record<string, { circular: number | null; vanilla: number | null; task: string }>;
  /** Avg G-Score, or null without grounding prompts. */
  g_score: number | null;
  box_format: string | null;
  /** Where the box format came from: declared, the model id's family, or `auto` guessing. */
  box_format_source?: BoxFormatSource;
  /**
   * Labelled grounding objects, the answers that gave no box (unparsed) or never came (missing), the
   * objects without a label (not scored) and, when there are some, what that does to the G-Score in words.
   */
  grounding?: { objects: number; unparsed: number; missing: number; no_label?: number; note?: string | null } | null;
  /** More than 10% of a task's answers unparsed, one line each. */
  warnings?: string[];
  skipped_records: number;
}

export interface ScoreStageSummary {
  models: ModelScoreSummary[];
  /** Results folders relative to the stage folder, in model order. */
  dirs: string[];
}

/**
 * The box format a model's grounding answers are read in: declared, else its family's from the model
 * id, else `auto` (resolveBoxFormat: a declared `auto` never overrides a known family). The baselines
 * write the grid format unless told otherwise.
 */
export function boxFormatOf(model: ModelConfig): { format: BoxFormatOption; source: BoxFormatSource } {
  if (BASELINE_KINDS.includes(model.kind) && (!model.box_format || model.box_format === 'auto')) return { format: GRID_BOX_FORMAT, source: 'declared' };
  return resolveBoxFormat(model.box_format, model.model ?? model.name);
}

/** What scoring one model needs: its prompts by task, its responses, and the labels its boxes are scored against. */
export interface ModelScoringInput {
  prompts: (task: PipelineTask) => Promise<PromptRecord[]>;
  responses: ResponseRecord[];
  /** The annotation index (read once, shared by every model). */
  labels: () => Promise<GroundTruthIndex>;
  notice: (message: string) => void;
}

/**
 * Scores one model into `dir` in the layout the analysis reads: `reasoning.*` (TG, else MC),
 * `tg/`, `mc/`, `dap/` and `nodap/` (the base task on the DAP items), and `grounding.*`.
 */
export async function scoreModelInto(config: PipelineConfig, model: ModelConfig, dir: string, input: ModelScoringInput): Promise<ModelScoreSummary> {
  const mode = reasoningMode(config);
  const tasks = modelTasks(model, config);
  const { prompts, responses } = input;
  const warnings: string[] = [];
  const m: ModelScoreSummary = { name: model.name, reasoning: {}, g_score: null, box_format: null, grounding: null, warnings, skipped_records: 0 };
  const warn = (w: string | null) => {
    if (w === null) return;
    warnings.push(w);
    input.notice(`warning: ${w}`);
  };
  const write = async (variant: string, task: string, index: PromptIndex) => {
    const { result, items } = scoreReasoning(index, responses, { mode, model: model.name });
    await writeReasoningResults(variant ? join(dir, variant) : dir, result, items);
    m.reasoning[variant] = { circular: result.total_average.circular, vanilla: result.total_average.vanilla, task };
    // '' repeats the primary task and 'nodap' a part of the base task: warn once per task.
    if (variant !== '' && variant !== 'nodap') warn(unparsedWarning(model.name, task, reasoningUnparsed(result, items)));
  };
  const primary = tasks.includes('tg') ? 'tg' : tasks.includes('mc') ? 'mc' : null;
  for (const task of ['tg', 'mc'] as const) {
    if (!tasks.includes(task)) continue;
    const index = indexPrompts(await prompts(task));
    if (task === primary) await write('', task, index);
    await write(task, task, index);
  }
  if (tasks.includes('dap')) {
    const dap = await prompts('dap');
    await write('dap', 'dap', indexPrompts(dap));
    const base = config.prompts.dap.base_task;
    // The same items without the hint: the base task's prompts for the DAP items.
    const items = new Set(dap.map((p) => p.item));
    const baseList = tasks.includes(base) ? (await prompts(base)).filter((p) => items.has(p.item)) : [];
    if (baseList.length > 0) await write('nodap', base, indexPrompts(baseList));
    else input.notice(`${model.name}: no ${base} prompts asked, so DAP has no without-hint comparison`);
  }
  if (tasks.includes('grounding')) {
    const format = boxFormatOf(model);
    if (!BASELINE_KINDS.includes(model.kind)) input.notice(`${model.name}: ${describeBoxFormat(model.model ?? model.name, format)}`);
    const { result, items } = scoreGrounding(responses.filter((r) => r.role !== undefined), await input.labels(), { boxFormat: format.format, iou: config.metrics.iou, model: model.name });
    await writeGroundingResults(dir, result, items);
    m.g_score = result.avg_g_score ?? null;
    m.box_format = format.format;
    m.box_format_source = format.source;
    const count = groundingUnparsed(result);
    m.grounding = { objects: count.total, unparsed: count.unparsed, missing: count.missing, no_label: countNoBox(Object.values(result.columns)).no_label, note: noLabelNote(result) };
    warn(unparsedWarning(model.name, 'grounding', count));
  }
  return m;
}

const BASELINE_KINDS = ['random', 'always-first', 'geometric', 'simulated'];

/**
 * Reads prompt files once for all the models of a stage (most read the same files; the records are
 * not changed by scoring); each read still adds the file's unreadable records to the caller's list.
 */
export function sharedPromptFiles(): (file: string, skipped: SkippedRecord[]) => Promise<PromptRecord[]> {
  const files = new Map<string, Promise<{ records: PromptRecord[]; skipped: SkippedRecord[] }>>();
  return async (file, skipped) => {
    let read = files.get(file);
    if (!read) {
      const own: SkippedRecord[] = [];
      files.set(file, (read = readPromptFile(file, own).then((records) => ({ records, skipped: own }))));
    }
    const r = await read;
    skipped.push(...r.skipped);
    return r.records;
  };
}

const reasoningMode = (config: PipelineConfig): ReasoningMode => (config.metrics.reasoning.length === 2 ? 'both' : config.metrics.reasoning[0]);

export function scoreStage(config: PipelineConfig): Stage {
  const mode = reasoningMode(config);
  return {
    name: 'score',
    code: [import.meta.url],
    after: ['prompts', 'annotate', 'answer'],
    settings: { mode, iou: config.metrics.iou, models: config.models.map((m) => ({ name: m.name, tasks: modelTasks(m, config), box: boxFormatOf(m).format, templates: !!m.templates })), dap: config.prompts.dap.base_task },
    async run(ctx): Promise<ScoreStageSummary> {
      const promptsDir = ctx.input('prompts');
      const answersDir = ctx.input('answer');
      const summary: ScoreStageSummary = { models: [], dirs: [] };
      ctx.progress.start(config.models.length, 'models');
      // The annotation file is read and indexed once, for every model's grounding.
      let truth: GroundTruthIndex | undefined;
      const labels = async () => (truth ??= indexGroundTruth(await readCocoFile(join(ctx.input('annotate'), ANNOTATIONS_FILE))));
      const readPrompts = sharedPromptFiles();
      for (const model of config.models) {
        const skipped: SkippedRecord[] = [];
        const folder = modelFolder(model.name);
        const responses: ResponseRecord[] = await readResponseFile(join(answersDir, folder, RESPONSES_FILE), skipped);
        const prompts = async (task: PipelineTask): Promise<PromptRecord[]> => readPrompts(join(promptsDir, promptFileFor(model, task)), skipped);
        const m = await scoreModelInto(config, model, join(ctx.dir, folder), { prompts, responses, labels, notice: (t) => ctx.notice(t) });
        // The request settings the scored answers were asked under, beside the scores.
        await copyFile(join(answersDir, folder, SETTINGS_FILE), join(ctx.dir, folder, SETTINGS_FILE));
        m.skipped_records = skipped.length;
        if (skipped.length > 0) ctx.notice(`${model.name}: ${skipped.length} unreadable records skipped (first: ${JSON.stringify(skipped[0])})`);
        summary.models.push(m);
        summary.dirs.push(folder);
        ctx.progress.tick();
      }
      return summary;
    },
  };
}
