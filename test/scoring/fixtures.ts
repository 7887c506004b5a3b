/** Builders for prompt and response records used by the scoring tests. */
import type { PromptRecord } from '../../src/formats/prompts.js';
import type { ResponseRecord } from '../../src/formats/responses.js';

/** One prompt per rotation r: shown position i holds original option (i + r) mod k. */
export function itemPrompts(
  item: string,
  split: string,
  relation: string,
  options: string[],
  answer: number,
  task: 'mc' | 'tg' | 'dap' = 'mc',
): PromptRecord[] {
  const k = options.length;
  return Array.from({ length: k }, (_, r) => {
    const permutation = Array.from({ length: k }, (_, i) => (i + r) % k);
    const answerIndex = permutation.indexOf(answer);
    const shown = permutation.map((o) => options[o]);
    const mcStyle = task === 'mc' || task === 'dap';
    return {
      key: `${item}#${task}#${r}`,
      item,
      split,
      relation,
      task,
      ...(task === 'dap' ? { base_task: 'mc' as const } : {}),
      permutation,
      rotation: r,
      image: `/img/${item}.jpg`,
      text: 'Which caption fits?',
      options: shown,
      expected: mcStyle ? String.fromCharCode(65 + answerIndex) : shown[answerIndex],
      answer_index: answerIndex,
    };
  });
}

export function response(key: string, output: string, extra: Partial<ResponseRecord> = {}): ResponseRecord {
  return { key, model: 'm1', output, status: 'ok', error: null, attempts: 1, latency_ms: 10, item: '', ...extra };
}

/** Responses from a policy that sees each prompt. */
export function answerAll(prompts: PromptRecord[], policy: (p: PromptRecord) => string, model = 'm1'): ResponseRecord[] {
  return prompts.map((p) => response(p.key, policy(p), { model, item: p.item }));
}

export const letterOf = (i: number) => String.fromCharCode(65 + i);
export const FOUR = ['A mug on a table', 'A mug under a table', 'A mug to the left of a table', 'A mug to the right of a table'];
export const TWO = ['A dog on the left', 'A dog on the right'];
