/** The box format a model family declares (docs/scoring.md, "Box formats"), chosen from the model name by written rules. */
import { BOX_FORMATS, type BoxFormat } from './box-formats.js';
import type { BoxFormatOption } from './box-parse.js';
import { GsrError } from '../util/errors.js';

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

/** Where a model's box format came from. */
export type BoxFormatSource = 'declared' | 'family' | 'auto';

/**
 * The format a model's boxes are read in (docs/scoring.md, "Which format"): the declared one; else,
 * when the declaration is `auto` or absent, the family's from the model id; `auto` guesses per answer
 * only when neither is known. So a pipeline's `auto` never overrides a known family.
 */
export function resolveBoxFormat(declared: string | undefined, model: string): { format: BoxFormatOption; source: BoxFormatSource } {
  if (declared !== undefined && declared !== 'auto') {
    if (!(BOX_FORMATS as readonly string[]).includes(declared)) throw new GsrError(`unknown box format "${declared}" (known: auto, ${BOX_FORMATS.join(', ')})`);
    return { format: declared as BoxFormat, source: 'declared' };
  }
  const family = boxFormatForModel(model);
  return family ? { format: family, source: 'family' } : { format: 'auto', source: 'auto' };
}

/** One line saying which format is used and why, for notices. */
export function describeBoxFormat(model: string, r: { format: BoxFormatOption; source: BoxFormatSource }): string {
  if (r.source === 'declared') return `box format: ${r.format} (declared for "${model}")`;
  if (r.source === 'family') return `box format: ${r.format} (the family of model id "${model}")`;
  return `box format: auto (no family known for "${model}"; each answer read by the written rules)`;
}
