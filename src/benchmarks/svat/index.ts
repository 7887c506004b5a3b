/** The SVAT benchmark plug-in (Zhao et al.): yes/no in-context learning of a hidden spatial rule. */
import type { Benchmark } from '../types.js';
import { createAlwaysYes, createNearest } from './baselines.js';
import { judgeSvat, SVAT_MODES, SVAT_REQUEST } from './judge.js';
import { buildSvatPrompts, parseSvatPromptSettings, SvatPromptSettingsSchema } from './prompts.js';
import { SvatGenerateSchema } from './settings.js';
import { analyzeSvat, svatSections, svatTables } from './report.js';
import { parseSvatItem, svatNotes, type SvatItem } from './spec.js';

export const svat: Benchmark<SvatItem> = {
  name: 'svat',
  title: 'SVAT: spatial visual ambiguity tasks',
  parseItem: parseSvatItem,
  // Loaded on demand: generation decodes and encodes images (sharp); scoring needs none of it.
  generateItems: async (settings, onProgress) => (await import('./generate.js')).generateSvat(settings, onProgress),
  buildPrompts: (item, settings) => buildSvatPrompts(item, parseSvatPromptSettings(settings)),
  settingsSchemas: { generate: SvatGenerateSchema, prompts: SvatPromptSettingsSchema },
  modes: SVAT_MODES,
  judge: (item, prompt, output, mode) => judgeSvat(item, prompt, output, mode),
  // Appendix A: a Yes/No answer of at most 5 new tokens, without sampling.
  requestDefaults: SVAT_REQUEST,
  baselines: { nearest: createNearest, 'always-yes': createAlwaysYes },
  analyze: analyzeSvat,
  tables: svatTables,
  sections: svatSections,
  notes: (items) => svatNotes(items.values()),
};
