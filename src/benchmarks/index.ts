/** Benchmark plug-ins: the interface, the registry, and the shared prompt-file and scoring steps. */
export type * from './types.js';
export { benchmarks, registerBenchmark } from './registry.js';
export { writeBenchPromptFile, benchPromptKey, BENCH_PROMPT_KEY_VERSION, type BenchPromptsSummary } from './prompts-file.js';
export { scoreResponses, scoreCells, judgeOutput, JUDGED_CHARS, scoredUnparsed, episodeUnparsed, unparsedWarnings, type ResponseLike } from './score.js';
export { runEpisodes, episodePrompt, type EpisodeActor, type RunEpisodesOptions, type EpisodesSummary } from './episodes.js';
export { importBenchmark, generateBenchmark, copyItemSet, loadItemSet, loadBenchmarkItems, answerAttemptsFor, benchValidator, benchAnswerer, scoreModels, writeBenchScores, writeBenchReport, countItems, ITEMS_FILE, CONTEXT_FILE, SCORES_FILE, CELLS_FILE, type ImportSummary, type BenchScores, type EpisodeReportInput } from './run.js';

import { registerBenchmark } from './registry.js';
import { vsp } from './vsp/index.js';
registerBenchmark(vsp);
import { snorkelSpatial } from './snorkel-spatial/index.js';
registerBenchmark(snorkelSpatial);
import { whatsup } from './whatsup/index.js';
registerBenchmark(whatsup);
import { svat } from './svat/index.js';
registerBenchmark(svat);
import { etPlan } from './et-plan/index.js';
registerBenchmark(etPlan);
