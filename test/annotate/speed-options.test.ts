/**
 * The speed options of `gsr annotate` (docs/perception.md, "Speed"): onnxruntime session settings,
 * the int8 file variant, and pipelining (pre-processing the next image during inference), which
 * must not change a single output; also the decoding options, which must. Fixture models
 * (test/helpers/onnx-fixtures.ts); no timings.
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { annotate, smallModels, type AnnotateOptions } from '../../src/annotate/run.js';
import { targetsFromImages, type AnnotateTarget } from '../../src/annotate/targets.js';
import type { CocoFile } from '../../src/formats/coco.js';
import { decodeDepthPng } from '../../src/formats/depth-png.js';
import { Ahead } from '../../src/perception/ahead.js';
import { padPixels, parsePadSize } from '../../src/perception/models/grounding-dino.js';
import { precisionPath } from '../../src/perception/manifest.js';
import { ortOptions, SMALL_MODEL_BYTES } from '../../src/perception/runtime.js';
import type { RgbImage } from '../../src/perception/types.js';
import { recordStages } from '../../src/util/stage-clock.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';
import { writeDepthFixture, writeGroundingDinoFixture, writeSamDecoderFixture, writeSamEncoderFixture } from '../helpers/onnx-fixtures.js';
import { writePng } from './helpers/images.js';

const DEPTH = 'depth-anything-v2-metric-indoor-small';

describe('session options and precision (pure)', () => {
  it('defaults to full optimisation, sequential, arena on and patterns off; tuning overrides each', () => {
    expect(ortOptions('cpu', 2)).toEqual({
      executionProviders: ['cpu'], graphOptimizationLevel: 'all', executionMode: 'sequential', enableCpuMemArena: true, enableMemPattern: false, intraOpNumThreads: 2,
    });
    const tuned = ortOptions('cpu', 0, { graphOptimization: 'basic', executionMode: 'parallel', interOpThreads: 2, memoryArena: false, memoryPattern: true });
    expect(tuned).toEqual({
      executionProviders: ['cpu'], graphOptimizationLevel: 'basic', executionMode: 'parallel', enableCpuMemArena: false, enableMemPattern: true, interOpNumThreads: 2,
    });
    // Flushing denormals is opt-in (it changes results below float32's normal range).
    expect(ortOptions('cpu', 2, { denormalAsZero: true }).extra).toEqual({ session: { set_denormal_as_zero: '1' } });
    expect(ortOptions('cpu', 2, { denormalAsZero: false }).extra).toBeUndefined();
    // Threads that sleep while they wait (the small models' sessions), alone and with denormals flushed.
    expect(ortOptions('cpu', 2, {}, false).extra).toEqual({ session: { intra_op: { allow_spinning: '0' } } });
    expect(ortOptions('cpu', 2, { denormalAsZero: true }, false).extra).toEqual({ session: { set_denormal_as_zero: '1', intra_op: { allow_spinning: '0' } } });
  });

  it('int8 is <stem>.int8.onnx beside an .onnx file; other files and fp32 are unchanged', () => {
    expect(precisionPath('/m/sam/vision_encoder.onnx', 'int8')).toBe('/m/sam/vision_encoder.int8.onnx');
    expect(precisionPath('/m/sam/vision_encoder.onnx', 'fp32')).toBe('/m/sam/vision_encoder.onnx');
    expect(precisionPath('/m/sam/vision_encoder.onnx', undefined)).toBe('/m/sam/vision_encoder.onnx');
    expect(precisionPath('/m/gd/tokenizer.json', 'int8')).toBe('/m/gd/tokenizer.json');
  });
});

describe('GroundingDINO pad_size', () => {
  it('pads the tensor bottom/right with zeros and masks the padding; off by default', () => {
    expect(parsePadSize(undefined)).toBeNull();
    expect(parsePadSize('none')).toBeNull();
    expect(parsePadSize('800x1333')).toEqual([800, 1333]);
    expect(() => parsePadSize('800')).toThrow(/^parameter pad_size must be HxW \(e\.g\. 800x1333\) or none, got "800"$/);
    const data = Float32Array.from({ length: 3 * 2 * 2 }, (_, i) => i + 1);
    const p = padPixels(data, 2, 2, 3, 4);
    expect(Array.from(p.data.subarray(0, 12))).toEqual([1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(p.data.subarray(24, 30))).toEqual([9, 10, 0, 0, 11, 12]);
    expect(Array.from(p.mask, Number)).toEqual([1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect(() => padPixels(data, 2, 2, 1, 4)).toThrow(/larger than pad_size 1x4/);
  });
});

describe('Ahead (pre-processing started before its turn)', () => {
  const img = (n: number): RgbImage => ({ data: new Uint8Array(3), width: n, height: 1 });

  it('take() returns what start() began, once; otherwise prepares on the spot', async () => {
    const make = vi.fn(async (i: RgbImage) => i.width * 10);
    const ahead = new Ahead(make);
    const a = img(1);
    ahead.start(a);
    ahead.start(a);
    expect(make).toHaveBeenCalledTimes(1);
    expect(await ahead.take(a)).toBe(10);
    expect(await ahead.take(a)).toBe(10);
    expect(make).toHaveBeenCalledTimes(2);
  });

  it('holds at most two images and hands dropped results back', async () => {
    const dropped: number[] = [];
    const ahead = new Ahead(async (i: RgbImage) => i.width, (v) => dropped.push(v));
    const [a, b, c] = [img(1), img(2), img(3)];
    ahead.start(a);
    ahead.start(b);
    ahead.start(c);
    await Promise.resolve();
    await Promise.resolve();
    expect(dropped).toEqual([1]);
    ahead.clear();
    await new Promise((r) => setTimeout(r, 0));
    expect(dropped.sort((x, y) => x - y)).toEqual([1, 2, 3]);
  });
});

describe('annotate: pipelining, int8 files and stage totals with fixture models', () => {
  let dir: string;
  let targets: AnnotateTarget[];
  const opts = (out: string, extra: Partial<AnnotateOptions> = {}): AnnotateOptions => ({
    targets, outDir: join(dir, out), detector: 'grounding-dino-tiny', segmenter: 'slimsam-77-uniform', depth: DEPTH,
    modelsDir: join(dir, 'models'), device: 'cpu', threads: 1, ...extra,
  });
  const read = (out: string) => {
    const coco = JSON.parse(readFileSync(join(dir, out, 'annotations.json'), 'utf8')) as CocoFile;
    return { images: coco.images, annotations: coco.annotations };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gsr-speed-options-'));
    const models = join(dir, 'models');
    const dino = join(models, 'grounding-dino-tiny');
    writeGroundingDinoFixture(join(dino, 'model.onnx'), [{ tokenId: 9, logit: 2, box: [0.5, 0.5, 0.3, 0.4] }, { tokenId: 11, logit: 3, box: [0.5, 0.8, 1.0, 0.4] }]);
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(REPO_ROOT, 'test/fixtures/perception/bert-uncased-tiny', f), join(dino, f));
    writeSamEncoderFixture(join(models, 'slimsam-77-uniform', 'vision_encoder.onnx'));
    writeSamDecoderFixture(join(models, 'slimsam-77-uniform', 'prompt_encoder_mask_decoder.onnx'));
    writeDepthFixture(join(models, DEPTH, 'model.onnx'), { scale: 2, offset: 3 });
    // The "int8" file differs in a way the output shows (offset 5 instead of 3).
    writeDepthFixture(join(models, DEPTH, 'model.int8.onnx'), { scale: 2, offset: 5 });
    const images = [];
    for (let i = 0; i < 4; i++) {
      images.push(join(dir, `scene${i}.png`));
      await writePng(images[i]!, 120 + 20 * i, 90 + 10 * i);
    }
    targets = targetsFromImages(images, [
      { role: 'subject', phrase: 'mug' },
      { role: 'object', phrase: 'table' },
    ]);
  });

  it('pre-processing ahead (off by default on the CPU) changes no output, and the stage clock sees every stage', async () => {
    const stages = recordStages(true)!;
    const on = await annotate(opts('on', { prefetch: true, lowMemory: false }));
    recordStages(false);
    const off = await annotate(opts('off', { lowMemory: false }));
    expect(on.images_done).toBe(4);
    expect(on.objects_found).toBe(8);
    expect(off.images_done).toBe(4);
    expect(read('on')).toEqual(read('off'));
    for (const s of ['decode', 'pre:grounding-dino-tiny', 'model:grounding-dino-tiny', 'post:grounding-dino-tiny', 'pre:slimsam-77-uniform',
      'model:slimsam-77-uniform encoder', 'model:slimsam-77-uniform decoder', 'post:slimsam-77-uniform', `pre:${DEPTH}`, `model:${DEPTH}`, `post:${DEPTH}`, 'post:annotate', 'write']) {
      expect(stages[s]?.calls, s).toBeGreaterThan(0);
    }
    expect(stages['model:slimsam-77-uniform encoder']!.calls).toBe(4); // one embedding per image, two boxes each
    expect(stages['model:slimsam-77-uniform decoder']!.calls).toBe(8);
  }, scaled(60_000));

  it('one model at a time (in chunks, asked for by lowMemoryChunk) gives the same records as every model loaded, failures included', async () => {
    const bad = join(dir, 'broken.png');
    writeFileSync(bad, 'not a png');
    const withBad = [...targets.slice(0, 2), ...targetsFromImages([bad], targets[0]!.objects), ...targets.slice(2)];
    const stages = recordStages(true)!;
    const low = await annotate(opts('low', { targets: withBad, lowMemoryChunk: 2 }));
    recordStages(false);
    await annotate(opts('all', { targets: withBad, lowMemory: false }));
    expect(low.images_done).toBe(4);
    expect(low.images_failed).toBe(1);
    expect(read('low')).toEqual(read('all'));
    const journal = (out: string) => readFileSync(join(dir, out, 'journal.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"failed"'));
    expect(journal('low')).toEqual(journal('all'));
    expect(stages['model:slimsam-77-uniform encoder']!.calls).toBe(4);
    const info = (out: string) => (JSON.parse(readFileSync(join(dir, out, 'annotations.json'), 'utf8')) as CocoFile).info!.models;
    expect(info('low')).toEqual(info('all'));
  }, scaled(60_000));

  it('small models (every ONNX file under 16 MB) are loaded together by default; a larger file or an unknown model keeps one at a time', async () => {
    const models = { detector: 'grounding-dino-tiny', segmenter: 'slimsam-77-uniform', depth: DEPTH, modelsDir: join(dir, 'models') };
    expect(await smallModels(models)).toBe(true);
    expect(await smallModels({ ...models, depth: 'no-such-model' })).toBe(false);
    const big = join(dir, 'big-models');
    cpSync(join(dir, 'models'), big, { recursive: true });
    truncateSync(join(big, DEPTH, 'model.onnx'), SMALL_MODEL_BYTES); // sparse: the size counts, not the contents
    expect(await smallModels({ ...models, modelsDir: big })).toBe(false);
    expect(await smallModels({ ...models, modelsDir: big, depth: null })).toBe(true);
    // The default run (every model loaded here) gives the records of one model at a time.
    await annotate(opts('default'));
    await annotate(opts('one-at-a-time', { lowMemory: true }));
    expect(read('default')).toEqual(read('one-at-a-time'));
  }, scaled(60_000));

  it('--precision int8 loads <stem>.int8.onnx and records it; a missing int8 file is a one-line error', async () => {
    const one = { targets: targets.slice(0, 1), segmenter: null };
    await expect(annotate(opts('no-int8', { ...one, precision: 'int8' }))).rejects.toThrow(
      /^--precision int8: .*grounding-dino-tiny\/model\.int8\.onnx not found \(make it with onnxruntime's quantize_dynamic; docs\/perception\.md, "Speed"\)$/,
    );
    copyFileSync(join(dir, 'models/grounding-dino-tiny/model.onnx'), join(dir, 'models/grounding-dino-tiny/model.int8.onnx'));
    await annotate(opts('fp32', one));
    await annotate(opts('int8', { ...one, precision: 'int8' }));
    const depth = async (out: string) => {
      const im = read(out).images[0]!;
      return (await decodeDepthPng(join(dir, out, im.depth_file!), im.depth_scale!)).data;
    };
    const [fp32, int8] = [await depth('fp32'), await depth('int8')];
    expect(int8[0]! - fp32[0]!).toBeCloseTo(2, 2); // offset 5 instead of 3
    const info = (JSON.parse(readFileSync(join(dir, 'int8', 'annotations.json'), 'utf8')) as CocoFile).info!;
    const depthModel = info.models!.find((m) => m.id === DEPTH)!;
    expect(depthModel.settings).toMatchObject({ precision: 'int8' });
    expect(depthModel.files![0]!.path).toMatch(/model\.int8\.onnx$/);
    expect(depthModel.files![0]!.matches_manifest).toBeNull();
    const fp32Info = (JSON.parse(readFileSync(join(dir, 'fp32', 'annotations.json'), 'utf8')) as CocoFile).info!;
    expect(fp32Info.models!.find((m) => m.id === DEPTH)!.settings?.precision).toBeUndefined();
  }, scaled(60_000));

  it('--flush-denormals gives the same records here and is recorded per model', async () => {
    const out = join(dir, 'flushed');
    const r = runCli([
      'annotate', 'run', ...targets.slice(0, 2).map((t) => t.imagePath), '--objects', 'mug,table', '--detector', 'grounding-dino-tiny',
      '--segmenter', 'slimsam-77-uniform', '--depth', DEPTH, '--models-dir', join(dir, 'models'), '--device', 'cpu', '--threads', '1',
      '--flush-denormals', '--out', out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    await annotate(opts('not-flushed', { targets: targets.slice(0, 2) }));
    expect(read('flushed')).toEqual(read('not-flushed'));
    const models = (o: string) => (JSON.parse(readFileSync(join(dir, o, 'annotations.json'), 'utf8')) as CocoFile).info!.models!;
    expect(models('flushed').map((m) => m.settings?.denormals)).toEqual(['flushed to zero', 'flushed to zero', 'flushed to zero']);
    expect(models('not-flushed').map((m) => m.settings?.denormals)).toEqual([undefined, undefined, undefined]);
  }, scaled(60_000));
  it('--decode-alpha, --decode-grey16 and --decode-icc reach the decoder, are recorded per model and in the journal', async () => {
    const images = ['rgba.png', 'grey-16bit.png', 'icc-wide.jpg'].map((f) => join(REPO_ROOT, 'test/fixtures/perception/images', f));
    const decoded = targetsFromImages(images, [{ role: 'subject', phrase: 'mug' }, { role: 'object', phrase: 'table' }]);
    const r = runCli([
      'annotate', 'run', ...images, '--objects', 'mug,table', '--detector', 'grounding-dino-tiny', '--segmenter', 'slimsam-77-uniform', '--depth', DEPTH,
      '--models-dir', join(dir, 'models'), '--device', 'cpu', '--threads', '1', '--decode-alpha', 'white', '--decode-grey16', 'high-byte',
      '--decode-icc', 'convert', '--out', join(dir, 'named-decoding'),
    ]);
    expect(r.status, r.stderr).toBe(0);
    await annotate(opts('reference-decoding', { targets: decoded }));
    // The depth fixture follows the pixels: each rule gives other depth maps.
    for (const t of decoded) {
      const depth = (out: string) => readFileSync(join(dir, out, 'depth', `${t.itemId}.png`));
      expect(depth('named-decoding').equals(depth('reference-decoding')), t.fileName).toBe(false);
    }
    const models = (o: string) => (JSON.parse(readFileSync(join(dir, o, 'annotations.json'), 'utf8')) as CocoFile).info!.models!;
    for (const m of models('named-decoding')) expect(m.settings).toMatchObject({ decode_alpha: 'white', decode_grey16: 'high-byte', decode_icc: 'convert' });
    for (const m of models('reference-decoding')) expect(m.settings?.decode_alpha ?? m.settings?.decode_grey16 ?? m.settings?.decode_icc).toBeUndefined();
    // A resume with other decoding rules would mix them: refused.
    await expect(annotate(opts('named-decoding', { targets: decoded }))).rejects.toThrow(
      /other settings \(decode: \{"decode_alpha":"white","decode_grey16":"high-byte","decode_icc":"convert"\} -> \{"decode_alpha":"drop","decode_grey16":"clip","decode_icc":"ignore"\}\)/,
    );
  }, scaled(60_000));
});
