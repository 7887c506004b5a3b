import { describe, expect, it } from 'vitest';
import { answerText } from '../../src/mllm/types.js';
import { parseCaptionRelation } from '../../src/datasets/caption.js';
import { chooseCaption, type SceneGeometry, type Xyxy } from '../../src/mllm/baselines/geometry-reasoner.js';
import { createGeometricAnswerer, createAlwaysFirstAnswerer, createRandomAnswerer } from '../../src/mllm/baselines/answerers.js';
import type { CocoFile } from '../../src/formats/coco.js';
import type { PromptRecord } from '../../src/formats/prompts.js';
import { seededRandom } from '../../src/util/random.js';

/** Seeded PRNG so the scenes are reproducible. */
const rng = seededRandom;

const W = 640;
const H = 480;
type Rel = 'left' | 'right' | 'on' | 'under' | 'front' | 'behind';

/** A plausible scene for a relation: objects standing on a floor line, a table spanning to the floor. */
function scene(rel: Rel, r: () => number): SceneGeometry {
  const floor = 380 + r() * 80;
  const sw = 50 + r() * 60, sh = 50 + r() * 60;
  const ow = 120 + r() * 120, oh = 100 + r() * 100;
  const ox = 160 + r() * 200;
  const obj: Xyxy = [ox, floor - oh, ox + ow, floor];
  const dObj = 2 + r() * 2;
  let sub: Xyxy;
  let dSub = dObj * (0.95 + r() * 0.1);
  if (rel === 'left' || rel === 'right') {
    const gap = 5 + r() * 40;
    const sx = rel === 'left' ? ox - gap - sw : ox + ow + gap;
    const sFloor = floor - 10 + r() * 20;
    sub = [sx, sFloor - sh, sx + sw, sFloor];
  } else if (rel === 'on') {
    const sx = ox + r() * (ow - sw);
    const top = floor - oh + r() * 6;
    sub = [sx, top - sh, sx + sw, top];
  } else if (rel === 'under') {
    const sx = ox + r() * (ow - sw);
    const h = Math.min(sh, oh * 0.6);
    sub = [sx, floor - h, sx + sw, floor];
  } else {
    const front = rel === 'front';
    dSub = dObj * (front ? 0.6 + r() * 0.25 : 1.2 + r() * 0.4);
    const sx = ox + (r() - 0.5) * ow * 0.6 + ow / 2 - sw / 2;
    const sFloor = floor + (front ? 10 + r() * 20 : -10 - r() * 20);
    sub = [sx, sFloor - sh, sx + sw, sFloor];
  }
  return { width: W, height: H, subject: { box: sub, distance: dSub }, object: { box: obj, distance: dObj } };
}

const CAPTION: Record<Rel, (s: string, o: string) => string> = {
  left: (s, o) => `A ${s} to the left of a ${o}`,
  right: (s, o) => `A ${s} to the right of a ${o}`,
  on: (s, o) => `A ${s} on a ${o}`,
  under: (s, o) => `A ${s} under a ${o}`,
  front: (s, o) => `A ${s} in front of a ${o}`,
  behind: (s, o) => `A ${s} behind a ${o}`,
};
const SUBSET_A: Rel[] = ['on', 'under', 'left', 'right'];
const SUBSET_B: Rel[] = ['front', 'behind', 'left', 'right'];

/** CircularEval of the reasoner: correct only if every rotation of the options is answered right. */
function circularAccuracy(relations: Rel[], n: number, seed: number): number {
  const r = rng(seed);
  let correct = 0;
  for (let i = 0; i < n; i++) {
    const truth = relations[i % relations.length];
    const sc = scene(truth, r);
    const captions = [truth, ...relations.filter((x) => x !== truth)].map((rel) => CAPTION[rel]('mug', 'table'));
    let all = true;
    for (let k = 0; k < captions.length; k++) {
      const shown = captions.map((_, j) => captions[(j + k) % captions.length]);
      const choice = chooseCaption(sc, shown, 'mug', 'table');
      if (shown[choice.index] !== captions[0]) all = false;
    }
    if (all) correct++;
  }
  return correct / n;
}

describe('caption relations', () => {
  it('reads the What\'sUp caption shapes', () => {
    expect(parseCaptionRelation('A mug to the left of a table', 'mug', 'table')).toEqual({ relation: 'left', swapped: false });
    expect(parseCaptionRelation('A mug in front of a plate', 'mug', 'plate')?.relation).toBe('front');
    expect(parseCaptionRelation('A mug behind a plate', 'mug', 'plate')?.relation).toBe('behind');
    expect(parseCaptionRelation('A mug on a table', 'mug', 'table')?.relation).toBe('on');
    expect(parseCaptionRelation('A mug under a table', 'mug', 'table')?.relation).toBe('under');
    expect(parseCaptionRelation('A person on the left', 'person', null)?.relation).toBe('left');
    expect(parseCaptionRelation('An umpire on the right', 'umpire', null)?.relation).toBe('right');
    expect(parseCaptionRelation('A table under a mug', 'mug', 'table')).toEqual({ relation: 'under', swapped: true });
    expect(parseCaptionRelation('A mug near a table', 'mug', 'table')).toBeNull();
  });
});

