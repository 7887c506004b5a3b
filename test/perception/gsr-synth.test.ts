/**
 * The project's own models (models/gsr-synth-det, models/gsr-synth-depth): the shipped files pass
 * their manifests (size, sha256, ONNX contract), and the ports reproduce PyTorch on the parity
 * pictures. The fixtures were written by the training scripts themselves (training/train_det.py,
 * training/train_depth.py) from the trained PyTorch model on held-out scenes, which this test
 * renders again with the project's renderer.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSyntheticScene } from '../../src/datasets/synth/produce.js';
import { getManifest } from '../../src/perception/manifest.js';
import { decodeGsrSynthDet, gsrSynthClass, prepareGsrSynth, GSR_SYNTH_HEIGHT, GSR_SYNTH_WIDTH } from '../../src/perception/models/gsr-synth.js';
import { resizeLikePil } from '../../src/perception/preprocess.js';
import { depthEstimators, detectors } from '../../src/perception/registry.js';
import { openSession, ort, releaseSession } from '../../src/perception/runtime.js';
import { verifyInstalled } from '../../src/perception/store.js';
import type { RgbImage } from '../../src/perception/types.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { synthesizeDataset } from '../../src/datasets/index.js';
import { FIXTURES } from './paths.js';

const MODELS = join(REPO_ROOT, 'models');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

interface ParityImage {
  scene: string;
  seed: number;
  index: number;
  rgb_sha256: string;
  resized_sha256: string;
}
interface Sampled {
  positions: number[];
  values: number[];
  sum: number;
}
interface DetFixture {
  onnx_sha256: string;
  score_threshold: number;
  top_k: number;
  images: Array<ParityImage & { heatmap: Sampled & { max: number }; box: Sampled; detections: Record<string, Array<{ box: number[]; score: number }>> }>;
}
interface DepthFixture {
  onnx_sha256: string;
  images: Array<ParityImage & { raw: Sampled & { min: number; max: number }; full: Sampled }>;
}

const detFixture = JSON.parse(readFileSync(join(FIXTURES, 'gsr-synth/det-parity.json'), 'utf8')) as DetFixture;
const depthFixture = JSON.parse(readFileSync(join(FIXTURES, 'gsr-synth/depth-parity.json'), 'utf8')) as DepthFixture;

/** The held-out scene rendered again (pure, seeded): the pixels the training script read from its PNG. */
function scene(p: ParityImage): RgbImage {
  const r = renderSyntheticScene(p.seed, p.index, 640, 480).rendered;
  return { data: r.rgb, width: r.width, height: r.height };
}

function maxDiff(got: Float32Array, s: Sampled): number {
  return Math.max(...s.positions.map((pos, i) => Math.abs(got[pos]! - s.values[i]!)));
}

async function run(id: string, image: RgbImage): Promise<Record<string, ort.Tensor>> {
  const opened = await openSession(join(MODELS, id, 'model.onnx'), { device: 'cpu', threads: 1 });
  try {
    const p = await prepareGsrSynth(image);
    return (await opened.session.run({ pixel_values: new ort.Tensor('float32', p.data, [1, 3, GSR_SYNTH_HEIGHT, GSR_SYNTH_WIDTH]) })) as Record<string, ort.Tensor>;
  } finally {
    await releaseSession(opened);
  }
}

describe('the shipped files', () => {
  for (const id of ['gsr-synth-det', 'gsr-synth-depth']) {
    it(`${id}: size, sha256 and ONNX contract match the manifest; at most 4 MB`, async () => {
      const manifest = await getManifest(id);
      const [f] = await verifyInstalled(manifest, MODELS);
      expect(f).toMatchObject({ ok: true, problems: [], sha256Checked: true });
      expect(manifest.files[0]!.bytes).toBeLessThanOrEqual(4 * 1024 * 1024);
    });
  }

  it('the fixtures were made from the shipped files', async () => {
    expect(detFixture.onnx_sha256).toBe((await getManifest('gsr-synth-det')).files[0]!.sha256);
    expect(depthFixture.onnx_sha256).toBe((await getManifest('gsr-synth-depth')).files[0]!.sha256);
  });
});

describe('gsr-synth-det against PyTorch', () => {
  const classes = ['ball', 'bench', 'block', 'book', 'bottle', 'bowl', 'box', 'can', 'candle', 'chair', 'desk', 'mug', 'plate', 'table', 'vase'];

  it('its classes are the renderer kinds of the manifest', async () => {
    const post = (await getManifest('gsr-synth-det')).postprocess as { classes: string[] };
    expect(post.classes).toEqual(classes);
    expect(Object.keys(detFixture.images[0]!.detections)).toEqual(classes);
  });

  it.each(detFixture.images.map((im) => [im.scene, im] as const))('%s: same pixels, same resize, outputs and boxes within float32 error', async (_, im) => {
    const image = scene(im);
    expect(sha(image.data)).toBe(im.rgb_sha256);
    const resized = await resizeLikePil(image, () => [GSR_SYNTH_HEIGHT, GSR_SYNTH_WIDTH], 'bilinear');
    expect(sha(resized.pixels)).toBe(im.resized_sha256);
    const out = await run('gsr-synth-det', image);
    const heat = out.heatmap!.data as Float32Array;
    const box = out.box!.data as Float32Array;
    expect(maxDiff(heat, im.heatmap)).toBeLessThanOrEqual(1e-5);
    expect(maxDiff(box, im.box)).toBeLessThanOrEqual(1e-3);
    const dims = out.heatmap!.dims as number[];
    let compared = 0;
    for (const [c, name] of classes.entries()) {
      const got = decodeGsrSynthDet(heat, box, c, [dims[2]!, dims[3]!], [480, 640], detFixture.score_threshold, detFixture.top_k, name);
      const want = im.detections[name]!;
      expect(got.map((d) => d.box.length), name).toHaveLength(want.length);
      got.forEach((d, i) => {
        expect(Math.abs(d.score - want[i]!.score), name).toBeLessThanOrEqual(1e-5);
        d.box.forEach((v, k) => expect(Math.abs(v - want[i]!.box[k]!), name).toBeLessThanOrEqual(2e-3));
      });
      compared += want.length;
    }
    expect(compared).toBeGreaterThan(0);
  });

  it('the plug-in returns the decoded boxes of the phrase\'s class, and nothing for other nouns', async () => {
    const det = await detectors.get('gsr-synth-det')({ modelsDir: MODELS, device: 'cpu', threads: 1 });
    try {
      const im = detFixture.images[0]!;
      const image = scene(im);
      const [name, want] = Object.entries(im.detections).find(([, d]) => d.length > 0)!;
      const got = await det.detect(image, `the ${name}s`);
      expect(got.map((d) => d.label)).toEqual(want.map(() => name));
      got.forEach((d, i) => expect(Math.abs(d.box[0] - want[i]!.box[0]!)).toBeLessThanOrEqual(2e-3));
      expect(det.canDetect!('dog')).toBe(false);
      expect(await det.detect(image, 'dog')).toEqual([]);
    } finally {
      await det.dispose();
    }
  });
});

