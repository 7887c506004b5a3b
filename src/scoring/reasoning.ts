/**
 * CircularEval and VanillaEval over scored prompts (DESIGN.md §5). Pure: records in, result out.
 *
 * - A prompt is one item shown with one rotation of its options. Its answer is extracted (answer.ts)
 *   and is correct when it picks the shown position of the correct option.
 * - CircularEval: an item is correct only if every rotation in the prompts is answered correctly.
 * - VanillaEval: single-pass accuracy, averaged over all prompts (every rotation counts as one pass),
 *   so it does not depend on where the dataset put the correct option. `vanilla_first` is the
 *   MMBench-style figure: rotation 0 only.
 * - A prompt with no response, a failed response, or an answer that cannot be read is wrong and is
 *   counted in `unparsed` (prompts); `missing` counts the first two kinds alone.
 * - Total Average = the mean of the split accuracies (Table 1).
 */
import type { PromptRecord } from '../prompts/types.js';
import type { ResponseRecord } from '../mllm/types.js';
import { extractChoiceAnswer, extractTemplateAnswer, type Extraction } from './answer.js';
import { mean, orderSplits } from './splits.js';
import { GsrError } from '../util/errors.js';

export type ReasoningMode = 'circular' | 'vanilla' | 'both';

export interface ScoreReasoningOptions {
  mode?: ReasoningMode;
  /** Score only this model's responses (needed when the file holds several). */
  model?: string;
}

/** One scored prompt (a line of reasoning-items.jsonl). */
export interface ReasoningItemResult {
  key: string;
  item: string;
  split: string;
  relation: string;
  task: string;
  rotation: number;
  permutation: number[];
  output: string | null;
  /** The chosen option as shown: a letter for MC, the caption for TG; null when unparsed. */
  extracted: string | null;
  /** Shown position chosen, or null. */
  chosen: number | null;
  /** Shown position of the correct option. */
  answer_index: number;
  correct: boolean;
  status: 'ok' | 'unparsed' | 'missing' | 'failed';
  /** Extraction rule that decided, or why nothing was read. */
  rule: string | null;
  reason: string | null;
}

export interface ReasoningCell {
  /** Items (not prompts). */
  n: number;
  prompts: number;
  circular: number | null;
  vanilla: number | null;
  vanilla_first: number | null;
  /** Prompts whose answer was missing, failed or unreadable. */
  unparsed: number;
  missing: number;
}

export interface PositionBias {
  /** Parsed answers. */
  n: number;
  /** Share of parsed answers choosing each shown position (A, B, ...). */
  chosen: Record<string, number>;
  /** Share of prompts whose correct option sits at each position. */
  correct: Record<string, number>;
}

export interface ReasoningResult {
  model: string;
  task: string;
  mode: ReasoningMode;
  splits: Record<string, ReasoningCell>;
  total_average: { circular: number | null; vanilla: number | null; vanilla_first: number | null };
  position_bias: PositionBias & { splits: Record<string, PositionBias> };
  relations: Record<string, ReasoningCell>;
  /** "<split>/<relation>" cells, e.g. for DAP's front/behind items of Subset B. */
  split_relations: Record<string, ReasoningCell>;
  /** Responses whose key is in no prompt (ignored). */
  unmatched_responses: number;
  unparsed_reasons: Record<string, number>;
}

function letter(i: number): string {
  return String.fromCharCode(65 + i);
}

/** Reads which option one prompt's answer picks. */
export function extractForPrompt(prompt: PromptRecord, output: string): Extraction {
  const style = prompt.task === 'dap' ? (prompt.base_task ?? 'tg') : prompt.task;
  return style === 'mc' ? extractChoiceAnswer(output, prompt.options) : extractTemplateAnswer(output, prompt.options);
}

