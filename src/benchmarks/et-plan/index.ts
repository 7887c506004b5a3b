/**
 * The ET-Plan-Bench plug-in: embodied task planning on a VirtualHome-compatible engine, run as
 * multi-step episodes (docs/et-plan.md). It is episodic: one-turn prompts and judging do not apply.
 */
import { GsrError } from '../../util/errors.js';
import type { Benchmark, EpisodeHooks } from '../types.js';
import { episodeFactory, episodeMaker, loadApartments } from './loop.js';
import { createAlwaysFirst, createGreedy, createOracle, createRandom } from './policies.js';
import { releasedPolicy } from './released-protocol.js';
import { etPlanRefine } from './refine.js';
import { etPlanSections, etPlanTables, scoreEtPlan } from './report.js';
import { parseEpisodeSettings, parseMetricSettings, type EpisodeSettings, type MetricSettings } from './settings.js';
import { parseEtPlanItem, type EtPlanItem } from './task.js';

const episodic = (): never => {
  throw new GsrError('et-plan is episodic: run it through a pipeline (its episodes stage), not as one-turn prompts');
};

export const etPlanEpisodes: EpisodeHooks<EtPlanItem> = {
  parseSettings: parseEpisodeSettings,
  async prepare(items, settings) {
    const s = settings as EpisodeSettings;
    return episodeFactory(episodeMaker(await loadApartments(items.values()), s), s);
  },
  policies: {
    oracle: createOracle, random: createRandom, greedy: createGreedy, 'always-first': createAlwaysFirst,
    'released-list': releasedPolicy('list'), 'released-none': releasedPolicy('none'),
  },
  parseMetrics: parseMetricSettings,
  score: (items, episodes, metrics) => scoreEtPlan(items, episodes, metrics as MetricSettings),
};

export const etPlan: Benchmark<EtPlanItem> = {
  name: 'et-plan',
  title: 'ET-Plan-Bench: embodied task planning',
  parseItem: parseEtPlanItem,
  // Loaded on demand: generation writes apartments; the episode loop needs none of it.
  generateItems: async (settings, onProgress) => (await import('./synth.js')).generateEtPlanItems(settings, onProgress),
  buildPrompts: episodic,
  modes: ['clean'],
  judge: episodic,
  baselines: {},
  tables: etPlanTables,
  sections: etPlanSections,
  episodes: etPlanEpisodes,
  refine: etPlanRefine,
};
