import { describe, expect, it } from 'vitest';
import { optionLetter } from '../../src/formats/prompts.js';
import { buildItemPrompts, rotations, resolveTemplates, DEFAULT_TEMPLATES, fillTemplate, promptKey, canonicalJson } from '../../src/prompts/index.js';
import { sampleItems } from './fixtures.js';

const ctx = { templates: DEFAULT_TEMPLATES, image: '/data/x.jpg', imageSha256: 'a'.repeat(64) };

describe('rotations', () => {
  it('gives k cyclic rotations in which every option takes every position once', () => {
    const r = rotations(4);
    expect(r).toEqual([[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]);
    for (let pos = 0; pos < 4; pos++) expect(new Set(r.map((p) => p[pos])).size).toBe(4);
    expect(rotations(2)).toEqual([[0, 1], [1, 0]]);
  });
  it('uses the first N rotations with --permutations N and refuses out-of-range counts', () => {
    expect(rotations(4, 2)).toEqual([[0, 1, 2, 3], [1, 2, 3, 0]]);
    expect(() => rotations(4, 5)).toThrow(/between 1 and 4/);
    expect(() => rotations(4, 0)).toThrow(/between 1 and 4/);
  });
  it('letters options A, B, C, D', () => {
    expect([0, 1, 2, 3].map(optionLetter)).toEqual(['A', 'B', 'C', 'D']);
  });
});

describe('MC and TG prompts', () => {
  const [onItem] = sampleItems();
  const twoOptions = sampleItems().find((i) => i.id === 'coco-two-2')!;

  it('MC: letters A-D, one prompt per rotation, expected letter follows the correct caption', () => {
    const prompts = buildItemPrompts({ ...onItem, answer: 2 }, 'mc', ctx);
    expect(prompts).toHaveLength(4);
    for (const p of prompts) {
      expect(p.text).toMatch(/^A\. .*\nB\. .*\nC\. .*\nD\. /m);
      expect(p.options[p.answer_index!]).toBe(onItem.options[2]);
      expect(p.expected).toBe('ABCD'[p.answer_index!]);
      expect(p.text).toContain(`${p.expected}. ${onItem.options[2]}`);
      expect(p.permutation.map((i) => onItem.options[i])).toEqual(p.options);
    }
    expect(prompts.map((p) => p.expected)).toEqual(['C', 'B', 'A', 'D']);
    expect(prompts.map((p) => p.rotation)).toEqual([0, 1, 2, 3]);
  });

  it('MC: two-caption items get A-B only', () => {
    const prompts = buildItemPrompts(twoOptions, 'mc', ctx);
    expect(prompts).toHaveLength(2);
    expect(prompts[0].text).toContain('A. A can to the right of a bench\nB. A can to the left of a bench');
    expect(prompts[0].text).not.toMatch(/^C\./m);
    expect(prompts.map((p) => p.expected)).toEqual(['A', 'B']);
  });

  it('TG: lists the options as templates and expects the caption itself', () => {
    const prompts = buildItemPrompts(onItem, 'tg', ctx);
    expect(prompts).toHaveLength(4);
    for (const p of prompts) {
      expect(p.expected).toBe('A mug on a table');
      for (const o of p.options) expect(p.text).toContain(`- ${o}`);
      expect(p.text).not.toMatch(/^A\. /m);
    }
  });

  it('--permutations limits rotations, capped at the option count', () => {
    expect(buildItemPrompts(onItem, 'mc', { ...ctx, permutations: 1 })).toHaveLength(1);
    expect(buildItemPrompts(twoOptions, 'mc', { ...ctx, permutations: 4 })).toHaveLength(2);
  });
});

describe('grounding prompts', () => {
  it('asks once per role with the noun as phrase', () => {
    const item = sampleItems()[0];
    const prompts = buildItemPrompts(item, 'grounding', ctx);
    expect(prompts.map((p) => [p.role, p.phrase, p.text])).toEqual([
      ['subject', 'mug', 'Give me the bounding box coordinates for the mug.'],
      ['object', 'table', 'Give me the bounding box coordinates for the table.'],
    ]);
    expect(prompts.every((p) => p.permutation.length === 0 && p.options.length === 0 && p.expected === undefined)).toBe(true);
    expect(new Set(prompts.map((p) => p.key)).size).toBe(2);
  });
  it('asks for the subject only on one-object items', () => {
    const one = sampleItems().find((i) => i.object === null)!;
    expect(buildItemPrompts(one, 'grounding', ctx).map((p) => p.role)).toEqual(['subject']);
  });
});

describe('prompt keys', () => {
  const item = sampleItems()[0];
  it('are stable and differ between rotations, tasks and items', () => {
    const a = buildItemPrompts(item, 'mc', ctx);
    const b = buildItemPrompts(item, 'mc', ctx);
    expect(a.map((p) => p.key)).toEqual(b.map((p) => p.key));
    const keys = new Set([...a, ...buildItemPrompts(item, 'tg', ctx), ...buildItemPrompts({ ...item, id: 'other' }, 'mc', ctx)].map((p) => p.key));
    expect(keys.size).toBe(12);
    expect(a[0].key).toMatch(/^[0-9a-f]{64}$/);
  });
  it('follow the image content, not its path', () => {
    const k = buildItemPrompts(item, 'mc', ctx)[0].key;
    expect(buildItemPrompts(item, 'mc', { ...ctx, image: '/elsewhere/y.jpg' })[0].key).toBe(k);
    expect(buildItemPrompts(item, 'mc', { ...ctx, imageSha256: 'b'.repeat(64) })[0].key).not.toBe(k);
  });
  it('follow the template text', () => {
    const t = resolveTemplates({ mc: 'Pick one:\n{options}' }, undefined, 't.yaml');
    expect(buildItemPrompts(item, 'mc', { ...ctx, templates: t })[0].key).not.toBe(buildItemPrompts(item, 'mc', ctx)[0].key);
  });
  it('hash canonical JSON (key order does not matter)', () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe('{"a":[1,{"c":3,"d":2}],"b":1}');
    const input = { item: 'i', task: 'mc', text: 't', options: ['x'], permutation: [0], rotation: 0, image_sha256: 'f' };
    expect(promptKey(input)).toBe(promptKey({ image_sha256: 'f', rotation: 0, permutation: [0], options: ['x'], text: 't', task: 'mc', item: 'i' }));
  });
});

