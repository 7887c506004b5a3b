import { beforeAll, describe, expect, it } from 'vitest';
import { importVsp } from '../../../src/benchmarks/vsp/import.js';
import { buildVspPrompts, drawExamples, VspPromptSettingsSchema } from '../../../src/benchmarks/vsp/prompts.js';
import type { PromptPart } from '../../../src/formats/chat-prompt.js';
import { describeShared } from '../../helpers/shared.js';
import { sample, sampleItem, sampleRoot } from './sample.js';

const settings = (s: object = {}) => VspPromptSettingsSchema.parse(s);
let root = '';
beforeAll(async () => {
  root = await sampleRoot();
});
const images = (parts: PromptPart[], from = root) => parts.filter((p) => p.type === 'image').map((p) => (p as { image: string }).image.slice(from.length + 1));
const text = (parts: PromptPart[]) => parts.map((p) => (p.type === 'text' ? p.text : '<IMG>')).join('');

describe('VSP prompts', () => {
  it('maze main: the template cut at its placeholders, the legend, the worked map and the item image in order', async () => {
    const { context } = await sample();
    const [p] = buildVspPrompts(await sampleItem('maze-main/3/1'), settings(), context);
    expect(images(p.parts)).toEqual(['maze/task-main/prompt-visual-images/system-figure-1.png', 'maze/task-main/prompt-visual-images/system-figure-2.png', 'maze/task-main/maps/level3/img/1.png']);
    const t = text(p.parts);
    expect(t).not.toMatch(/<(IMAGE|TEST-IMAGE|QUESTION)/);
    expect(t).toContain('<PLAN>'); // literal text, not a placeholder
    expect(t.trimEnd().endsWith('Please plan the moves for the following map:\n\n<IMG>')).toBe(true);
    expect(p.parts.every((x, i) => i === 0 || x.type === 'image' || p.parts[i - 1].type === 'image')).toBe(true); // text parts merged
    expect(p.meta).toEqual({ shots: 0 });
  });

  it('k in-context examples go under "## Example:" before the final line, drawn with a recorded seed', async () => {
    const { context } = await sample();
    const item = await sampleItem('maze-main/4/0');
    const [p] = buildVspPrompts(item, settings({ shots: 2, seed: 7 }), context);
    expect(p.meta).toEqual({ shots: 2, seed: 7, examples: drawExamples([0, 1], 2, 7, item.id) });
    const ex = (p.meta!.examples as number[]).map((i) => `maze/task-main/example/level4/img/${i}.png`);
    expect(images(p.parts)).toEqual(['maze/task-main/prompt-visual-images/system-figure-1.png', 'maze/task-main/prompt-visual-images/system-figure-2.png', ...ex, 'maze/task-main/maps/level4/img/0.png']);
    const t = text(p.parts);
    expect(t.indexOf('## Example:\n<IMG>Reading the map.')).toBeGreaterThan(t.indexOf('Write nothing after that line.'));
    expect(t.indexOf('Action plan:', t.indexOf('## Example:'))).toBeLessThan(t.indexOf('Please plan the moves for the following map:'));
    // Same seed, same prompt; the draw depends on the seed and item only.
    expect(buildVspPrompts(item, settings({ shots: 2, seed: 7 }), context)).toEqual([p]);
    expect(drawExamples([0, 1, 2, 3, 4, 5, 6, 7], 4, 1, 'x')).toEqual(drawExamples([0, 1, 2, 3, 4, 5, 6, 7], 4, 1, 'x'));
    expect(new Set(drawExamples([0, 1, 2, 3, 4, 5, 6, 7], 8, 3, 'x')).size).toBe(8);
  });

  it('refuses more than 4 examples for blocks main, and more than the level has', async () => {
    const { context } = await sample();
    const bm = await sampleItem('blocks-main/1/0');
    const t1 = await sampleItem('maze-t1/3/0');
    expect(() => buildVspPrompts(bm, settings({ shots: 8 }), context)).toThrow('blocks main takes at most 4 in-context examples');
    expect(() => buildVspPrompts(t1, settings({ shots: 4 }), context)).toThrow('4 in-context examples asked, the level has 2');
    expect(() => settings({ shots: 3 })).toThrow();
  });

  it('text-only variants carry no image: the map becomes its text, the legend and its sentence go, the worked map becomes "Example Input:"', async () => {
    const { context } = await sample();
    const item = await sampleItem('maze-main/5/0');
    const ps = buildVspPrompts(item, settings({ variants: ['image', 'pure_text', 'table'], shots: 1 }), context);
    expect(ps.map((p) => p.variant)).toEqual(['image', 'pure_text', 'table']);
    for (const p of ps.slice(1)) {
      expect(images(p.parts)).toEqual([]);
      const t = text(p.parts);
      expect(t).not.toContain('The map symbols, from left to right');
      expect(t).toContain('Example Input: ');
      expect(t.trimEnd().endsWith((p.variant === 'table' ? item.table : item.pure_text)![0].trim())).toBe(true);
    }
    expect(text(ps[1].parts)).toContain('Example Input: This is a 4x4 map.\nThe player is at: row 1, column 1;\nThe hole(s) are at: Row 1, Column 2; Row 4, Column 1;\nThe goal is at: Row 4, Column 4.');
  });

  it('tasks without a text form of the map get the image variant only', async () => {
    const { context } = await sample();
    for (const id of ['maze-t3/3/0', 'blocks-t3/3/0', 'collision/default/0', 'google-map/1/0']) {
      expect(buildVspPrompts(await sampleItem(id), settings({ variants: ['image', 'pure_text', 'table'] }), context).map((p) => p.variant)).toEqual(['image']);
    }
  });

  it('follows the runners where they differ from prompt-text.txt: blocks T2 sends the image before the question', async () => {
    const { context } = await sample();
    const item = await sampleItem('blocks-t2/3/0');
    const [p] = buildVspPrompts(item, settings(), context);
    const t = text(p.parts);
    expect(t.lastIndexOf('<IMG>')).toBeLessThan(t.indexOf(item.question!.trim()));
    const [t1] = buildVspPrompts(await sampleItem('blocks-t1/3/0'), settings(), context);
    expect(text(t1.parts).trimEnd().endsWith('<IMG>')).toBe(true); // T1 keeps the question first
  });

  it('spells maze T4 moves out, appends the collision sentence, and shows both blocks-main states', async () => {
    const { context } = await sample();
    const t4 = await sampleItem('maze-t4/step3/0');
    const spelled = [...t4.truth.moves!].map((m) => ({ L: 'Left', R: 'Right', U: 'Up', D: 'Down' })[m]).join(', ');
    expect(text(buildVspPrompts(t4, settings(), context)[0].parts).trimEnd().endsWith(`The action sequence is:\n\n${spelled}`)).toBe(true);
    const col = await sampleItem('collision/default/1');
    expect(text(buildVspPrompts(col, settings(), context)[0].parts)).toMatch(/<IMG>\n+The car is moving (left|right) with speed [\d.]+, and the person is moving (up|down) with speed [\d.]+\.$/);
    const bm = buildVspPrompts(await sampleItem('blocks-main/3/1'), settings(), context)[0];
    expect(images(bm.parts)).toEqual(['blocks/task-main/prompt-visual-images/example0.jpg', 'blocks/task-main/maps/level3/input_img/1.jpg', 'blocks/task-main/maps/level3/output_img/1.jpg']);
  });
});