describe('gsr-synth-depth against PyTorch', () => {
  it.each(depthFixture.images.map((im) => [im.scene, im] as const))('%s: raw output and the full-size map within 1e-4 of the range', async (_, im) => {
    const image = scene(im);
    expect(sha(image.data)).toBe(im.rgb_sha256);
    const raw = (await run('gsr-synth-depth', image)).predicted_depth!.data as Float32Array;
    const range = im.raw.max - im.raw.min;
    expect(maxDiff(raw, im.raw) / range).toBeLessThanOrEqual(1e-4);
    const depth = await depthEstimators.get('gsr-synth-depth')({ modelsDir: MODELS, device: 'cpu', threads: 1 });
    try {
      const map = await depth.estimate(image);
      expect([map.width, map.height, map.unit, map.larger]).toEqual([640, 480, 'relative-inverse', 'nearer']);
      expect(maxDiff(map.data, im.full) / range).toBeLessThanOrEqual(1e-4);
    } finally {
      await depth.dispose();
    }
  });
});

describe('gsr annotate run with the two models', () => {
  it('works like any model: boxes, relative depth, and the files recorded by sha256', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-synth-annotate-'));
    await synthesizeDataset({ out: join(dir, 'synth'), count: 3, seed: 9, workers: 0 });
    const r = runCli(['annotate', 'run', '--manifest', join(dir, 'synth', 'manifest.jsonl'), '--detector', 'gsr-synth-det', '--depth', 'gsr-synth-depth', '--device', 'cpu', '--out', join(dir, 'a'), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const coco = JSON.parse(readFileSync(join(dir, 'a', 'annotations.json'), 'utf8')) as { info: { depth: { unit: string; larger: string }; models: Array<{ id: string; files: Array<{ sha256: string; matches_manifest: boolean }> }> }; images: unknown[] };
    expect(coco.images).toHaveLength(3);
    expect(coco.info.depth).toMatchObject({ unit: 'relative-inverse', larger: 'nearer' });
    expect(coco.info.models.map((m) => m.id)).toEqual(['gsr-synth-det', 'gsr-synth-depth']);
    for (const m of coco.info.models) expect(m.files.every((f) => f.matches_manifest)).toBe(true);
  }, 180_000);
});

describe('decoding (pure)', () => {
  // A 3x4 grid with two classes; class 1 has a plateau (two equal neighbours) and a lower peak.
  const grid: [number, number] = [3, 4];
  const heat = new Float32Array(2 * 12);
  heat.set([0, 0.5, 0.5, 0, 0, 0.2, 0.1, 0, 0.3, 0, 0, 0.05], 12);
  const box = new Float32Array(4 * 12).fill(2);

  it('keeps local maxima above the threshold, best first, ties by cell order', () => {
    const d = decodeGsrSynthDet(heat, box, 1, grid, [240, 320], 0.1, 10, 'x');
    expect(d.map((x) => x.score)).toEqual([0.5, 0.5, Math.fround(0.3)]);
    // Cell 1 is (x 1, y 0): centre (6, 2); distances 2 -> [4, 0, 8, 4].
    expect(d[0]!.box).toEqual([4, 0, 8, 4]);
    expect(d[1]!.box).toEqual([8, 0, 12, 4]);
    expect(decodeGsrSynthDet(heat, box, 1, grid, [240, 320], 0.1, 1, 'x')).toHaveLength(1);
    expect(decodeGsrSynthDet(heat, box, 0, grid, [240, 320], 0.1, 10, 'x')).toEqual([]);
  });

  it('scales boxes to the original image and clips them', () => {
    const d = decodeGsrSynthDet(heat, box, 1, grid, [480, 640], 0.1, 10, 'x');
    expect(d[0]!.box).toEqual([8, 0, 16, 8]);
  });

  it('refuses outputs of the wrong size', () => {
    expect(() => decodeGsrSynthDet(heat, box.subarray(1), 1, grid, [240, 320], 0.1, 10, 'x')).toThrow(/grid/);
  });

  it('maps caption nouns to classes', () => {
    const classes = ['box', 'mug', 'table'];
    expect(['mug', 'Mugs', 'the table', ' box ', 'boxes', 'dog'].map((p) => gsrSynthClass(p, classes))).toEqual([1, 1, 2, 0, -1, -1]);
  });
});
