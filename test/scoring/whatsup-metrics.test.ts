/**
 * What'sUp's own Controlled A / B metrics against the What'sUp repository's `evaluate_scores`, run by
 * test/fixtures/scoring/make_whatsup_metrics_reference.py on synthetic files in the official layout.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PromptRecord } from '../../src/formats/prompts.js';
import { scoreReasoning } from '../../src/scoring/reasoning.js';
import { CONFUSION_WORDS, controlledPass, type ControlledPass } from '../../src/scoring/whatsup-metrics.js';
import { describeShared } from '../helpers/shared.js';
import { response } from './fixtures.js';

interface Dataset {
  subset: 'A' | 'B';
  records: Array<{ image_path: string; caption_options: string[] }>;
}
interface RefCase {
  name: string;
  dataset: string;
  scores?: number[][];
  preds: number[];
  individual: number;
  pair: number;
  set: number;
  prep_counts: Record<string, Record<string, number>>;
  prepositions: Array<{ preposition: string; accuracy: number; count: number }>;
}
const REF = JSON.parse(readFileSync(new URL('../fixtures/scoring/whatsup-metrics-reference.json', import.meta.url), 'utf8')) as {
  datasets: Record<string, Dataset>;
  cases: RefCase[];
};

// The reference's per-preposition labels in this project's relation names.
const LABEL: Record<string, string> = { left_of: 'left', right_of: 'right', on: 'on', under: 'under', 'in-front_of': 'front', behind: 'behind' };
const SPLIT = { A: 'whatsup-a', B: 'whatsup-b' } as const;
const fileOf = (path: string) => path.split('/').pop()!;

/** Every number of one pass equals the reference's (pair and set: it computes percentages). */
function expectReference(got: ControlledPass, ref: RefCase): void {
  expect(got.n).toBe(ref.preds.length);
  expect(got.individual).toBeCloseTo(ref.individual, 12);
  expect(got.pair).toBeCloseTo(ref.pair / 100, 12);
  expect(got.set).toBeCloseTo(ref.set / 100, 12);
  expect(Object.keys(got.prepositions).sort()).toEqual(ref.prepositions.map((p) => LABEL[p.preposition]).sort());
  for (const p of ref.prepositions) {
    expect(got.prepositions[LABEL[p.preposition]].n).toBe(p.count);
    expect(got.prepositions[LABEL[p.preposition]].accuracy).toBeCloseTo(p.accuracy, 12);
  }
  for (const gold of CONFUSION_WORDS) {
    for (const chosen of CONFUSION_WORDS) expect(got.confusion[gold][chosen], `${ref.name}: ${gold} -> ${chosen}`).toBe(ref.prep_counts[gold][chosen]);
    expect(got.confusion[gold].none).toBe(0);
  }
  expect(got.confusion_skipped).toBe(0);
}

/** The dataset as prompts of one rotation (shown position i holds original option (i + r) mod 4). */
function prompts(name: string, task: 'tg' | 'mc', rotation: number): PromptRecord[] {
  const ds = REF.datasets[name];
  return ds.records.map((rec, i) => {
    const permutation = [0, 1, 2, 3].map((p) => (p + rotation) % 4);
    const options = permutation.map((o) => rec.caption_options[o]);
    const answerIndex = permutation.indexOf(0);
    return {
      key: `${name}#${i}#${task}#${rotation}`,
      item: `${SPLIT[ds.subset]}/${i}`,
      split: SPLIT[ds.subset],
      relation: 'left',
      task,
      permutation,
      rotation,
      image: `/data/${rec.image_path}`,
      text: 'Which caption describes the image?',
      options,
      expected: task === 'mc' ? String.fromCharCode(65 + answerIndex) : options[answerIndex],
      answer_index: answerIndex,
    };
  });
}