describeShared('VSP prompts on the published copy', ['vsp'], ({ vsp }) => {
  it("cuts VSP's own templates where the runners do: legend, worked map, examples before the final line, text-only forms", async () => {
    const { items, context } = await importVsp(vsp);
    const item = items.find((i) => i.id === 'maze-main/4/0')!;
    const [p] = buildVspPrompts(item, settings({ shots: 2, seed: 7 }), context);
    const ex = (p.meta!.examples as number[]).map((i) => `maze/task-main/example/level4/img/${i}.png`);
    expect(images(p.parts, vsp)).toEqual(['maze/task-main/prompt-visual-images/system-figure-1.png', 'maze/task-main/prompt-visual-images/system-figure-2.png', ...ex, 'maze/task-main/maps/level4/img/0.png']);
    const t = text(p.parts);
    expect(t).toContain('<PLAN>');
    expect(t.indexOf('## Example:\n<IMG><Interpret>')).toBeGreaterThan(t.indexOf('Do not output any extra content'));
    expect(t.trimEnd().endsWith('Please generate action plan for the following maze:\n\n<IMG>')).toBe(true);
    const [, pure] = buildVspPrompts(item, settings({ variants: ['image', 'pure_text'] }), context);
    expect(text(pure.parts)).not.toContain('The following figure shows how the player');
    expect(text(pure.parts)).toContain('Example Input: This is a 4x4 map.\nThe player is at: row 1, column 1;');
    const t4 = items.find((i) => i.id === 'maze-t4/step3/0')!;
    expect(text(buildVspPrompts(t4, settings(), context)[0].parts).trimEnd().endsWith(`The action sequence is:\n\n${[...t4.truth.moves!].map((m) => ({ L: 'Left', R: 'Right', U: 'Up', D: 'Down' })[m]).join(', ')}`)).toBe(true);
  }, 120_000);
});
