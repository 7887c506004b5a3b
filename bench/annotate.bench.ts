/**
 * gsr annotate: peak memory against the number of images (target: flat), and end-to-end images/s
 * with the fixture models on a What'sUp-layout folder (real photos when GSR_PHOTOS_ROOT names them,
 * else the project's rendered sample). Each memory point runs in a fresh process.
 *
 * The memory sweep cycles 100 rendered synthetic scenes (320x240) under distinct item ids, so each
 * count decodes, annotates and journals that many images. Sweep A: the real FastestDet, boxes only,
 * at 250/1000/2000 images (only when it is beside the repository: test/helpers/shared.ts). Sweep B:
 * the full pipeline (fixture GroundingDINO firing on every phrase, fixture SAM masks, fixture metric
 * depth + 16-bit PNGs) at fewer images, since it is ~5x slower.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importWhatsupToManifest, synthesizeDataset, writeWhatsupLayout } from '../src/datasets/index.js';
import { writeFixtureModels } from '../test/helpers/annotator-fixtures.js';

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
    const fastestdet = existsSync(join(models, 'fastestdet'));
    const boxes = fastestdet ? sweep('fastestdet', [250, 1000, 2000], { detector: 'fastestdet', segmenter: null, depth: null }, { score_threshold: 0.05 }) : null;
    const full = sweep('full-fixtures', [50, 200], fullPipeline);

    // End to end on a What'sUp-layout folder with the fixture models (pipeline cost, not model cost).
    const manifest = join(dir, 'whatsup.jsonl');
    const photosRoot = process.env.GSR_PHOTOS_ROOT || (await writeWhatsupLayout(join(dir, 'whatsup'))).dataDir;
    await importWhatsupToManifest(photosRoot, manifest);
    const layout = runWorker({ manifest, outDir: join(dir, 'out-layout'), modelsDir: models, ...fullPipeline });
    const layoutFastestdet = fastestdet ? runWorker({ manifest, outDir: join(dir, 'out-layout-fd'), modelsDir: models, detector: 'fastestdet', segmenter: null, depth: null }) : null;

    const ratio = (a: WorkerResult[] | null) => (a === null ? null : Math.round((a[a.length - 1]!.peak_rss_mib / a[0]!.peak_rss_mib) * 100) / 100);
    return {
      memory_sweep_fastestdet_boxes: boxes ?? 'FastestDet not beside the repository (test/helpers/shared.ts)',
      memory_sweep_full_fixture_pipeline: full,
      peak_rss_ratio_largest_to_smallest: { fastestdet_boxes_2000_vs_250: ratio(boxes), full_fixtures_200_vs_50: ratio(full) },
      whatsup_layout_folder: {
        photos_from: process.env.GSR_PHOTOS_ROOT ? 'GSR_PHOTOS_ROOT' : "rendered What'sUp-layout sample",
        full_fixture_pipeline: layout,
        fastestdet_boxes_only: layoutFastestdet,
      },
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
