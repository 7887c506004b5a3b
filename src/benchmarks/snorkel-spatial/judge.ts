/**
 * Reads and judges a SnorkelSpatial answer: the JSON object (structured output or extracted from
 * text), the query's entity-specific key, a value of the right form. Missing JSON, key or form is
 * invalid (what the runner's answer attempts re-ask); a well-formed wrong value is wrong. accuracy@1
 * on the final answer.
 */
import { isDeepStrictEqual } from 'node:util';
import { extractJson } from '../../formats/json-text.js';
import type { Judgement } from '../types.js';
import { answerKey, type SnorkelItem } from './item.js';
import { DIRECTIONS } from './world.js';

export const SNORKEL_MODES = ['exact'] as const;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const NUMBER = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)`;
const POINT_TEXT = new RegExp(String.raw`^\s*[([]?\s*(${NUMBER})\s*,\s*(${NUMBER})\s*[)\]]?\s*$`);

/** A point: [x, y] numbers, or text such as "(3.5, 1.5)". */
function readPoint(v: unknown): [number, number] | null {
  if (Array.isArray(v)) return v.length === 2 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? [v[0] + 0, v[1] + 0] : null;
  const m = typeof v === 'string' ? POINT_TEXT.exec(v) : null;
  return m ? [Number(m[1]) + 0, Number(m[2]) + 0] : null;
}

/** The answer value in its canonical form, or a reason it is not one. */
function normalise(task: SnorkelItem['task'], v: unknown): { value: unknown } | { error: string } {
  switch (task) {
    case 'absolute-location': case 'relative-location': {
      const p = readPoint(v);
      return p ? { value: p } : { error: 'not a point [x, y]' };
    }
    case 'tile':
      return isInt(v) ? { value: v } : { error: 'not an integer' };
    case 'absolute-orientation': {
      const s = typeof v === 'string' ? v.trim().toUpperCase() : '';
      return (DIRECTIONS as readonly string[]).includes(s) ? { value: s } : { error: `not one of ${DIRECTIONS.join(', ')}` };
    }
    case 'relative-orientation':
      return isInt(v) && [0, 90, 180, 270].includes(((v % 360) + 360) % 360) ? { value: ((v % 360) + 360) % 360 } : { error: 'not 0, 90, 180 or 270' };
  }
}

export function judgeSnorkel(item: SnorkelItem, output: string): Judgement {
  const got = extractJson(output);
  if ('error' in got) return { valid: false, correct: false, reason: `no JSON: ${got.error}` };
  const key = answerKey(item);
  const obj = got.value as Record<string, unknown> | null;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || !(key in obj)) return { valid: false, correct: false, reason: `no "${key}" key` };
  const n = normalise(item.task, obj[key]);
  if ('error' in n) return { valid: false, correct: false, extracted: obj[key], reason: `"${key}": ${n.error}` };
  const correct = isDeepStrictEqual(n.value, item.answer[key]);
  return { valid: true, correct, extracted: n.value, reason: correct ? undefined : 'wrong value' };
}
