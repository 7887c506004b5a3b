import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCocoFile } from '../../src/formats/coco.js';
import { loadPipeline } from '../../src/formats/pipeline-file.js';
import type { PhotoObject } from '../../src/formats/photos.js';
import { boxIou } from '../../src/geometry/boxes.js';
import { MANIFEST_DIR } from '../../src/perception/manifest.js';
import { preflight, runPipeline } from '../../src/pipeline/index.js';
import { photoObjects } from '../../src/pipeline/stages/photos.js';
import { FIXTURE_ANNOTATOR } from '../helpers/annotator-fixtures.js';
import { writeGroundingDinoFixture } from '../helpers/onnx-fixtures.js';
import { MODELS_DIR, REPO_ROOT, WHATSUP_SAMPLE_ROOT, scaled } from '../helpers/cli.js';
import { whatsupLayoutSample } from '../helpers/samples.js';
import { itShared } from '../helpers/shared.js';

const REFERENCE = join(REPO_ROOT, 'annotations', 'whatsup-sample', 'annotations.json');
const DEMO = join(REPO_ROOT, 'pipelines', 'demo.yaml');
const work = mkdtempSync(join(tmpdir(), 'gsr-photos-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A small pipeline file whose `photos` section is `photos` (YAML lines). */
function pipelineWithPhotos(name: string, photos: string): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}
out: ${join(work, `out-${name}`)}
dataset: { synthetic: { count: 4, seed: 1 } }
annotations: { source: exact, compare_models: false }
prompts: { tasks: [tg] }
models: [{ name: geometric, kind: geometric }]
photos:
${photos}`,
  );
  return file;
}

describe('the reference boxes for the 16 What\'sUp sample photos (annotations/whatsup-sample)', () => {
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
  let root = '';
  beforeAll(async () => {
    root = await whatsupLayoutSample();
  });

  it('annotates a What\'sUp-layout folder, measures the hit rate against its reference and shows both boxes in the report', { timeout: scaled(300_000) }, async () => {
    // The project's rendered sample stands in for photos and its exact boxes for hand-drawn ones. The
    // detector is a fixture GroundingDINO that puts every "table" at one scene's table and every "mug"
    // at one scene's mug, and finds nothing else.
    const reference = await readCocoFile(join(root, '..', 'annotations.json'));
    const refBox = (item: string, role: string) => {
      const im = reference.images.find((i) => i.item_id === item)!;
      return reference.annotations.find((a) => a.image_id === im.id && a.role === role)!.bbox;
    };
    const normalised = ([x, y, w, h]: number[]): [number, number, number, number] => [(x + w / 2) / 320, (y + h / 2) / 240, w / 320, h / 240];
    const table = refBox('whatsup-a/mug_on_table', 'object');
    const mug = refBox('whatsup-b/mug_behind_plate', 'subject');
    const models = join(work, 'models');
    writeGroundingDinoFixture(join(models, FIXTURE_ANNOTATOR.detector, 'model.onnx'), [
      { tokenId: 11, logit: 3, box: normalised(table) },
      { tokenId: 9, logit: 2, box: normalised(mug) },
    ]);
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(REPO_ROOT, 'test/fixtures/perception/bert-uncased-tiny', f), join(models, FIXTURE_ANNOTATOR.detector, f));
    // The folder is given through a symbolic link (as shared data folders often are): its photos are inside
    // their root once resolved, so the report shows them.
    const linked = join(work, 'photos-link');
    symlinkSync(root, linked);
    const file = pipelineWithPhotos('layout', `  root: ${linked}
  detector: ${FIXTURE_ANNOTATOR.detector}
  models_dir: ${models}
  reference: ${join(root, '..', 'annotations.json')}
  note: The fixture detector finds tables and mugs at fixed places.
`);
    const r = await runPipeline(file, { log: () => {} });
    expect(r.stages.map((s) => s.name)).toEqual(['dataset', 'annotate', 'photos', 'prompts', 'answer', 'score', 'analyze', 'report']);
    expect(r.photos).toMatchObject({ detector: FIXTURE_ANNOTATOR.detector, images: 30, objects: 52, subject: { objects: 30 }, object: { objects: 22 } });
    // The hits the fixture must give, worked out from the reference alone.
    const xyxy = ([x, y, w, h]: number[]) => [x, y, x + w, y + h];
    const expected = { subject: 0, object: 0 };
    for (const a of reference.annotations) {
      const det = a.phrase === 'table' ? table : a.phrase === 'mug' ? mug : null;
      if (det !== null && boxIou(xyxy(det), xyxy(a.bbox)) >= 0.5) expected[a.role as 'subject' | 'object']++;
    }
    expect(Math.min(expected.subject, expected.object)).toBeGreaterThanOrEqual(1); // at least the two boxes the fixture copies
    expect([r.photos!.subject.hits, r.photos!.object.hits]).toEqual([expected.subject, expected.object]);
    const { objects } = JSON.parse(readFileSync(join(r.out, 'photos', 'photos.json'), 'utf8')) as { objects: PhotoObject[] };
    expect(objects.filter((o) => o.phrase !== 'mug' && o.phrase !== 'table').every((o) => o.detected === null)).toBe(true);
    const html = readFileSync(r.report!, 'utf8');
    expect(html).toContain(`data-testid="photos:hit-rate" data-value="${r.photos!.hits / 52}"`);
    expect(html).toContain('The fixture detector finds tables and mugs at fixed places.');
    expect((html.match(/data-testid="photo:/g) ?? []).length).toBe(30);
    const again = await runPipeline(file, { log: () => {} });
    expect(again.stages.every((s) => s.status === 'skipped')).toBe(true);
  });

  it('fails before any stage runs when the folder, the reference or the detector is missing', async () => {
    const models = join(work, 'no-models');
    const base = `  detector: fastestdet\n  models_dir: ${models}\n`;
    const check = async (photos: string) => {
      const file = pipelineWithPhotos('bad', photos);
      const loaded = await loadPipeline(file, { GSR_MODELS_PATH: '' });
      return preflight(loaded.config, file).then(() => null, (e: Error) => e.message);
    };
    expect(await check(`  root: ${join(work, 'none')}\n  reference: ${REFERENCE}\n${base}`)).toMatch(/bad\.yaml: photos\.root: folder not found: .*none( \(and 1 more; `gsr pipeline check` lists them all\))?$/);
    expect(await check(`  root: ${root}\n  reference: ${join(work, 'none.json')}\n${base}`)).toMatch(/photos\.reference: file not found: .*none\.json( \(and 1 more; `gsr pipeline check` lists them all\))?$/);
    const saved = process.env.GSR_MODELS_PATH;
    delete process.env.GSR_MODELS_PATH;
    try {
      // Where it looked (--models-dir, then the package's own models/) and the command that installs it.
      expect(await check(`  root: ${root}\n  reference: ${REFERENCE}\n${base}`)).toBe(`${join(work, 'bad.yaml')}: photos.detector: model fastestdet is not installed: looked in ${models}, ${MANIFEST_DIR.replace(/\/$/, '')}; run \`gsr models pull fastestdet\`, or point --models-dir or GSR_MODELS_PATH at a folder holding fastestdet/`);
    } finally {
      if (saved !== undefined) process.env.GSR_MODELS_PATH = saved;
    }
  });
});

