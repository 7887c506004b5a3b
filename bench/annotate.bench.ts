/**
 * gsr annotate: peak memory against the number of images (target: flat), and end-to-end images/s
 * with the fixture models on 16 rendered scenes at the What'sUp photos' size (1127x843), and on the
 * 16 What'sUp sample photos when they are beside the repository (test/helpers/shared.ts). Each
 * memory point runs in a fresh process.
 *
 * The memory sweep cycles 100 rendered synthetic scenes (320x240) under distinct item ids, so each
 * count decodes, annotates and journals that many images. Sweep A: FastestDet, boxes only (the
 * random-weight file with the real model's contract, test/fixtures/perception/fastestdet), at
 * 250/1000/2000 images. Sweep B: the full pipeline (fixture GroundingDINO firing on every phrase,
 * fixture SAM masks, fixture metric depth + 16-bit PNGs) at fewer images, since it is ~5x slower.
 * With the real FastestDet beside the repository, its boxes-only run on the photos is added.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { synthesizeDataset } from '../src/datasets/index.js';
import { importWhatsupToManifest } from '../src/datasets/index.js';
import { writeFixtureModels } from '../test/helpers/annotator-fixtures.js';
import { sharedPath } from '../test/helpers/shared.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..');

interface WorkerResult {
  images: number;
  images_per_second: number;
  peak_rss_mib: number;
  [k: string]: unknown;
}

function runWorker(cfg: Record<string, unknown>): WorkerResult {
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(here, 'annotate-worker.ts'), JSON.stringify(cfg)], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, GSR_PROGRESS: '0' },
    maxBuffer: 16 << 20,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as WorkerResult;
}

/** A manifest of `count` items cycling the synthetic scenes, each under its own id. */
function cycledManifest(synthDir: string, count: number, path: string): string {
  const scenes = readFileSync(join(synthDir, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  let text = '';
  for (let i = 0; i < count; i++) {
    const s = scenes[i % scenes.length];
    text += JSON.stringify({ ...s, id: `bench-${String(i).padStart(5, '0')}`, root: synthDir }) + '\n';
  }
  writeFileSync(path, text);
  return path;
}

export default async function bench() {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-annotate-bench-'));
  try {
    const models = join(dir, 'models');
    writeFixtureModels(models);
    const synthDir = join(dir, 'syn');
    await synthesizeDataset({ out: synthDir, count: 100, seed: 7, width: 320, height: 240, format: 'png' });

    const fullPipeline = { detector: 'grounding-dino-tiny', segmenter: 'slimsam-77-uniform', depth: 'depth-anything-v2-metric-indoor-small' };
    const sweep = (label: string, counts: number[], models_: Record<string, string | null>, params: Record<string, number> = {}) =>
      counts.map((n) => {
        process.stderr.write(`  ${label}: ${n} images\n`);
        const r = runWorker({ manifest: cycledManifest(synthDir, n, join(dir, `m-${n}.jsonl`)), outDir: join(dir, `out-${label}-${n}`), modelsDir: models, params, ...models_ });
        rmSync(join(dir, `out-${label}-${n}`), { recursive: true, force: true });
        return r;
      });
    const boxes = sweep('fastestdet', [250, 1000, 2000], { detector: 'fastestdet', segmenter: null, depth: null }, { score_threshold: 0.05 });
    const full = sweep('full-fixtures', [50, 200], fullPipeline);

    // End to end on 16 photo-sized renders with the fixture models (pipeline cost, not model cost).
    const largeDir = join(dir, 'large');
    await synthesizeDataset({ out: largeDir, count: 16, seed: 7, width: 1127, height: 843 });
    const largeManifest = join(largeDir, 'manifest.jsonl');
    const rendered = {
      full_fixture_pipeline: runWorker({ manifest: largeManifest, outDir: join(dir, 'out-large'), modelsDir: models, ...fullPipeline }),
      fastestdet_boxes_only: runWorker({ manifest: largeManifest, outDir: join(dir, 'out-large-fd'), modelsDir: models, detector: 'fastestdet', segmenter: null, depth: null }),
    };
    // The same on the What'sUp sample photos, and the real FastestDet, when they are beside the repository.
    const photos: Record<string, WorkerResult | string> = {};
    const sample = sharedPath('whatsupSample');
    if (sample) {
      const manifest = join(dir, 'real.jsonl');
      await importWhatsupToManifest(join(sample, 'data'), manifest);
      photos.full_fixture_pipeline = runWorker({ manifest, outDir: join(dir, 'out-real'), modelsDir: models, ...fullPipeline });
      const real = sharedPath('fastestdet');
      if (real) {
        const realModels = join(dir, 'real-models');
        mkdirSync(join(realModels, 'fastestdet'), { recursive: true });
        symlinkSync(join(real, 'FastestDet.onnx'), join(realModels, 'fastestdet', 'FastestDet.onnx'));
        photos.real_fastestdet_boxes_only = runWorker({ manifest, outDir: join(dir, 'out-real-fd'), modelsDir: realModels, detector: 'fastestdet', segmenter: null, depth: null });
      }
    }

    const ratio = (a: WorkerResult[]) => Math.round((a[a.length - 1]!.peak_rss_mib / a[0]!.peak_rss_mib) * 100) / 100;
    return {
      memory_sweep_fastestdet_boxes: boxes,
      memory_sweep_full_fixture_pipeline: full,
      peak_rss_ratio_largest_to_smallest: { fastestdet_boxes_2000_vs_250: ratio(boxes), full_fixtures_200_vs_50: ratio(full) },
      rendered_1127x843_16: rendered,
      whatsup_sample_photos_16: sample ? photos : 'not run: the What\'sUp sample photos are not beside the repository',
      notes:
        'peak_rss_mib is the kernel max RSS of a fresh process running one annotate() call; images/s excludes model loading. ' +
        'Synthetic sweeps cycle 100 rendered 320x240 scenes under distinct ids. Fixture models compute trivial functions, so ' +
        'full-pipeline images/s measures decoding, pre-processing (SAM 1024x1024, Depth Anything 518, GroundingDINO 800), ' +
        'mask/depth post-processing, RLE, PNG writing and journaling, not real model inference.',
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
