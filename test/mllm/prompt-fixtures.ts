import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PromptRecord } from '../../src/formats/prompts.js';

/** A tiny "image" (bytes are never decoded by the fake server). */
export const IMAGE_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** Writes `n` distinct MC-shaped prompts (text unique per prompt, so the server can count them). */
export function writePrompts(dir: string, n: number, name = 'prompts.jsonl'): { path: string; prompts: PromptRecord[] } {
  const image = join(dir, 'img.png');
  writeFileSync(image, IMAGE_BYTES);
  const prompts: PromptRecord[] = [];
  for (let i = 0; i < n; i++) {
    const item = `item-${Math.floor(i / 4)}`;
    const rotation = i % 4;
    prompts.push({
      key: `key-${String(i).padStart(6, '0')}`, item, split: 'whatsup-a', relation: 'on', task: 'mc', permutation: [0, 1, 2, 3].map((j) => (j + rotation) % 4),
      rotation, image, text: `prompt #${i}: which caption?`, options: ['a', 'b', 'c', 'd'], expected: 'A', answer_index: 0,
    });
  }
  const path = join(dir, name);
  writeFileSync(path, prompts.map((p) => JSON.stringify(p)).join('\n') + '\n');
  return { path, prompts };
}

/** Seeded PRNG so fault schedules repeat. */
export { seededRandom } from '../../src/util/random.js';
