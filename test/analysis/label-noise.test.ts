/**
 * The pseudo-label error budget on cases with a known answer: labels equal to the truth give zero
 * bias everywhere; labels with a known share of wrong boxes move a perfect model's G-Score by
 * exactly that share; the annotator sweep's annotators hit their targets; `gsr analyze label-noise`
 * reads scored results folders and says the same.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotatorHitRate, annotatorSweep, gScorePair, labelNoise, perturbedLabels, type SweepModel } from '../../src/analysis/label-noise.js';
import { truthBoxes } from '../../src/analysis/relabel.js';
import type { GroundingItemRecord, ModelResults } from '../../src/analysis/results-types.js';
import type { CocoFile } from '../../src/formats/coco.js';
import { boxIou, type Box } from '../../src/geometry/boxes.js';
import { simulatedBox } from '../../src/mllm/baselines/simulated.js';
import { formatBox } from '../../src/mllm/baselines/answer-text.js';
import { scoreGrounding, writeGroundingResults } from '../../src/scoring/index.js';
import { keyedUniform } from '../../src/util/random.js';
import { runCli } from '../helpers/cli.js';

const W = 640;
const H = 480;
const ITEMS = 60;

/** Exact labels: a subject and an object box per item, placed by a seeded draw. */
function truthFile(): CocoFile {
  const images = Array.from({ length: ITEMS }, (_, i) => ({ id: i + 1, file_name: `images/s${i}.jpg`, width: W, height: H, item_id: `s${i}`, split: 'synthetic' }));
  const annotations = images.flatMap((im, k) =>
    (['subject', 'object'] as const).map((role, r) => {
      const u = (p: string) => keyedUniform(7, im.item_id, role, p);
      const [w, h] = [60 + 120 * u('w'), 50 + 100 * u('h')];
      const [x, y] = [u('x') * (W - w), u('y') * (H - h)];
      return { id: 2 * k + r + 1, image_id: im.id, category_id: 1, bbox: [x, y, w, h], area: w * h, iscrowd: 0 as const, role, phrase: role === 'subject' ? 'mug' : 'table', score: 1 };
    }),
  );
  return { info: {}, images, annotations, categories: [{ id: 1, name: 'thing' }] } as unknown as CocoFile;
}

const truth = truthFile();
const exact = truthBoxes(truth);
/** Simulated answerers: true G-Score targets, reasoning exactly linear in them. */
const TARGETS = [0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95];

function modelBoxes(target: number, name: string): Map<string, Box> {
  const out = new Map<string, Box>();
  for (const [key, box] of exact) {
    const [item, role] = key.split('/') as [string, string];
    out.set(key, simulatedBox(box as [number, number, number, number], keyedUniform(3, name, item) < target, 3, item, role, W, H));
  }
  return out;
}

function itemsAgainst(boxes: Map<string, Box>, labels: Map<string, Box>): GroundingItemRecord[] {
  return [...labels].map(([key, gt]) => {
    const [item, role] = key.split('/') as [string, string];
    const box = boxes.get(key)!;
    return { item, split: 'synthetic', role, box, gt, iou: boxIou(box, gt), hit: boxIou(box, gt) >= 0.5 };
  });
}

function results(model: string, y: number, items: GroundingItemRecord[]): ModelResults {
  return {
    model,
    dir: model,
    reasoning: [{ variant: '', summary: { model, splits: { synthetic: { circular: y, vanilla: y } }, total_average: { circular: y, vanilla: y } } as never, items: null }],
    grounding: null,
    groundingOutcomes: items.map((i) => ({ item: i.item, split: i.split, role: i.role, hit: i.hit })),
    warnings: [],
  };
}

const models = TARGETS.map((t, i) => {
  const name = `sim-${i}`;
  const boxes = modelBoxes(t, name);
  const truthItems = itemsAgainst(boxes, exact);
  const g = truthItems.filter((r) => r.hit).length / truthItems.length;
  return { name, boxes, truthItems, y: 0.3 + 0.5 * g };
});

