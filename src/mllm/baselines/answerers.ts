/**
 * Baseline answerers: `random` (seeded), `always-first`, and `geometric` (answers from the
 * annotations alone). They answer TG, MC, DAP and grounding prompts in the same text shapes a model
 * would, so the runner and the scorer treat them like any model.
 */
import type { CocoFile } from '../../formats/coco.js';
import { isBenchPrompt, type AnyPrompt, type PromptRecord } from '../../formats/prompts.js';
import { AnswerError } from '../errors.js';
import { GsrError } from '../../util/errors.js';
import { readJsonFile } from '../../util/jsonl.js';
import type { AnswererOptions } from '../registry.js';
import type { Answerer } from '../types.js';
import { answerStyle, BASELINE_BOX_FORMATS, choiceText, formatBox, type BaselineBoxFormat } from './answer-text.js';
import { xywhToXyxy } from '../../geometry/boxes.js';
import { indexAnnotations, sceneOf } from './annotation-index.js';
import { chooseCaption } from './geometry-reasoner.js';
import { keyedUniform } from '../../util/random.js';

/** These baselines answer What'sUp prompts only; a benchmark plug-in brings its own. */
function whatsupPrompt(p: AnyPrompt, name: string): PromptRecord {
  if (isBenchPrompt(p)) throw new AnswerError(`${name} answers What'sUp prompts only, not ${p.benchmark} prompts (use that benchmark's baselines)`, false);
  return p;
}

/** Box format the grid-based baselines declare (their boxes are on a 0-1000 grid). */
export const GRID_BOX_FORMAT: BaselineBoxFormat = 'qwen2-vl';

/** Picks a shown option uniformly at random, and a random box for grounding; same seed, same answers. */
export function createRandomAnswerer(name: string, seed: number): Answerer {
  return {
    name,
    async answer(anyPrompt: AnyPrompt): Promise<string> {
      const prompt = whatsupPrompt(anyPrompt, name);
      if (answerStyle(prompt) === 'grounding') {
        const xs = [keyedUniform(seed, prompt.key, 'x1'), keyedUniform(seed, prompt.key, 'x2')].sort((a, b) => a - b);
        const ys = [keyedUniform(seed, prompt.key, 'y1'), keyedUniform(seed, prompt.key, 'y2')].sort((a, b) => a - b);
        return formatBox([xs[0] * 1000, ys[0] * 1000, xs[1] * 1000, ys[1] * 1000], 1000, 1000, GRID_BOX_FORMAT);
      }
      const index = Math.floor(keyedUniform(seed, prompt.key, 'choice') * prompt.options.length);
      return choiceText(prompt, index);
    },
  };
}

/** Always picks the first shown option; for grounding, the whole image. */
export function createAlwaysFirstAnswerer(name: string): Answerer {
  return {
    name,
    async answer(anyPrompt: AnyPrompt): Promise<string> {
      const prompt = whatsupPrompt(anyPrompt, name);
      if (answerStyle(prompt) === 'grounding') return formatBox([0, 0, 1000, 1000], 1000, 1000, GRID_BOX_FORMAT);
      return choiceText(prompt, 0);
    },
  };
}

/**
 * Answers from an annotation file: the caption the boxes and depths support best (see
 * geometry-reasoner.ts), and for grounding the annotated box in `boxFormat`.
 */
export function createGeometricAnswerer(name: string, coco: CocoFile, boxFormat: BaselineBoxFormat): Answerer {
  const index = indexAnnotations(coco);
  const larger = coco.info?.depth?.larger;
  const scenes = new Map<string, ReturnType<typeof sceneOf>>();
  return {
    name,
    async answer(anyPrompt: AnyPrompt): Promise<string> {
      const prompt = whatsupPrompt(anyPrompt, name);
      const entry = index.get(prompt.item);
      if (!entry) throw new GsrError(`no annotations for the item: ${prompt.item}`);
      if (answerStyle(prompt) === 'grounding') {
        const role = prompt.role ?? 'subject';
        const ann = entry[role];
        if (!ann) throw new GsrError(`no ${role} box in the annotations: ${prompt.item}`);
        return formatBox(xywhToXyxy(ann.bbox), entry.width, entry.height, boxFormat);
      }
      let scene = scenes.get(prompt.item);
      if (scene === undefined) scenes.set(prompt.item, (scene = sceneOf(entry, larger)));
      if (typeof scene === 'string') throw new GsrError(`${scene}: ${prompt.item}`);
      const subject = entry.subject?.phrase ?? '';
      const object = entry.object?.phrase ?? null;
      const choice = chooseCaption(scene, prompt.options, subject, object);
      if (choice.index < 0) throw new GsrError(`no option states a relation it can judge: ${prompt.item}`);
      return choiceText(prompt, choice.index);
    },
  };
}

function boxFormatOption(options: AnswererOptions): BaselineBoxFormat {
  const value = (options.boxFormat ?? options.box_format ?? GRID_BOX_FORMAT) as string;
  if (!(BASELINE_BOX_FORMATS as readonly string[]).includes(value)) {
    throw new GsrError(`geometric: box format "${value}" is not one it writes (${BASELINE_BOX_FORMATS.join(', ')})`);
  }
  return value as BaselineBoxFormat;
}

/** Factories in the shape of the `answerers` registry. */
export const baselineFactories = {
  random: async (options: AnswererOptions) => createRandomAnswerer(options.model, options.seed ?? 0),
  'always-first': async (options: AnswererOptions) => createAlwaysFirstAnswerer(options.model),
  geometric: async (options: AnswererOptions) => {
    if (!options.annotations) throw new GsrError('geometric: needs an annotation file (annotations)');
    const coco = await readJsonFile<CocoFile>(options.annotations);
    if (!Array.isArray(coco.images) || !Array.isArray(coco.annotations)) {
      throw new GsrError(`${options.annotations}: not a COCO annotation file (images/annotations missing)`);
    }
    return createGeometricAnswerer(options.model, coco, boxFormatOption(options));
  },
};
