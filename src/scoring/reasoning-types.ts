/** Result shapes of reasoning scoring (reasoning.json and reasoning-items.jsonl lines). */
import type { WhatsupSplitMetrics } from './whatsup-metrics.js';

export type ReasoningMode = 'circular' | 'vanilla' | 'both';

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
  /** What'sUp's own metrics per controlled split (whatsup-a, whatsup-b), when the prompts hold one. */
  whatsup?: Record<string, WhatsupSplitMetrics>;
}