describe('labelNoise', () => {
  it('perfect labels give zero bias: every G-Score difference is 0 with a zero interval, and the same fit both ways', () => {
    const side = models.map((m) => results(m.name, m.y, m.truthItems));
    const r = labelNoise(side, side, { y: 'reasoning:synthetic:circular', x: 'grounding:synthetic/subject', resamples: 200 });
    expect(r.models).toHaveLength(TARGETS.length);
    for (const m of r.models) {
      for (const g of Object.values(m.g_score)) {
        expect(g.pseudo).toBe(g.truth);
        expect([g.difference!.estimate, g.difference!.low, g.difference!.high, g.objects.flipped]).toEqual([0, 0, 0, 0]);
      }
    }
    expect(r.regression.pseudo).toEqual(r.regression.truth);
    expect(r.regression.pseudo!.slope).toBeGreaterThan(0);
    expect(r.regression.same_conclusion).toBe(true);
  });

  it('labels with a known share of wrong boxes move a perfect model by exactly that share', () => {
    // Every fourth item's subject label is moved off its object (IoU 0).
    const labels = new Map(exact);
    let moved = 0;
    [...exact.keys()].filter((k) => k.endsWith('/subject')).forEach((k, i) => {
      if (i % 4 !== 0) return;
      const b = exact.get(k)!;
      labels.set(k, b[0] > W / 2 ? [0, 0, 10, 10] : [W - 10, H - 10, W, H]);
      moved++;
    });
    const perfect = itemsAgainst(exact, exact);
    const pair = gScorePair(itemsAgainst(exact, labels), perfect, 'synthetic/subject', 500, 1);
    expect(pair.truth).toBe(1);
    expect(pair.pseudo).toBeCloseTo(1 - moved / ITEMS, 12);
    expect(pair.difference!.estimate).toBeCloseTo(-moved / ITEMS, 12);
    expect(pair.difference!.low).toBeLessThan(pair.difference!.estimate);
    expect(pair.difference!.high).toBeGreaterThan(pair.difference!.estimate);
    expect(pair.objects.flipped).toBe(moved);
    expect(annotatorHitRate(labels, exact)).toEqual({ objects: 2 * ITEMS, hits: 2 * ITEMS - moved, hit_rate: (2 * ITEMS - moved) / (2 * ITEMS) });
  });

  it('DAP both ways: paired items and McNemar from the two dap variants', () => {
    const dapItems = (right: boolean[]) => right.map((c, i) => ({ item: `s${i}`, split: 'synthetic', relation: 'front', rotations: 4, right: c ? 4 : 0, options: 4, circular: c, vanilla: c ? 1 : 0, first: c, unparsed: false }));
    const withDap = (r: ModelResults, right: boolean[]): ModelResults => ({ ...r, reasoning: [...r.reasoning, { variant: 'dap', summary: null, items: dapItems(right) }] });
    const base = results('m', 0.5, models[0]!.truthItems);
    const p = withDap(base, [true, true, false, false, true, false]);
    const t = withDap(base, [true, true, true, true, true, false]);
    const [row] = labelNoise([p], [t], { y: 'reasoning:synthetic:circular', x: 'grounding:avg', resamples: 50 }).dap;
    expect(row).toMatchObject({ pseudo: { n: 6, circular: 0.5 }, truth: { n: 6, circular: 5 / 6 }, paired: { n: 6, mcnemar: { b: 0, c: 2 } } });
  });
});

