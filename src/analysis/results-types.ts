/**
 * Shapes of the scoring stage's results files, as far as analysis and the report read them.
 * Fields the report does not need are passed through untouched.
 */

/** One split of reasoning.json: accuracies as fractions in [0, 1] (null when not computed). */
export interface ReasoningSplitSummary {
  /** Items. */
  n: number;
  circular: number | null;
  /** Single-pass accuracy over all prompts (every rotation counts). */
  vanilla: number | null;
  /** Rotation 0 only (MMBench style). */
  vanilla_first?: number | null;
  /** Prompts whose answer was missing, failed or unreadable. */
  unparsed?: number;
}

/** reasoning.json */
export interface ReasoningSummary {
  model: string;
  task?: string;
  splits: Record<string, ReasoningSplitSummary>;
  total_average?: { circular?: number | null; vanilla?: number | null; [k: string]: unknown };
  position_bias?: unknown;
  relations?: unknown;
}

/** One column of grounding.json, keyed "<split>/<role>". */
export interface GroundingColumnSummary {
  n: number;
  hits?: number;
  accuracy: number | null;
  mean_iou?: number;
  unparsed?: number;
  missing?: number;
}

/** grounding.json */
export interface GroundingSummary {
  model: string;
  columns: Record<string, GroundingColumnSummary>;
  avg_g_score?: number | null;
  detector?: unknown;
}

/** One line of reasoning-items.jsonl: one prompt (item x rotation) scored. */
export interface ReasoningItemRecord {
  key?: string;
  item: string;
  split: string;
  relation?: string;
  task?: string;
  rotation?: number;
  permutation?: number[];
  output?: string | null;
  extracted?: unknown;
  correct: boolean;
  status?: string;
}

/** One line of grounding-items.jsonl: one object asked for and scored. */
export interface GroundingItemRecord {
  key?: string;
  item: string;
  split: string;
  role: string;
  phrase?: string;
  output?: string | null;
  /** The model's box, xyxy original-image pixels (also read from `parsed`, `parsed_box`, `pred_box`). */
  box?: number[] | null;
  /** The annotation box, xyxy pixels (also read from `gt_box`). */
  gt?: number[] | null;
  iou?: number | null;
  hit: boolean;
  status?: string;
  image?: string;
}

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
