/**
 * Reads and judges a SnorkelSpatial answer: the JSON object (structured output or extracted from
 * text), the query's key, a value of the right shape. Missing JSON, key or shape is invalid (what the
 * runner's answer attempts re-ask); a well-formed wrong value is wrong. accuracy@1 on the final answer.
 */
import { isDeepStrictEqual } from 'node:util';
import { extractJson } from '../../formats/json-text.js';
import type { Judgement } from '../types.js';
import { ANSWER_KEYS, type SnorkelItem } from './item.js';
import { DIRECTIONS } from './world.js';

export const SNORKEL_MODES = ['exact'] as const;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The answer value in its canonical form, or a reason it is not one. */
function normalise(task: SnorkelItem['task'], v: unknown): { value: unknown } | { error: string } {
  switch (task) {
    case 'absolute-location':
      return Array.isArray(v) && v.length === 2 && v.every(isInt) ? { value: v } : { error: 'not [x, y] integers' };
    case 'tile':
      return isInt(v) ? { value: v } : { error: 'not an integer' };
    case 'absolute-orientation': {
      const s = typeof v === 'string' ? v.trim().toUpperCase() : '';
      return (DIRECTIONS as readonly string[]).includes(s) ? { value: s } : { error: `not one of ${DIRECTIONS.join(', ')}` };
    }
    case 'relative-location': {
      const o = v as { front?: unknown; right?: unknown } | null;
      return o !== null && typeof o === 'object' && isInt(o.front) && isInt(o.right) ? { value: { front: o.front, right: o.right } } : { error: 'not {front, right} integers' };
    }
    case 'relative-orientation':
      return isInt(v) && [0, 90, 180, 270].includes(((v % 360) + 360) % 360) ? { value: ((v % 360) + 360) % 360 } : { error: 'not 0, 90, 180 or 270' };
  }
}

export function judgeSnorkel(item: SnorkelItem, output: string): Judgement {
  const got = extractJson(output);
  if ('error' in got) return { valid: false, correct: false, reason: `no JSON: ${got.error}` };
  const key = ANSWER_KEYS[item.task];
  const obj = got.value as Record<string, unknown> | null;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || !(key in obj)) return { valid: false, correct: false, reason: `no "${key}" key` };
  const n = normalise(item.task, obj[key]);
  if ('error' in n) return { valid: false, correct: false, extracted: obj[key], reason: `"${key}": ${n.error}` };
  const correct = isDeepStrictEqual(n.value, item.answer[key]);
  return { valid: true, correct, extracted: n.value, reason: correct ? undefined : 'wrong value' };
}
