/** The box format a model family declares (docs/scoring.md, "Box formats"), chosen from the model name by written rules. */
import type { BoxFormat } from './box-formats.js';

/** Name patterns, most specific first; the first match decides. */
export const MODEL_BOX_FORMATS: ReadonlyArray<[RegExp, BoxFormat]> = [
  [/qwen2[._-]?5[-_ ]?vl/i, 'qwen2.5-vl'],
  [/qwen3[-_ ]?vl/i, 'qwen3-vl'],
  [/qwen2[-_ ]?vl/i, 'qwen2-vl'],
  [/qwen[-_ ]?vl/i, 'qwen-vl'],
  [/internvl/i, 'internvl'],
  [/cogvlm/i, 'cogvlm'],
  [/gemini/i, 'gemini'],
  [/florence/i, 'florence2'],
  [/kosmos/i, 'kosmos2'],
  [/deepseek[-_ ]?vl2/i, 'deepseek-vl2'],
  [/paligemma/i, 'paligemma'],
  [/llava/i, 'llava'],
];

/** The declared format for a model name, or null when no rule knows it. */
export function boxFormatForModel(model: string): BoxFormat | null {
  for (const [re, format] of MODEL_BOX_FORMATS) if (re.test(model)) return format;
  return null;
}
