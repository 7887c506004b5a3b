/** The VSP benchmark plug-in (Wu et al.): maze and blocks planning split into perception and reasoning. */
import { GsrError } from '../../util/errors.js';
import type { Benchmark } from '../types.js';
import { createOracle, createPartialOracle, createRandom } from './baselines.js';
import { importVsp } from './import.js';
import { parseVspContext, parseVspItem, PERCEPTION_TASKS, REASONING_TASKS, type VspContext, type VspItem } from './item.js';
import { judgeVsp, VSP_MODES } from './judge.js';
import { generateVsp } from './layout.js';
import { buildVspPrompts, VspPromptSettingsSchema } from './prompts.js';
import { analyzeVsp, vspSections, vspTables } from './report.js';

export function parseVspPromptSettings(raw: unknown) {
  const r = VspPromptSettingsSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`VSP prompt settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

// The context is one object per item set: check it once, not once per item.
const checked = new WeakMap<object, VspContext>();
function checkedContext(context: unknown): VspContext {
  if (context === null || typeof context !== 'object') throw new GsrError('context.json: not a VSP context (import the data again)');
  let c = checked.get(context);
  if (c === undefined) checked.set(context, (c = parseVspContext(context, 'context.json')));
  return c;
}

export const vsp: Benchmark<VspItem> = {
  name: 'vsp',
  title: 'VSP: spatial planning, perception and reasoning',
  parseItem: parseVspItem,
  importItems: (root, onProgress) => importVsp(root, onProgress),
  // The project's own sample in VSP's layout (src/benchmarks/vsp/layout.ts), for runs without a copy.
  generateItems: (settings, onProgress) => generateVsp(settings, onProgress),
  buildPrompts: (item, settings, context) => buildVspPrompts(item, parseVspPromptSettings(settings), checkedContext(context)),
  modes: VSP_MODES,
  // The official runners ask each prompt once; re-asking would change what official mode scores.
  maxAnswerAttempts: 1,
  judge: judgeVsp,
  baselines: { oracle: createOracle, random: createRandom, 'oracle-perception': createPartialOracle(PERCEPTION_TASKS), 'oracle-reasoning': createPartialOracle(REASONING_TASKS) },
  analyze: analyzeVsp,
  tables: vspTables,
  sections: vspSections,
};
