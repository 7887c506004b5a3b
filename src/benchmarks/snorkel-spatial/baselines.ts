/**
 * SnorkelSpatial baselines. `oracle` replays the actions (world.ts) and answers in the JSON form the
 * prompt asks for: it bounds the benchmark at 100%. `random` draws uniformly from the item's answer
 * space (seeded by the prompt key, so order-independent): its expected accuracy is chance,
 * 1 / answerSpaceSize, which the report shows beside it.
 */
import { isBenchPrompt, type AnyPrompt } from '../../formats/prompts.js';
import { AnswerError } from '../../mllm/errors.js';
import type { Answerer } from '../../mllm/types.js';
import { keyedUniform } from '../../util/random.js';
import type { BaselineOptions } from '../types.js';
import { answerAt, answerSpaceSize, oracleAnswer, type SnorkelItem } from './item.js';

function snorkelItem(items: ReadonlyMap<string, SnorkelItem>, p: AnyPrompt, name: string): SnorkelItem {
  if (!isBenchPrompt(p) || p.benchmark !== 'snorkel-spatial') throw new AnswerError(`${name} answers SnorkelSpatial prompts only`, false);
  const item = items.get(p.item);
  if (item === undefined) throw new AnswerError(`${name}: item ${p.item} is not in the items file`, false);
  return item;
}

export function createOracle(items: ReadonlyMap<string, SnorkelItem>, o: BaselineOptions): Answerer {
  return { name: o.name, answer: async (p) => JSON.stringify(oracleAnswer(snorkelItem(items, p, o.name))) };
}

export function createRandom(items: ReadonlyMap<string, SnorkelItem>, o: BaselineOptions): Answerer {
  return {
    name: o.name,
    async answer(p) {
      const item = snorkelItem(items, p, o.name);
      const n = answerSpaceSize(item);
      return JSON.stringify(answerAt(item, Math.floor(keyedUniform(o.seed, p.key) * n)));
    },
  };
}