/** A model answering the reference's choice (an original option index) for each prompt. */
function answers(ps: PromptRecord[], preds: number[], task: 'tg' | 'mc') {
  return ps.map((p, i) => {
    const shown = p.permutation.indexOf(preds[i]);
    return response(p.key, task === 'mc' ? `(${String.fromCharCode(65 + shown)})` : p.options[shown]);
  });
}

describe("What'sUp's own metrics equal evaluate_scores", () => {
  it('the fixture covers Controlled A and B, every pair pattern, ties and ragged files', () => {
    const names = REF.cases.map((c) => c.name);
    expect(REF.cases.length).toBeGreaterThanOrEqual(25);
    for (const n of ['a-like random', 'b-like random', 'a-like all right', 'b-like all wrong', 'patterns-a every pattern', 'patterns-b ties', 'ragged-a random']) expect(names).toContain(n);
  });

  it('argmax takes the first of tied scores, as the reference does', () => {
    const withScores = REF.cases.filter((c) => c.scores);
    expect(withScores.length).toBeGreaterThan(5);
    for (const c of withScores) expect(c.scores!.map((row) => row.indexOf(Math.max(...row)))).toEqual(c.preds);
  });

  for (const c of REF.cases) {
    it(`${c.name}: one pass`, () => {
      const ds = REF.datasets[c.dataset];
      const got = controlledPass(
        ds.subset,
        ds.records.map((rec, i) => ({ file: fileOf(rec.image_path), correct: c.preds[i] === 0, chosen: rec.caption_options[c.preds[i]], gold: rec.caption_options[0] })),
      );
      expectReference(got, c);
    });
  }

  for (const task of ['tg', 'mc'] as const) {
    it(`${task.toUpperCase()} answers through scoreReasoning give the same numbers (shown options rotated)`, () => {
      for (const c of REF.cases) {
        const ps = prompts(c.dataset, task, task === 'mc' ? 1 : 0);
        const { result } = scoreReasoning(ps, answers(ps, c.preds, task));
        const m = result.whatsup![SPLIT[REF.datasets[c.dataset].subset]];
        expect(m.passes).toBe(1);
        expectReference(m.by_pass[0], c);
        expect(m.individual).toBe(m.by_pass[0].individual);
      }
    });
  }

  it('four rotations are four passes: each equals its reference case, the summary is their mean, circular is all-right', () => {
    for (const ds of ['a-like', 'b-like']) {
      const cases = REF.cases.filter((c) => c.dataset === ds && /random/.test(c.name));
      expect(cases).toHaveLength(4);
      const ps = cases.flatMap((_, r) => prompts(ds, 'tg', r));
      const rs = cases.flatMap((c, r) => answers(ps.filter((p) => p.rotation === r), c.preds, 'tg'));
      const { result } = scoreReasoning(ps, rs);
      const split = SPLIT[REF.datasets[ds].subset];
      const m = result.whatsup![split];
      expect(m.passes).toBe(4);
      expect(m.n).toBe(REF.datasets[ds].records.length);
      cases.forEach((c, r) => {
        expect(m.by_pass[r].rotation).toBe(r);
        expectReference(m.by_pass[r], c);
      });
      const mean = (f: (c: RefCase) => number) => cases.reduce((s, c) => s + f(c), 0) / 4;
      expect(m.individual).toBeCloseTo(mean((c) => c.individual), 12);
      expect(m.pair).toBeCloseTo(mean((c) => c.pair) / 100, 12);
      expect(m.set).toBeCloseTo(mean((c) => c.set) / 100, 12);
      for (const gold of CONFUSION_WORDS) for (const w of CONFUSION_WORDS) expect(m.confusion[gold][w]).toBe(cases.reduce((s, c) => s + c.prep_counts[gold][w], 0));
      // Circular individual accuracy is CircularEval's; pair and set use the all-rotations-right mask.
      expect(m.circular.individual).toBeCloseTo(result.splits[split].circular!, 12);
      const allRight = REF.datasets[ds].records.map((_, i) => cases.every((c) => c.preds[i] === 0));
      const pass = controlledPass(REF.datasets[ds].subset, REF.datasets[ds].records.map((rec, i) => ({ file: fileOf(rec.image_path), correct: allRight[i], chosen: null, gold: '' })));
      expect(m.circular).toEqual({ individual: pass.individual, pair: pass.pair, set: pass.set });
    }
  });
});

