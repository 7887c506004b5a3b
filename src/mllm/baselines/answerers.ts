/**
 * Baseline answerers: `random` (seeded), `always-first`, and `geometric` (answers from the
 * annotations alone). They answer TG, MC, DAP and grounding prompts in the same text shapes a model
 * would, so the runner and the scorer treat them like any model.
 */
import { readCocoFile, type CocoFile } from '../../formats/coco.js';
import type { AnyPrompt } from '../../formats/prompts.js';
import { GsrError } from '../../util/errors.js';
import type { AnswererOptions } from '../registry.js';
import type { Answerer } from '../types.js';
import { answerStyle, BASELINE_BOX_FORMATS, choiceText, formatBox, whatsupPrompt, type BaselineBoxFormat } from './answer-text.js';
import { xywhToXyxy } from '../../geometry/boxes.js';
import { indexAnnotations, sceneOf, withHintDepth } from './annotation-index.js';
import { chooseCaption } from './geometry-reasoner.js';
import { createSimulatedAnswerer, simulatedSettings } from './simulated.js';
import { keyedUniform } from '../../util/random.js';

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
 * geometry-reasoner.ts; a DAP prompt's depths are those its hint states), and for grounding the
 * annotated box in `boxFormat`.
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
      const choice = chooseCaption(withHintDepth(scene, prompt), prompt.options, subject, object);
      if (choice.index < 0) throw new GsrError(`no option states a relation it can judge: ${prompt.item}`);
      return choiceText(prompt, choice.index);
    },
  };
}

function boxFormatOption(options: AnswererOptions): BaselineBoxFormat {
  const value = (options.boxFormat ?? options.box_format ?? GRID_BOX_FORMAT) as string;
  if (!(BASELINE_BOX_FORMATS as readonly string[]).includes(value)) {
    throw new GsrError(`${options.model}: box format "${value}" is not one it writes (${BASELINE_BOX_FORMATS.join(', ')})`);
  }
  return value as BaselineBoxFormat;
}

/** Every baseline answers in this process, each prompt on its own (Answerer.local). */
const local = <T extends Answerer>(a: T): T => Object.assign(a, { local: true });

/** Factories in the shape of the `answerers` registry. */
export const baselineFactories = {
  random: async (options: AnswererOptions) => local(createRandomAnswerer(options.model, options.seed ?? 0)),
  'always-first': async (options: AnswererOptions) => local(createAlwaysFirstAnswerer(options.model)),
  geometric: async (options: AnswererOptions) => local(createGeometricAnswerer(options.model, await readCoco('geometric', options), boxFormatOption(options))),
  simulated: async (options: AnswererOptions) =>
    local(createSimulatedAnswerer(options.model, await readCoco('simulated', options), simulatedSettings(options.model, options), boxFormatOption(options))),
};

/** The annotation file an answerer reasons from. */
async function readCoco(kind: string, options: AnswererOptions): Promise<CocoFile> {
  if (!options.annotations) throw new GsrError(`${kind}: needs an annotation file (annotations)`);
  return readCocoFile(options.annotations);
}