function answerIndexOf(p: PromptRecord): number {
  if (Number.isInteger(p.answer_index)) return p.answer_index as number;
  if (p.expected === undefined) return -1;
  const byText = p.options.indexOf(p.expected);
  if (byText >= 0) return byText;
  return /^[A-Z]$/.test(p.expected) ? p.expected.charCodeAt(0) - 65 : -1;
}

/** Picks the response per key: the last `ok` one, else the last one. */
function responsesByKey(responses: Iterable<ResponseRecord>, model: string | undefined): Map<string, ResponseRecord> {
  const out = new Map<string, ResponseRecord>();
  for (const r of responses) {
    if (model !== undefined && r.model !== model) continue;
    const prev = out.get(r.key);
    if (prev === undefined || r.status === 'ok' || prev.status !== 'ok') out.set(r.key, r);
  }
  return out;
}

/** Scores one prompt against its response (or its absence). */
export function scorePrompt(prompt: PromptRecord, response: ResponseRecord | undefined): ReasoningItemResult {
  const answerIndex = answerIndexOf(prompt);
  const base = {
    key: prompt.key,
    item: prompt.item,
    split: prompt.split,
    relation: prompt.relation,
    task: prompt.task,
    rotation: prompt.rotation,
    permutation: prompt.permutation,
    answer_index: answerIndex,
  };
  if (response === undefined || response.status !== 'ok') {
    const status = response === undefined ? 'missing' : 'failed';
    return { ...base, output: response?.output ?? null, extracted: null, chosen: null, correct: false, status, rule: null, reason: response?.error ?? status };
  }
  const ex = extractForPrompt(prompt, response.output);
  if (ex.status === 'unparsed') {
    return { ...base, output: response.output, extracted: null, chosen: null, correct: false, status: 'unparsed', rule: ex.rule ?? null, reason: ex.reason };
  }
  const style = prompt.task === 'dap' ? (prompt.base_task ?? 'tg') : prompt.task;
  return {
    ...base,
    output: response.output,
    extracted: style === 'mc' ? letter(ex.index) : prompt.options[ex.index],
    chosen: ex.index,
    correct: ex.index === answerIndex,
    status: 'ok',
    rule: ex.rule,
    reason: null,
  };
}

/** Accumulates prompts of one cell (split, relation, ...). */
class CellTally {
  private readonly items = new Map<string, { all: boolean; first: boolean | null }>();
  prompts = 0;
  correct = 0;
  unparsed = 0;
  missing = 0;

  add(r: ReasoningItemResult): void {
    this.prompts++;
    if (r.correct) this.correct++;
    if (r.status !== 'ok') this.unparsed++;
    if (r.status === 'missing' || r.status === 'failed') this.missing++;
    const id = `${r.split}\u0000${r.item}`;
    const it = this.items.get(id) ?? { all: true, first: null };
    it.all &&= r.correct;
    if (r.rotation === 0) it.first = r.correct;
    this.items.set(id, it);
  }

  cell(mode: ReasoningMode): ReasoningCell {
    const items = [...this.items.values()];
    const n = items.length;
    const firsts = items.filter((i) => i.first !== null);
    const frac = (k: number, d: number) => (d > 0 ? k / d : null);
    return {
      n,
      prompts: this.prompts,
      circular: mode === 'vanilla' ? null : frac(items.filter((i) => i.all).length, n),
      vanilla: mode === 'circular' ? null : frac(this.correct, this.prompts),
      vanilla_first: mode === 'circular' ? null : frac(firsts.filter((i) => i.first).length, firsts.length),
      unparsed: this.unparsed,
      missing: this.missing,
    };
  }
}

