import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCocoFile } from '../../src/formats/coco.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { photoObjects } from '../../src/pipeline/stages/photos.js';
import { REPO_ROOT, WHATSUP_SAMPLE_ROOT } from '../helpers/cli.js';

const REFERENCE = join(REPO_ROOT, 'annotations', 'whatsup-sample', 'annotations.json');
const work = mkdtempSync(join(tmpdir(), 'gsr-photos-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the shipped reference boxes', () => {
  it('cover every object the 16 photos name, inside the image', async () => {
    const coco = await readCocoFile(REFERENCE);
    expect(coco.images).toHaveLength(16);
    expect(coco.annotations).toHaveLength(30);
    for (const a of coco.annotations) {
      const im = coco.images.find((i) => i.id === a.image_id)!;
      expect(a.bbox[0] + a.bbox[2]).toBeLessThanOrEqual(im.width);
      expect(a.bbox[1] + a.bbox[3]).toBeLessThanOrEqual(im.height);
    }
  });

  it('photoObjects pairs each reference box with the best detection of its item and role', async () => {
    const ref = await readCocoFile(REFERENCE);
    const first = ref.annotations[0];
    const pred = { images: ref.images, annotations: [{ ...first, id: 1, score: 0.9 }, { ...first, id: 2, bbox: [0, 0, 1, 1] as [number, number, number, number], score: 0.1 }] };
    const objs = photoObjects(pred, ref, new Map());
    expect(objs).toHaveLength(30);
    expect(objs[0]).toMatchObject({ hit: true, iou: 1 });
    expect(objs.filter((o) => o.detected === null)).toHaveLength(29);
  });
});

describe('pipeline photos stage', () => {
  it('annotates the real photos with FastestDet, measures the hit rate and shows both boxes in the report', { timeout: 300_000 }, async () => {
    const file = join(work, 'p.yaml');
    writeFileSync(
      file,
      `name: p
out: ${join(work, 'out')}
dataset: { synthetic: { count: 4, seed: 1 } }
annotations: { source: exact, compare_models: false }
prompts: { tasks: [tg] }
models: [{ name: geometric, kind: geometric }]
photos:
  root: ${WHATSUP_SAMPLE_ROOT}
  detector: fastestdet
  models_dir: ${join(REPO_ROOT, 'models')}
  reference: ${REFERENCE}
  note: FastestDet stands in for GroundingDINO.
`,
    );
    const r = await runPipeline(file, { log: () => {} });
    expect(r.stages.map((s) => s.name)).toEqual(['dataset', 'annotate', 'photos', 'prompts', 'answer', 'score', 'analyze', 'report']);
    expect(r.photos).toMatchObject({ detector: 'fastestdet', images: 16, objects: 30, subject: { objects: 16 }, object: { objects: 14 } });
    // Measured: FastestDet finds 20 of the 30 reference boxes (15 of 16 subjects).
    expect([r.photos!.hits, r.photos!.subject.hits, r.photos!.object.hits]).toEqual([20, 15, 5]);
    const html = readFileSync(r.report!, 'utf8');
    expect(html).toContain('data-testid="photos:hit-rate" data-value="0.6666666666666666"');
    expect(html).toContain('FastestDet stands in for GroundingDINO.');
    expect((html.match(/data-testid="photo:/g) ?? []).length).toBe(16);
    const again = await runPipeline(file, { log: () => {} });
    expect(again.stages.every((s) => s.status === 'skipped')).toBe(true);
  });
});
