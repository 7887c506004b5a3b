/**
 * Renders the training and held-out scenes of the project's own perception models
 * (training/README.md) with the synthetic renderer, into a git-ignored cache folder:
 *
 *   <out>/<split>/images/<id>.jpg   the picture, encoded exactly as `gsr dataset synth` encodes it
 *   <out>/<split>/depth/<id>.png    16-bit depth in millimetres (as `gsr dataset synth`)
 *   <out>/<split>/labels/<id>.png   8-bit entity labels (0 background, 1 subject, 2 object, 3+ clutter)
 *   <out>/<split>/objects.jsonl     every visible object of each scene (named ones and clutter), with
 *                                   its kind, entity label, pixel box and visible pixel count
 *   <out>/parity/<id>.png           a few held-out pictures without JPEG loss, for the ONNX parity fixture
 *
 * Each scene depends only on (seed, index), as in `gsr dataset synth`. Run:
 *   npx tsx training/make-data.ts [--out .cache/gsr-synth] [--train 5000] [--heldout 500] [--heldout-seed 2002]
 *
 * Another held-out seed renders a fresh set, for checking a model on scenes no choice was made on:
 *   npx tsx training/make-data.ts --out .cache/gsr-synth-confirm --train 0 --heldout-seed 3003
 * (training/evaluate_depth.py with GSR_SYNTH_CACHE=.cache/gsr-synth-confirm; training/README.md).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { encodeDepthValuesPng, quantizeDepth } from '../src/formats/depth-png.js';
import { entityStats } from '../src/datasets/synth/check.js';
import { encodeImage, renderSyntheticScene } from '../src/datasets/synth/produce.js';
import { sceneId } from '../src/datasets/synth/records.js';

/** Seeds of the two sets; the demo (pipelines/demo.yaml) uses DEMO_SEED, so neither overlaps it. */
export const TRAIN_SEED = 1001;
export const HELDOUT_SEED = 2002;
const DEMO_SEED = 1;
/** Held-out scenes also written losslessly for the parity fixture (the test renders them again). */
export const PARITY_SCENES = 3;
const WIDTH = 640;
const HEIGHT = 480;

async function writeSplit(out: string, split: string, seed: number, count: number, parityDir?: string): Promise<void> {
  const dir = join(out, split);
  await Promise.all(['images', 'depth', 'labels'].map((d) => mkdir(join(dir, d), { recursive: true })));
  const lines: string[] = [];
  const started = Date.now();
  for (let i = 0; i < count; i++) {
    const { scene, rendered } = renderSyntheticScene(seed, i, WIDTH, HEIGHT);
    const id = sceneId(i, count);
    const kinds = new Map<number, { kind: string; role: string }>([[1, { kind: scene.subject, role: 'subject' }]]);
    if (scene.object !== null) kinds.set(2, { kind: scene.object, role: 'object' });
    for (const c of scene.clutter) kinds.set(c.entity, { kind: c.kind, role: 'clutter' });
    const stats = entityStats(rendered, Math.max(...kinds.keys()));
    const objects = [...kinds].flatMap(([entity, k]) => {
      const s = stats[entity];
      // A clutter object can be hidden completely, or lie outside the frame.
      if (s.pixels === 0) return [];
      return [{ entity, kind: k.kind, role: k.role, bbox: [s.x0, s.y0, s.x1 - s.x0 + 1, s.y1 - s.y0 + 1], pixels: s.pixels }];
    });
    lines.push(JSON.stringify({ id, seed, index: i, style: scene.style, relation: scene.relation, subject: scene.subject, object: scene.object, width: WIDTH, height: HEIGHT, objects }));
    const { values } = quantizeDepth({ data: rendered.depth, unit: 'm' });
    const raw = { raw: { width: WIDTH, height: HEIGHT, channels: 1 as const } };
    await Promise.all([
      encodeImage(rendered, 'jpg').then((b) => writeFile(join(dir, 'images', `${id}.jpg`), b)),
      encodeDepthValuesPng(values, WIDTH, HEIGHT, 3).then((b) => writeFile(join(dir, 'depth', `${id}.png`), b)),
      sharp(rendered.label, raw).toColourspace('b-w').png({ compressionLevel: 3 }).toBuffer().then((b) => writeFile(join(dir, 'labels', `${id}.png`), b)),
      parityDir && i < PARITY_SCENES
        ? sharp(rendered.rgb, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).png().toBuffer().then((b) => writeFile(join(parityDir, `${id}.png`), b))
        : undefined,
    ]);
    if ((i + 1) % 250 === 0 || i + 1 === count) process.stderr.write(`${split}: ${i + 1}/${count} scenes (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  await writeFile(join(dir, 'objects.jsonl'), lines.join('\n') + '\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: '.cache/gsr-synth' },
      train: { type: 'string', default: '5000' },
      heldout: { type: 'string', default: '500' },
      'heldout-seed': { type: 'string', default: String(HELDOUT_SEED) },
    },
  });
  const out = values.out!;
  const train = { seed: TRAIN_SEED, count: Number(values.train) };
  const heldout = { seed: Number(values['heldout-seed']), count: Number(values.heldout) };
  // The demo's scenes and the training scenes must not be held out.
  if (!Number.isSafeInteger(heldout.seed) || heldout.seed < 0 || heldout.seed === TRAIN_SEED || heldout.seed === DEMO_SEED) {
    throw new Error(`--heldout-seed must be a non-negative integer other than ${TRAIN_SEED} (training) and ${DEMO_SEED} (the demo), got ${values['heldout-seed']}`);
  }
  const parityDir = join(out, 'parity');
  await mkdir(parityDir, { recursive: true });
  await writeSplit(out, 'heldout', heldout.seed, heldout.count, parityDir);
  await writeSplit(out, 'train', train.seed, train.count);
  await writeFile(join(out, 'settings.json'), JSON.stringify({ width: WIDTH, height: HEIGHT, train, heldout }, null, 2) + '\n');
}

await main();
