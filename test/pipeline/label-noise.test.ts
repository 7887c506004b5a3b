/**
 * Synthetic scenes annotated by the shipped models (models/gsr-synth-det, models/gsr-synth-depth):
 * the pipeline scores against the pseudo-labels, then (stage `label-noise`) everything again against
 * the exact truth; the answerers that read annotations stand in for models that see the picture,
 * so they read the truth. Checked against figures recomputed here from the two annotation files.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LabelNoiseReport } from '../../src/analysis/label-noise.js';
import { truthBoxes } from '../../src/analysis/relabel.js';
import type { CocoFile } from '../../src/formats/coco.js';
import { boxIou } from '../../src/geometry/boxes.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { itShared } from '../helpers/shared.js';
import type { PhotoObject } from '../../src/formats/photos.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-label-noise-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const read = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

describe('pipeline on synthetic scenes with pseudo-labels from models', () => {
  it('scores against the pseudo-labels and again against the exact truth, and reports the budget', { timeout: 600_000 }, async () => {
    const out = join(work, 'out');
    const file = join(work, 'noise.yaml');
    writeFileSync(
      file,
      `name: noise
out: ${out}
dataset: { synthetic: { count: 18, seed: 3 } }
annotations:
  source: models
  models: { detector: gsr-synth-det, depth: gsr-synth-depth, device: cpu, models_dir: ${join(REPO_ROOT, 'models')} }
prompts: { tasks: [tg, mc, grounding, dap], dap: { base_task: mc, relations: [front, behind] } }
models:
  - { name: geometric, kind: geometric }
  - { name: always-first, kind: always-first }
  - { name: sim-a, kind: simulated, grounding: 0.3, seed: 1 }
  - { name: sim-b, kind: simulated, grounding: 0.9, seed: 1 }
`,
    );
    const r = await runPipeline(file, { log: () => {} });
    expect(r.stages.map((s) => s.name)).toEqual(['dataset', 'annotate', 'prompts', 'answer', 'score', 'analyze', 'label-noise', 'report']);
    expect(r.perception).toMatch(/^pseudo-labels from gsr-synth-det \+ gsr-synth-depth on cpu, against the exact truth of 18 synthetic scenes: box recall@0\.5 /);

    const pseudo = read<CocoFile>(join(out, 'annotate', 'annotations.json'));
    const truth = read<CocoFile>(join(out, 'dataset', 'annotations.json'));
    expect(pseudo.info?.source).toBe('auto');
    const [p, t] = [truthBoxes(pseudo), truthBoxes(truth)];
    const right = (key: string) => boxIou(p.get(key)!, t.get(key)!) >= 0.5;

    // The geometric answerer reads the truth: every box right against it ...
    const geoTruth = read<{ avg_g_score: number }>(join(out, 'label-noise', 'truth', 'geometric', 'grounding.json'));
    expect(geoTruth.avg_g_score).toBe(1);
    // ... and against the pseudo-labels, right exactly where the annotator's box is (objects it found).
    const report = read<LabelNoiseReport>(join(out, 'label-noise', 'label-noise.json'));
    const geo = report.models.find((m) => m.model === 'geometric')!;
    const subjects = [...p.keys()].filter((k) => k.endsWith('/subject'));
    expect(geo.g_score['synthetic/subject']!.pseudo).toBeCloseTo(subjects.filter(right).length / subjects.length, 12);
    expect(geo.g_score['synthetic/subject']!.objects).toMatchObject({ pseudo: subjects.length, truth: 18 });
    expect(report.annotator!.hit_rate).toBeCloseTo([...t.keys()].filter((k) => p.has(k) && right(k)).length / t.size, 12);
    expect(r.label_noise!.annotator_hit_rate).toBe(report.annotator!.hit_rate);

    // DAP asked twice: with the exact depth the geometric answerer orders every front/behind pair right.
    const dap = report.dap.find((d) => d.model === 'geometric')!;
    expect(dap.truth.circular).toBe(1);
    expect(dap.truth.n).toBeGreaterThan(0);
    const exactDap = readFileSync(join(out, 'label-noise', 'prompts', 'dap.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { hint_depth: { unit: string } });
    expect(exactDap.every((q) => q.hint_depth.unit === 'm')).toBe(true);
    const pseudoDap = readFileSync(join(out, 'prompts', 'dap.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { hint_depth: { unit: string } });
    expect(pseudoDap.every((q) => q.hint_depth.unit === 'relative-inverse')).toBe(true);

    // TG is the same both ways; the simulated answerers perturb the truth.
    const tg = (dir: string) => read<{ total_average: { circular: number } }>(join(dir, 'reasoning.json')).total_average.circular;
    for (const m of ['geometric', 'sim-a', 'sim-b']) expect(tg(join(out, 'label-noise', 'truth', m))).toBe(tg(join(out, 'score', m)));
    const simB = read<{ avg_g_score: number }>(join(out, 'label-noise', 'truth', 'sim-b', 'grounding.json')).avg_g_score;
    expect(Math.abs(simB - 0.9)).toBeLessThan(0.25);

    // The report shows the models' overlays beside the truth, and the budget with the sweep.
    const html = readFileSync(r.report!, 'utf8');
    expect(html).toContain('id="sec-perception"');
    expect(html).toContain('id="sec-label-noise"');
    expect(html.match(/data-testid="overlay:/g)).toHaveLength(6);
    expect(html).toContain('id="noise-sweep"');
    expect(existsSync(join(out, 'annotate', 'overlays', 'synth-00000.truth.jpg'))).toBe(true);
  });
});

describe('the same detector on real photos', () => {
  itShared(
    "finds only the renderer's kinds on the What'sUp sample and is measured against the hand-drawn boxes",
    ['whatsupSample'],
    async ({ whatsupSample }) => {
      const out = join(work, 'photos');
      const file = join(work, 'photos.yaml');
      writeFileSync(
        file,
        `name: photos
out: ${out}
dataset: { synthetic: { count: 3, seed: 1 } }
annotations: { source: exact, compare_models: false }
prompts: { tasks: [tg] }
models: [{ name: geometric, kind: geometric }]
photos:
  root: ${join(whatsupSample, 'data')}
  detector: gsr-synth-det
  models_dir: ${join(REPO_ROOT, 'models')}
  reference: ${join(REPO_ROOT, 'annotations', 'whatsup-sample', 'annotations.json')}
`,
      );
      const r = await runPipeline(file, { log: () => {} });
      expect(r.photos).toMatchObject({ detector: 'gsr-synth-det', images: 16, objects: 30, subject: { objects: 16 }, object: { objects: 14 } });
      const { objects } = read<{ objects: PhotoObject[] }>(join(out, 'photos', 'photos.json'));
      const kinds = new Set(['ball', 'bench', 'block', 'book', 'bottle', 'bowl', 'box', 'can', 'candle', 'chair', 'desk', 'mug', 'plate', 'table', 'vase']);
      // Nouns outside its kinds (dog, person, ...) are never found; the hit rate counts every reference box.
      expect(objects.filter((o) => !kinds.has(o.phrase)).every((o) => o.detected === null)).toBe(true);
      expect(r.photos!.hits).toBe(objects.filter((o) => o.hit).length);
      expect(r.photos!.hit_rate).toBe(r.photos!.hits / 30);
    },
    600_000,
  );
});