describe('the annotator sweep', () => {
  it('perturbed annotators reach their target hit rates, and a box-for-box copy at quality 1 is never a miss', () => {
    expect(annotatorHitRate(perturbedLabels(truth, 1, 0), exact).hit_rate).toBe(1);
    expect(annotatorHitRate(perturbedLabels(truth, 0, 0), exact).hit_rate).toBe(0);
    const rates = [0, 1, 2, 3, 4, 5].map((s) => annotatorHitRate(perturbedLabels(truth, 0.6, s), exact).hit_rate!);
    expect(Math.abs(rates.reduce((a, b) => a + b) / rates.length - 0.6)).toBeLessThan(0.05);
    // Seeded: the same draw twice.
    expect([...perturbedLabels(truth, 0.6, 3)]).toEqual([...perturbedLabels(truth, 0.6, 3)]);
  });

  it('keeps a strong effect at good quality and loses it when the labels are mostly wrong', () => {
    const sm: SweepModel[] = models.map((m) => ({ model: m.name, y: m.y, items: m.truthItems }));
    const s = annotatorSweep(truth, sm, { x: 'grounding:synthetic/subject', y: 'reasoning:synthetic:circular', qualities: [1, 0.05], draws: 20 });
    const [exactRow, q1, q005] = s.rows;
    expect(exactRow).toMatchObject({ quality: null, draws: 1, conclusion: 1 });
    expect(q1).toMatchObject({ quality: 1, draws: 20 });
    expect(q1!.hit_rate.min).toBe(1);
    expect(q1!.conclusion).toBe(1);
    expect(q005!.hit_rate.mean).toBeLessThan(0.15);
    expect(q005!.conclusion).toBeLessThan(0.5);
    expect(s.survives_down_to).toBe(1);
  });
});

describe('gsr analyze label-noise', () => {
  it('scored results folders against the same labels twice: zero bias, the same regression, the sweep', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-noise-'));
    const truthPath = join(dir, 'truth.json');
    writeFileSync(truthPath, JSON.stringify(truth));
    const dirs: string[] = [];
    for (const m of models) {
      const responses = [...m.boxes].map(([key, box]) => {
        const [item, role] = key.split('/') as [string, 'subject' | 'object'];
        return { key: `${key}`, model: m.name, item, role, split: 'synthetic', output: formatBox(box as [number, number, number, number], W, H, 'qwen2-vl'), status: 'ok' as const, error: null };
      });
      const { result, items } = scoreGrounding(responses, truth, { boxFormat: 'qwen2-vl', model: m.name });
      const out = join(dir, m.name);
      await writeGroundingResults(out, result, items);
      writeFileSync(join(out, 'reasoning.json'), JSON.stringify({ model: m.name, splits: { synthetic: { n: ITEMS, circular: m.y, vanilla: m.y } }, total_average: { circular: m.y, vanilla: m.y } }));
      dirs.push(out);
    }
    const r = runCli(['analyze', 'label-noise', '--results', ...dirs, '--truth-results', ...dirs, '--pseudo', truthPath, '--truth', truthPath, '--y', 'reasoning:synthetic:circular', '--x', 'grounding:synthetic/subject', '--sweep', '1,0.5', '--draws', '5', '--resamples', '100', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { models: Array<{ g_score: Record<string, { difference: { estimate: number; low: number; high: number } }> }>; regression: { pseudo: { slope: number }; truth: { slope: number } }; annotator: { hit_rate: number }; sweep: { rows: unknown[] } };
    expect(report.models).toHaveLength(TARGETS.length);
    expect(report.models.flatMap((m) => Object.values(m.g_score).map((g) => [g.difference.estimate, g.difference.low, g.difference.high])).flat().every((v) => v === 0)).toBe(true);
    expect(report.regression.pseudo.slope).toBe(report.regression.truth.slope);
    expect(report.annotator.hit_rate).toBe(1);
    expect(report.sweep.rows).toHaveLength(3);
    const text = runCli(['analyze', 'label-noise', '--results', ...dirs, '--truth-results', ...dirs, '--x', 'grounding:synthetic/subject', '--y', 'reasoning:synthetic:circular', '--sweep', 'none', '--resamples', '50']);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/against pseudo-labels: slope/);
    const bad = runCli(['analyze', 'label-noise', '--results', ...dirs, '--truth-results', ...dirs, '--x', 'reasoning:synthetic:circular']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  }, 240_000);
});