describe('pipelines/demo.yaml and its real-photo stage', () => {
  it('leaves the stage out without GSR_PHOTOS_ROOT, and says how to turn it on', async () => {
    const loaded = await loadPipeline(DEMO, {});
    expect(loaded.config.photos).toBeUndefined();
    expect(loaded.skippedSections).toMatchObject([{ name: 'photos', reason: 'GSR_PHOTOS_ROOT not set', unset: ['GSR_PHOTOS_ROOT'] }]);
    const file = pipelineWithPhotos('off', `  if_env: [GSR_PHOTOS_ROOT]\n  root: \${GSR_PHOTOS_ROOT}\n  detector: fastestdet\n  reference: ${REFERENCE}\n`);
    const lines: string[] = [];
    const r = await runPipeline(file, { env: {}, log: (l) => lines.push(l), out: join(work, 'out-off') });
    expect(r.stages.map((s) => s.name)).not.toContain('photos');
    expect(lines).toContain('gsr: photos skipped (GSR_PHOTOS_ROOT not set)');
    expect(r.skipped_sections).toEqual([{ name: 'photos', reason: 'GSR_PHOTOS_ROOT not set', how: 'set GSR_PHOTOS_ROOT to a folder of photos in What\'sUp\'s layout and install fastestdet (`gsr models pull fastestdet`) to run the real-photo check (docs/pipeline.md, "Real photos")' }]);
  }, scaled(120_000));

  it('takes the photos from GSR_PHOTOS_ROOT', async () => {
    const loaded = await loadPipeline(DEMO, { GSR_PHOTOS_ROOT: '/data/photos' });
    expect(loaded.skippedSections).toEqual([]);
    expect(loaded.config.photos).toMatchObject({ root: '/data/photos', detector: 'gsr-synth-det', models_dir: join(REPO_ROOT, 'models'), reference: REFERENCE });
  });

  itShared('annotates the 16 real photos with the real FastestDet: 20 of the 30 reference boxes found', ['whatsupSample', 'fastestdet'], async () => {
    const file = pipelineWithPhotos('real', `  root: ${WHATSUP_SAMPLE_ROOT}
  detector: fastestdet
  models_dir: ${MODELS_DIR}
  reference: ${REFERENCE}
  note: FastestDet stands in for GroundingDINO.
`);
    const r = await runPipeline(file, { log: () => {} });
    expect(r.photos).toMatchObject({ detector: 'fastestdet', images: 16, objects: 30, subject: { objects: 16 }, object: { objects: 14 } });
    // Measured: FastestDet finds 20 of the 30 reference boxes (15 of 16 subjects).
    expect([r.photos!.hits, r.photos!.subject.hits, r.photos!.object.hits]).toEqual([20, 15, 5]);
    const html = readFileSync(r.report!, 'utf8');
    expect(html).toContain('data-testid="photos:hit-rate" data-value="0.6666666666666666"');
    expect(html).toContain('FastestDet stands in for GroundingDINO.');
    expect((html.match(/data-testid="photo:/g) ?? []).length).toBe(16);
  }, scaled(300_000));

  itShared('checks out with the photos and FastestDet beside the repository', ['whatsupSample', 'fastestdet'], async () => {
    const loaded = await loadPipeline(DEMO, { GSR_PHOTOS_ROOT: WHATSUP_SAMPLE_ROOT });
    const saved = process.env.GSR_MODELS_PATH;
    process.env.GSR_MODELS_PATH = MODELS_DIR;
    try {
      await expect(preflight(loaded.config, DEMO)).resolves.toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.GSR_MODELS_PATH;
      else process.env.GSR_MODELS_PATH = saved;
    }
  });
});
