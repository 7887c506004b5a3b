/**
 * The pipeline file schema (pipelines/*.yaml). Strict: unknown keys are errors, so a typo never
 * silently falls back to a default. Paths are resolved against the pipeline file's folder.
 */
import { z } from 'zod';

const Name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-" (it names a folder)');

/** A model's name: its row in every table and its key in the run store. A model id (`Qwen/Qwen2.5-VL-7B-Instruct`, `llava:13b`) is fine. */
const ModelName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/, 'use letters, digits, ".", "_", "-", ":", "/", "@" and "+" (a model id is fine)');

/** The folder of a model's prompts, answers and results: its name with each character other than letters, digits, ".", "_" and "-" as "_". */
export function modelFolder(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

const SyntheticDataset = z.strictObject({
  /** Scenes to render. */
  count: z.number().int().positive().default(48),
  seed: z.number().int().nonnegative().default(1),
});

const WhatsupDataset = z.strictObject({
  /** The What'sUp data folder (holding controlled_images_dataset.json, ...). */
  root: z.string().min(1),
  splits: z.array(z.string().min(1)).optional(),
  /** Keep at most this many items per split (for quick runs). */
  limit: z.number().int().positive().optional(),
});

const Dataset = z
  .strictObject({
    synthetic: SyntheticDataset.optional(),
    whatsup: WhatsupDataset.optional(),
    /** An existing manifest.jsonl. */
    manifest: z.string().min(1).optional(),
  })
  .refine((d) => [d.synthetic, d.whatsup, d.manifest].filter((x) => x !== undefined).length === 1, {
    message: 'give exactly one of synthetic, whatsup, manifest',
  });

/** A segmenter or depth model id; `none` (as on `gsr annotate run`) is the same as leaving it out. */
const OptionalModelId = z
  .string()
  .min(1)
  .transform((id) => (id === 'none' ? undefined : id))
  .optional();

const AnnotatorModels = z.strictObject({
  detector: z.string().min(1).default('grounding-dino-tiny'),
  segmenter: OptionalModelId,
  depth: OptionalModelId,
  box_threshold: z.number().min(0).max(1).optional(),
  text_threshold: z.number().min(0).max(1).optional(),
  /** Closed-vocabulary detectors (fastestdet): score threshold. */
  score_threshold: z.number().min(0).max(1).optional(),
  device: z.enum(['auto', 'cpu', 'cuda']).default('auto'),
  /** Folder of downloaded models (default models/ in the working directory). */
  models_dir: z.string().min(1).optional(),
  /** Image decoding rules (docs/perception.md, "Decoding"; absent: the reference's, `drop`, `clip` and `ignore`). */
  decode_alpha: z.enum(['drop', 'white']).optional(),
  decode_grey16: z.enum(['clip', 'high-byte']).optional(),
  decode_icc: z.enum(['ignore', 'convert']).optional(),
});

const Annotations = z.strictObject({
  /**
   * `exact`: the synthetic renderer's ground truth; `models`: run the auto-annotator; `file`: bring
   * an existing COCO annotation file; `auto`: exact for synthetic data, else models.
   */
  source: z.enum(['auto', 'exact', 'models', 'file']).default('auto'),
  file: z.string().min(1).optional(),
  models: AnnotatorModels.optional(),
  /**
   * Synthetic data only: also run the auto-annotator when its models are installed and report its
   * quality against the exact truth (the exact truth stays the reference).
   */
  compare_models: z.boolean().default(true),
  /** Scenes the auto-annotator is compared on (the first N; keeps the demo quick on a CPU). */
  compare_limit: z.number().int().positive().default(20),
});

const TASKS = ['tg', 'mc', 'grounding', 'dap'] as const;

const Prompts = z.strictObject({
  tasks: z.array(z.enum(TASKS)).min(1).default(['tg', 'mc', 'grounding', 'dap']),
  /** Rotations per item (default: one per option, for CircularEval). */
  permutations: z.number().int().positive().optional(),
  /** Template override file (YAML/JSON). */
  templates: z.string().min(1).optional(),
  dap: z
    .strictObject({
      base_task: z.enum(['tg', 'mc']).default('mc'),
      depth_stat: z.enum(['median', 'mean']).default('median'),
      /** Keep only these relations for DAP (the paper: Subset B's front/behind items). */
      relations: z.array(z.string().min(1)).optional(),
    })
    .prefault({}),
});

/** An endpoint of a model: its root URL, or the URL with its own limits. */
const Endpoint = z.union([
  z.string().min(1),
  z.strictObject({
    url: z.string().min(1),
    /** Requests in flight to this endpoint at most. */
    concurrency: z.number().int().positive().optional(),
    /** Requests per second to this endpoint at most (evenly spaced; in this process). */
    rate_limit: z.number().positive().optional(),
  }),
]);

/** A model's `base_url`: one endpoint root, or a list of endpoints serving the same model (load-balanced). */
export const BaseUrl = z.union([z.string().min(1), z.array(Endpoint).min(1)]);
export type BaseUrlConfig = z.infer<typeof BaseUrl>;

/** The endpoints of a `base_url`, each with its limits (absent: none). */
export function endpointsOf(baseUrl: BaseUrlConfig | undefined): Array<{ url: string; concurrency?: number; rateLimit?: number }> {
  if (baseUrl === undefined) return [];
  if (typeof baseUrl === 'string') return [{ url: baseUrl }];
  return baseUrl.map((e) => (typeof e === 'string' ? { url: e } : { url: e.url, concurrency: e.concurrency, rateLimit: e.rate_limit }));
}

/** `base_url` without the limits (a string stays a string): what a run's settings and a stage's hash record. */
export function endpointUrls(baseUrl: BaseUrlConfig | undefined): string | string[] | undefined {
  return baseUrl === undefined || typeof baseUrl === 'string' ? baseUrl : endpointsOf(baseUrl).map((e) => e.url);
}

export const Model = z.strictObject({
  /** Name in results and the report (e.g. the model id: `name: ${GSR_MODEL}`); its folder is `modelFolder(name)`. */
  name: ModelName,
  /** Answerer kind: `openai` (Chat Completions over HTTP), a baseline (`geometric`, `random`, `always-first`) or `simulated`. */
  kind: z.string().min(1),
  /** Model id sent to the endpoint (default: name). */
  model: z.string().min(1).optional(),
  /** One endpoint root, or a list of endpoints (each a URL or {url, concurrency, rate_limit}). */
  base_url: BaseUrl.optional(),
  /** Environment variable holding the API key. */
  api_key_env: z.string().min(1).optional(),
  /** Box format its grounding answers are parsed in (docs/scoring.md, "Box formats"). */
  box_format: z.string().min(1).optional(),
  /** Template override file for this model. */
  templates: z.string().min(1).optional(),
  concurrency: z.number().int().positive().default(4),
  timeout_ms: z.number().int().positive().optional(),
  /** Request settings; what is left out takes the shared defaults (src/mllm/request.ts). */
  temperature: z.number().min(0).optional(),
  max_tokens: z.number().int().positive().optional(),
  /** Cap on one reply's bytes (default 1 MiB; docs/mllm.md, "Bounded answers"). */
  max_answer_bytes: z.number().int().positive().optional(),
  top_p: z.number().gt(0).max(1).optional(),
  seed: z.number().int().nonnegative().optional(),
  /** `simulated`: target G-Score (share of items whose boxes are hits), 0-1. */
  grounding: z.number().min(0).max(1).optional(),
  /** `simulated`: share of items answered wrong whatever its boxes say, 0-1. */
  reasoning_error: z.number().min(0).max(1).optional(),
  /** With `queue`: requests per second to this model across all workers. */
  rate_limit: z.number().positive().optional(),
  /** Tasks to ask this model (default: all the pipeline's tasks). */
  tasks: z.array(z.enum(TASKS)).optional(),
  /** Include this model only when all these environment variables are set (else skip it, with a notice). */
  if_env: z.array(z.string().min(1)).optional(),
});

const Metrics = z.strictObject({
  /** Reasoning evaluations to report. */
  reasoning: z.array(z.enum(['circular', 'vanilla'])).default(['circular', 'vanilla']),
  /** IoU threshold for a grounding hit. */
  iou: z.number().gt(0).max(1).default(0.5),
  /** Regression across models: reasoning metric on grounding metric (names as `gsr analyze` reads them). */
  regression: z
    .strictObject({
      y: z.string().min(1),
      x: z.string().min(1),
    })
    .optional(),
});

const Report = z.strictObject({
  title: z.string().min(1).optional(),
  /** File name of the HTML report inside the output folder. */
  file: z.string().min(1).default('report.html'),
});

/**
 * Real photos annotated beside the main data: a What'sUp-layout folder, a detector, and reference
 * boxes the detector's hit rate is measured against (the demo: the 16 What'sUp sample photos and
 * FastestDet, both from outside the repository).
 */
const Photos = z.strictObject({
  /** Environment variables that must be set for the stage to run; otherwise it is left out, with one line saying so. */
  if_env: z.array(z.string().min(1)).optional(),
  /** Data folder in What'sUp's layout. */
  root: z.string().min(1),
  /** Detector id (boxes only). */
  detector: z.string().min(1).default('fastestdet'),
  /** Reference annotations (COCO with item ids) to measure its hit rate against. */
  reference: z.string().min(1),
  models_dir: z.string().min(1).optional(),
  /** Shown in the report beside the hit rate (e.g. what the detector stands in for). */
  note: z.string().optional(),
});

/** Send the annotate stage and the endpoint models of the answer stage to queue workers (docs/scale-out.md). */
const QueueSetting = z.strictObject({
  /** Redis URL, redis://HOST:PORT[/DB]. */
  url: z.string().min(1),
  /** Images per annotate job (default 16). */
  shard_size: z.number().int().positive().optional(),
});

/** A whole pipeline file. */
export const PipelineSchema = z.strictObject({
  name: Name,
  description: z.string().optional(),
  /** Output folder (one subfolder per stage). */
  out: z.string().min(1),
  dataset: Dataset,
  annotations: Annotations.prefault({}),
  prompts: Prompts.prefault({}),
  models: z.array(Model).default([]),
  metrics: Metrics.prefault({}),
  report: Report.prefault({}),
  photos: Photos.optional(),
  queue: QueueSetting.optional(),
  /** Stop after this stage (e.g. `annotate` for an annotation-only pipeline). */
  stop_after: z.enum(['dataset', 'annotate', 'prompts', 'answer', 'score', 'analyze', 'report']).optional(),
});

export type PipelineConfig = z.infer<typeof PipelineSchema>;
export type ModelConfig = PipelineConfig['models'][number];
export type PipelineTask = (typeof TASKS)[number];