describe("What'sUp metrics: answers that were not read", () => {
  const ds = REF.datasets['patterns-a'];
  const ps = prompts('patterns-a', 'tg', 0);

  it('an unreadable, failed or missing answer is wrong, counted as unparsed and in the `none` column', () => {
    const rs = ps.map((p) => response(p.key, p.options[p.answer_index!]));
    rs[0] = response(ps[0].key, 'I cannot tell from this picture.');
    rs[5] = response(ps[5].key, '', { status: 'failed', error: 'HTTP 500' });
    rs.splice(9, 1); // no response for prompt 9
    const { result } = scoreReasoning(ps, rs);
    const m = result.whatsup!['whatsup-a'].by_pass[0];
    expect(m.unparsed).toBe(3);
    expect(m.individual).toBeCloseTo((ds.records.length - 3) / ds.records.length, 12);
    const gold = (i: number) => (['on', 'under', 'left', 'right'] as const)[i % 4];
    const none = { on: 0, under: 0, left: 0, right: 0 };
    for (const i of [0, 5, 9]) none[gold(i)]++;
    for (const g of ['on', 'under', 'left', 'right'] as const) {
      expect(m.confusion[g].none).toBe(none[g]);
      expect(m.confusion[g][g]).toBe(16 - none[g]);
    }
    // Prompts 0, 5 and 9 are in object pairs 0, 1 and 2: their sets fail, and one pair each.
    expect(m.set).toBeCloseTo(13 / 16, 12);
    expect(m.pair).toBeCloseTo(29 / 32, 12);
  });

  it('a caption naming none or several of the six words is left out of the confusion counts only', () => {
    const odd = ps.slice(0, 4).map((p, i) => (i === 0 ? { ...p, options: p.options.map((o, j) => (j === p.answer_index ? 'A cup on the left of a table' : o)) } : p));
    const { result } = scoreReasoning(odd, odd.map((p) => response(p.key, p.options[p.answer_index!])));
    const m = result.whatsup!['whatsup-a'].by_pass[0];
    expect(m.individual).toBe(1);
    expect(m.confusion_skipped).toBe(1);
    expect(CONFUSION_WORDS.reduce((s, g) => s + CONFUSION_WORDS.reduce((t, w) => t + m.confusion[g][w], 0), 0)).toBe(3);
  });

  it('splits other than Controlled A and B get none', () => {
    const other = ps.map((p) => ({ ...p, split: 'coco-two' }));
    expect(scoreReasoning(other, other.map((p) => response(p.key, p.options[0]))).result.whatsup).toBeUndefined();
  });
});

describeShared("What'sUp metrics on the real Subset A records", ['whatsupSubsetA'], ({ whatsupSubsetA: dir }) => {
  it('the 412 file names form 103 object pairs of four relations, 103 per relation', () => {
    const records = JSON.parse(readFileSync(join(dir, 'controlled_images_dataset.json'), 'utf8')) as Array<{ image_path: string; caption_options: string[] }>;
    const pass = controlledPass('A', records.map((r) => ({ file: fileOf(r.image_path), correct: true, chosen: r.caption_options[0], gold: r.caption_options[0] })));
    expect(pass).toMatchObject({ n: 412, groups: 103, complete_groups: 103, individual: 1, pair: 1, set: 1, confusion_skipped: 0 });
    for (const rel of ['on', 'under', 'left', 'right']) expect(pass.prepositions[rel]).toEqual({ n: 103, accuracy: 1 });
    for (const g of ['on', 'under', 'left', 'right'] as const) expect(pass.confusion[g][g]).toBe(103);
  });
});
