/**
 * What analysis makes of results folders: per model, its result sets with per-item outcomes. The
 * file records themselves are formats/results.ts.
 */
import type { GroundingItemRecord, GroundingSummary, ReasoningItemRecord, ReasoningSummary } from '../formats/results.js';

export type { GroundingItemRecord, GroundingSummary, ReasoningItemRecord, ReasoningSummary };

/** A reasoning result set of one model: the root folder, or a subfolder such as `dap` / `nodap`. */
export interface ReasoningVariant {
  /** Subfolder name, `""` for the model folder itself. */
  variant: string;
  summary: ReasoningSummary | null;
  /** Per-item circular / vanilla outcomes, when the items file exists. */
  items: ItemOutcome[] | null;
}

/** What is known about one model's results folder. */
export interface ModelResults {
  model: string;
  dir: string;
  reasoning: ReasoningVariant[];
  grounding: GroundingSummary | null;
  /** Per-object hits, when grounding-items.jsonl exists. */
  groundingOutcomes: GroundingOutcome[] | null;
  /** Problems met while reading (bad files or records), each naming the file; the rest still loads. */
  warnings: string[];
}

/** One item's outcomes, all its rotations folded together. */
export interface ItemOutcome {
  item: string;
  split: string;
  relation: string;
  rotations: number;
  /** Rotations answered right. */
  right: number;
  /** Options shown (the length of a rotation's permutation; the rotation count when the records have none). */
  options: number;
  /** CircularEval: every rotation right. */
  circular: boolean;
  /** VanillaEval share: rotations answered right / rotations (its mean over items is the prompt accuracy). */
  vanilla: number;
  /** The first pass (rotation 0, else the original option order, else the first record) right. */
  first: boolean;
  /** Some rotation's answer was missing, failed or unreadable. */
  unparsed: boolean;
}

/** One grounding hit or miss. */
export interface GroundingOutcome {
  item: string;
  split: string;
  role: string;
  hit: boolean;
}