class BiasTally {
  n = 0;
  prompts = 0;
  private readonly chosen = new Map<number, number>();
  private readonly correct = new Map<number, number>();
  add(r: ReasoningItemResult): void {
    this.prompts++;
    if (r.answer_index >= 0) this.correct.set(r.answer_index, (this.correct.get(r.answer_index) ?? 0) + 1);
    if (r.chosen === null) return;
    this.n++;
    this.chosen.set(r.chosen, (this.chosen.get(r.chosen) ?? 0) + 1);
  }
  result(): PositionBias {
    const positions = [...new Set([...this.chosen.keys(), ...this.correct.keys()])].sort((a, b) => a - b);
    const share = (m: Map<number, number>, d: number) => Object.fromEntries(positions.map((p) => [letter(p), d > 0 ? (m.get(p) ?? 0) / d : 0]));
    return { n: this.n, chosen: share(this.chosen, this.n), correct: share(this.correct, this.prompts) };
  }
}

function tallyInto(map: Map<string, CellTally>, key: string, r: ReasoningItemResult): void {
  let t = map.get(key);
  if (!t) map.set(key, (t = new CellTally()));
  t.add(r);
}

/** Scores every prompt and aggregates per split, relation and answer position. */
export function scoreReasoning(
  prompts: Iterable<PromptRecord>,
  responses: Iterable<ResponseRecord>,
  options: ScoreReasoningOptions = {},
): { result: ReasoningResult; items: ReasoningItemResult[] } {
  const mode = options.mode ?? 'both';
  const all = [...responses];
  const models = new Set(all.filter((r) => options.model === undefined || r.model === options.model).map((r) => r.model));
  if (models.size > 1) throw new GsrError(`responses hold several models (${[...models].sort().join(', ')}); choose one with the model option`);
  const byKey = responsesByKey(all, options.model);
  const items: ReasoningItemResult[] = [];
  const splits = new Map<string, CellTally>();
  const relations = new Map<string, CellTally>();
  const splitRelations = new Map<string, CellTally>();
  const bias = new BiasTally();
  const splitBias = new Map<string, BiasTally>();
  const reasons: Record<string, number> = {};
  const tasks = new Set<string>();
  const used = new Set<string>();
  for (const p of prompts) {
    if (p.task === 'grounding') continue;
    tasks.add(p.task);
    const r = scorePrompt(p, byKey.get(p.key));
    if (byKey.has(p.key)) used.add(p.key);
    items.push(r);
    tallyInto(splits, r.split, r);
    tallyInto(relations, r.relation, r);
    tallyInto(splitRelations, `${r.split}/${r.relation}`, r);
    bias.add(r);
    let sb = splitBias.get(r.split);
    if (!sb) splitBias.set(r.split, (sb = new BiasTally()));
    sb.add(r);
    if (r.status !== 'ok') reasons[r.reason ?? r.status] = (reasons[r.reason ?? r.status] ?? 0) + 1;
  }
  const splitNames = orderSplits(splits.keys());
  const splitCells = Object.fromEntries(splitNames.map((s) => [s, splits.get(s)!.cell(mode)]));
  const avg = (f: 'circular' | 'vanilla' | 'vanilla_first') => {
    const vs = splitNames.map((s) => splitCells[s][f]).filter((v): v is number => v !== null);
    return vs.length === splitNames.length ? mean(vs) : null;
  };
  const cells = (m: Map<string, CellTally>) => Object.fromEntries([...m.keys()].sort().map((k) => [k, m.get(k)!.cell(mode)]));
  const result: ReasoningResult = {
    model: options.model ?? [...models][0] ?? 'unknown',
    task: tasks.size === 1 ? [...tasks][0] : [...tasks].sort().join('+') || 'none',
    mode,
    splits: splitCells,
    total_average: { circular: avg('circular'), vanilla: avg('vanilla'), vanilla_first: avg('vanilla_first') },
    position_bias: { ...bias.result(), splits: Object.fromEntries(splitNames.map((s) => [s, splitBias.get(s)!.result()])) },
    relations: cells(relations),
    split_relations: cells(splitRelations),
    unmatched_responses: [...byKey.keys()].filter((k) => !used.has(k)).length,
    unparsed_reasons: reasons,
  };
  return { result, items };
}