describe('templates', () => {
  it('override per model over file-wide over defaults', () => {
    const file = { grounding: 'Box the {object}.', models: { qwen: { grounding: 'Locate {object} and give bbox_2d.' } } };
    expect(resolveTemplates(file, undefined, 'f').grounding).toBe('Box the {object}.');
    expect(resolveTemplates(file, 'qwen', 'f').grounding).toBe('Locate {object} and give bbox_2d.');
    expect(resolveTemplates(file, 'qwen', 'f').mc).toBe(DEFAULT_TEMPLATES.mc);
  });
  it('reject unknown placeholders, unknown fields and unknown models, naming the file', () => {
    expect(() => resolveTemplates({ grounding: 'Box the {thing}.' }, undefined, 'my.yaml')).toThrow(/my\.yaml: template "grounding" uses unknown placeholder \{thing\}/);
    expect(() => resolveTemplates({ grnding: 'x' }, undefined, 'my.yaml')).toThrow(/my\.yaml: invalid template file/);
    expect(() => resolveTemplates({ models: { a: {} } }, 'b', 'my.yaml')).toThrow(/no templates for model "b"/);
  });
  it('fill placeholders without re-expanding inserted text', () => {
    expect(fillTemplate('{a} and {b}', { a: '{b}', b: 'x' })).toBe('{b} and x');
  });
});
