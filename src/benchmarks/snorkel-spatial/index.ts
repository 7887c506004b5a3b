/** The SnorkelSpatial plug-in: generated text-only puzzles on a moving, rotating board (docs/snorkel-spatial.md). */
import type { Benchmark } from '../types.js';
import { createOracle, createRandom } from './baselines.js';
import { generateSnorkelItems } from './generate.js';
import { parseSnorkelItem, type SnorkelItem } from './item.js';
import { judgeSnorkel, SNORKEL_MODES } from './judge.js';
import { buildSnorkelPrompts, parseSnorkelPromptSettings } from './prompts.js';
import { snorkelSections, snorkelTables } from './report.js';

/** Answer attempts per item by default (the published protocol: up to 10 when the output is missing or invalid). */
export const SNORKEL_ANSWER_ATTEMPTS = 10;

export const snorkelSpatial: Benchmark<SnorkelItem> = {
  name: 'snorkel-spatial',
  title: 'SnorkelSpatial: tracking a moving, rotating board and its particles',
  parseItem: parseSnorkelItem,
  // Text only: nothing is written beside the items, so the folder (`out`) is not a setting.
  generateItems: async ({ out: _out, ...settings }) => generateSnorkelItems(settings),
  buildPrompts: (item, settings) => buildSnorkelPrompts(item, parseSnorkelPromptSettings(settings)),
  modes: SNORKEL_MODES,
  judge: (item, _prompt, output) => judgeSnorkel(item, output),
  answerAttempts: SNORKEL_ANSWER_ATTEMPTS,
  baselines: { oracle: createOracle, random: createRandom },
  tables: snorkelTables,
  sections: snorkelSections,
};