describe('geometric reasoner', () => {
  it('reaches >= 95% CircularEval on exact synthetic Subset-A-like scenes', () => {
    expect(circularAccuracy(SUBSET_A, 400, 1)).toBeGreaterThanOrEqual(0.95);
  });
  it('reaches >= 95% CircularEval on exact synthetic Subset-B-like scenes (depth)', () => {
    expect(circularAccuracy(SUBSET_B, 400, 2)).toBeGreaterThanOrEqual(0.95);
  });
  it('is near chance when the boxes are shuffled between scenes (it really uses the geometry)', () => {
    const r = rng(3);
    let correct = 0;
    const n = 400;
    for (let i = 0; i < n; i++) {
      const truth = SUBSET_A[i % 4];
      const other = scene(SUBSET_A[(i + 1 + Math.floor(r() * 3)) % 4], r);
      const captions = [truth, ...SUBSET_A.filter((x) => x !== truth)].map((rel) => CAPTION[rel]('mug', 'table'));
      if (chooseCaption(other, captions, 'mug', 'table').index === 0) correct++;
    }
    expect(correct / n).toBeLessThan(0.2);
  });
  it('judges one-object items by image position', () => {
    const sc: SceneGeometry = { width: 640, height: 480, subject: { box: [20, 100, 120, 300] }, object: null };
    expect(chooseCaption(sc, ['A person on the right', 'A person on the left'], 'person', null).index).toBe(1);
  });
  it('follows the stated depth direction (larger = nearer for relative inverse depth)', () => {
    const coco = cocoFor([100, 100, 80, 80], [110, 90, 100, 90], { subject: 5, object: 2 }, 'nearer');
    const answerer = createGeometricAnswerer('geometric', coco, 'llava');
    const prompt = promptFor('mc', ['A mug behind a plate', 'A mug in front of a plate']);
    return expect(answerer.answer(prompt, new AbortController().signal)).resolves.toBe('B');
  });
});

function cocoFor(sub: [number, number, number, number], obj: [number, number, number, number], depth: { subject: number; object: number }, larger: 'farther' | 'nearer'): CocoFile {
  const d = (v: number) => ({ median: v, mean: v, p10: v, p90: v, unit: larger === 'nearer' ? ('relative-inverse' as const) : ('m' as const), region: 'box' as const });
  return {
    info: { tool: 't', version: '0', date_created: '', source: 'exact-synthetic', depth: { unit: 'relative-inverse', scale: 1, larger } },
    images: [{ id: 1, file_name: 'a.png', width: 400, height: 300, item_id: 'it1' }],
    annotations: [
      { id: 1, image_id: 1, category_id: 1, bbox: sub, area: 1, iscrowd: 0, role: 'subject', phrase: 'mug', score: 1, depth: d(depth.subject) },
      { id: 2, image_id: 1, category_id: 2, bbox: obj, area: 1, iscrowd: 0, role: 'object', phrase: 'plate', score: 1, depth: d(depth.object) },
    ],
    categories: [{ id: 1, name: 'mug' }, { id: 2, name: 'plate' }],
  };
}

function promptFor(task: PromptRecord['task'], options: string[], extra: Partial<PromptRecord> = {}): PromptRecord {
  return { key: `k-${task}-${options.join('|')}`, item: 'it1', split: 'synthetic', relation: 'x', task, permutation: options.map((_, i) => i), rotation: 0, image: '/x.png', text: '', options, ...extra };
}

describe('baseline answerers', () => {
  const signal = new AbortController().signal;
  const coco = cocoFor([100, 100, 80, 80], [110, 90, 100, 90], { subject: 2, object: 5 }, 'farther');
  it('geometric answers TG with the caption, MC and DAP-on-MC with a letter, grounding with the annotated box', async () => {
    const a = createGeometricAnswerer('geometric', coco, 'llava');
    const opts = ['A mug behind a plate', 'A mug in front of a plate'];
    expect(await a.answer(promptFor('tg', opts), signal)).toBe('A mug in front of a plate');
    expect(await a.answer(promptFor('mc', opts), signal)).toBe('B');
    expect(await a.answer(promptFor('dap', opts, { base_task: 'mc' }), signal)).toBe('B');
    expect(await a.answer(promptFor('grounding', [], { role: 'object', phrase: 'plate' }), signal)).toBe('[0.275, 0.3, 0.525, 0.6]');
    const grid = createGeometricAnswerer('geometric', coco, 'qwen2-vl');
    expect(await grid.answer(promptFor('grounding', [], { role: 'subject', phrase: 'mug' }), signal)).toBe('<|box_start|>(250,333),(450,600)<|box_end|>');
  });
  it('geometric fails (does not guess) for an item it has no annotations for', async () => {
    const a = createGeometricAnswerer('geometric', coco, 'llava');
    await expect(a.answer({ ...promptFor('mc', ['A mug on a plate', 'A mug under a plate']), item: 'nope' }, signal)).rejects.toThrow(/^no annotations for the item: nope$/);
  });
  it('random is seeded per prompt key and covers the options; always-first picks the first', async () => {
    const r1 = createRandomAnswerer('random', 7);
    const r2 = createRandomAnswerer('random', 7);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const p = { ...promptFor('mc', ['w', 'x', 'y', 'z']), key: `key${i}` };
      const x = answerText(await r1.answer(p, signal));
      expect(answerText(await r2.answer(p, signal))).toBe(x);
      seen.add(x);
    }
    expect([...seen].sort()).toEqual(['A', 'B', 'C', 'D']);
    const f = createAlwaysFirstAnswerer('always-first');
    expect(await f.answer(promptFor('tg', ['one', 'two']), signal)).toBe('one');
    expect(await f.answer(promptFor('grounding', []), signal)).toBe('<|box_start|>(0,0),(1000,1000)<|box_end|>');
  });
});
