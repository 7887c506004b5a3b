/**
 * DAP prompts carry the depths their hint states (`hint_depth`), and the answerers that reason from
 * numbers (geometric, simulated) read those rather than the annotation file's depths.
 */
import { describe, expect, it } from 'vitest';
import { captionFor } from '../../src/datasets/caption.js';
import type { CocoFile } from '../../src/formats/coco.js';
import type { PromptRecord } from '../../src/formats/prompts.js';
import { createGeometricAnswerer, createSimulatedAnswerer } from '../../src/mllm/baselines/index.js';
import { buildItemPrompts } from '../../src/prompts/build.js';
import { resolveTemplates } from '../../src/prompts/templates.js';
import { answerText, type Answerer } from '../../src/mllm/types.js';

// The subject is nearer than the object in the annotations (metres).
const coco = {
  info: { depth: { unit: 'm', scale: 0.001, larger: 'farther' } },
  images: [{ id: 1, file_name: 'a.jpg', width: 640, height: 480, item_id: 'it', split: 'synthetic' }],
  annotations: [
    { id: 1, image_id: 1, category_id: 1, bbox: [250, 200, 60, 60], area: 3600, iscrowd: 0, role: 'subject', phrase: 'mug', score: 1, depth: { median: 0.5, mean: 0.5, p10: 0.5, p90: 0.5, unit: 'm', region: 'box' } },
    { id: 2, image_id: 1, category_id: 2, bbox: [260, 150, 60, 60], area: 3600, iscrowd: 0, role: 'object', phrase: 'bowl', score: 1, depth: { median: 0.8, mean: 0.8, p10: 0.8, p90: 0.8, unit: 'm', region: 'box' } },
  ],
  categories: [{ id: 1, name: 'mug' }, { id: 2, name: 'bowl' }],
} as unknown as CocoFile;

const item = { id: 'it', split: 'synthetic', image: 'a.jpg', subject: 'mug', object: 'bowl', relation: 'front', options: (['front', 'behind', 'left', 'right'] as const).map((r) => captionFor('mug', 'bowl', r)), answer: 0 };
const templates = resolveTemplates({}, undefined, '(defaults)');

function dapPrompt(hintDepth?: PromptRecord['hint_depth']): PromptRecord {
  return buildItemPrompts(item as never, 'dap', { templates, image: '/x/a.jpg', imageSha256: 'f'.repeat(64), baseTask: 'mc', hint: 'a hint', hintDepth, permutations: 1 })[0]!;
}

describe('DAP hint depths', () => {
  it('are recorded on the prompt, outside its key', () => {
    const depth = { subject: 1.2, object: 0.7, unit: 'm' as const, larger: 'farther' as const };
    const [a, b] = [dapPrompt(depth), dapPrompt()];
    expect(a.hint_depth).toEqual(depth);
    expect(b.hint_depth).toBeUndefined();
    expect(a.key).toBe(b.key);
  });

  it('decide front/behind for the geometric and simulated answerers, whatever the annotation file says', async () => {
    const behind = dapPrompt({ subject: 1.2, object: 0.7, unit: 'm', larger: 'farther' });
    const front = dapPrompt({ subject: 0.6, object: 0.7, unit: 'm', larger: 'farther' });
    // Relative inverse depth: larger is nearer, so 2.0 against 1.0 puts the subject in front.
    const frontInverse = dapPrompt({ subject: 2.0, object: 1.0, unit: 'relative-inverse', larger: 'nearer' });
    const letter = (p: PromptRecord, relation: string) => String.fromCharCode(65 + p.options.indexOf(captionFor('mug', 'bowl', relation as 'front')));
    const geometric = createGeometricAnswerer('g', coco, 'qwen2-vl');
    const simulated = createSimulatedAnswerer('s', coco, { grounding: 1, reasoningError: 0, seed: 1 }, 'qwen2-vl');
    const ask = async (a: Answerer, p: PromptRecord) => answerText(await a.answer(p, new AbortController().signal)).trim();
    for (const answerer of [geometric, simulated]) {
      expect(await ask(answerer, behind)).toBe(letter(behind, 'behind'));
      expect(await ask(answerer, front)).toBe(letter(front, 'front'));
      expect(await ask(answerer, frontInverse)).toBe(letter(frontInverse, 'front'));
      // Without a stated depth, the annotation's depths decide (the subject is nearer there).
      expect(await ask(answerer, dapPrompt())).toBe(letter(dapPrompt(), 'front'));
    }
  });
});
