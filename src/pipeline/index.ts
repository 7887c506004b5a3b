/** Pipelines: experiment files (YAML), the stage engine, and the end-to-end run. */

/** Runs a pipeline file end to end (`gsr pipeline run`), and its stage list. */
export { runPipeline, pipelineStatus, buildStages, STAGE_NAMES, type PipelineRunOptions, type PipelineResult } from './run.js';
/** Checks run before any stage: paths, answerer kinds, box formats, endpoint reachability. */
export { preflight, preflightProblems, endpointProblem } from './preflight.js';
/** The stage engine: content-hashed stages, skip when unchanged, resume, atomic completion. */
export { runStages, stageStatus, ENGINE_VERSION, STAGE_RECORD, type Stage, type StageContext, type StageOutcome, type StageRecord, type StageStatus, type RunStagesOptions } from './engine.js';
/** One progress display across the stages of a run. */
export { PipelineProgress, type StageProgress } from './progress.js';
/** Folder digests used for stage records. */
export { folderDigest, type FileEntry } from './hash.js';
/** The summary table a run prints. */
export { summaryRows, formatSummaryTable, type SummaryRow } from './summary.js';
/** Pipelines of benchmark plug-ins (a `benchmark:` section): schema, loading, stages, run. */
export { BenchPipelineSchema, isBenchPipeline, loadBenchPipeline, benchStages, runBenchPipeline, type BenchPipelineConfig } from './bench.js';
