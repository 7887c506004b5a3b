/**
 * SVAT baselines, answering as Table 3's demonstrations do (`Yes` or `No`), which every judging mode
 * reads. `nearest` reads the target's centre in every image from the items (the generator's ground
 * truth) and gives the query the answer of the nearest demonstration: it shows what the
 * demonstrations carry for a model that finds the target (near 100%, not always: the nearest
 * demonstration can lie across the line). `always-yes` answers Yes (50% on balanced items).
 */
import { isBenchPrompt, type AnyPrompt } from '../../formats/prompts.js';
import { AnswerError } from '../../mllm/errors.js';
import type { Answerer } from '../../mllm/types.js';
import type { BaselineOptions } from '../types.js';
import type { Answer, SvatItem } from './spec.js';

function svatItem(items: ReadonlyMap<string, SvatItem>, p: AnyPrompt, name: string): SvatItem {
  if (!isBenchPrompt(p) || p.benchmark !== 'svat') throw new AnswerError(`${name} answers SVAT prompts only`, false);
  const item = items.get(p.item);
  if (item === undefined) throw new AnswerError(`${name}: item ${p.item} is not in the items file`, false);
  return item;
}

/** The answer of the demonstration whose target is nearest the query's (null without demonstrations). */
export function nearestAnswer(item: SvatItem): Answer | null {
  let best: Answer | null = null;
  let bestD = Infinity;
  for (const d of item.demos) {
    const dist = Math.hypot(d.objects[0].x - item.query.objects[0].x, d.objects[0].y - item.query.objects[0].y);
    if (dist < bestD) {
      bestD = dist;
      best = d.answer;
    }
  }
  return best;
}

export function createNearest(items: ReadonlyMap<string, SvatItem>, o: BaselineOptions): Answerer {
  return {
    name: o.name,
    async answer(p) {
      return (nearestAnswer(svatItem(items, p, o.name)) ?? 'yes') === 'yes' ? 'Yes' : 'No';
    },
  };
}

export function createAlwaysYes(items: ReadonlyMap<string, SvatItem>, o: BaselineOptions): Answerer {
  return {
    name: o.name,
    async answer(p) {
      svatItem(items, p, o.name);
      return 'Yes';
    },
  };
}
