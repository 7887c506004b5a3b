/**
 * gsr annotate at real model size (docs/perception.md, "Speed at real model size"): GroundingDINO-T,
 * SAM ViT-B and Depth Anything V2 small, random weights, built by `npm run bench:models`, on the 16
 * What'sUp sample photos when they are beside the repository (test/helpers/shared.ts), else on 16
 * rendered scenes at their size (1127x843); beside the Python reference pipeline (bench/real_reference.py: Transformers + torch,
 * same weights, photos and threads) in the same run; the outputs compared; then the int8 variant;
 * then ZoeDepth depth-only on the first --zoe-photos photos, both pipelines. Run by name only:
 *
 *   npm run bench -- annotate-real [--photos N] [--threads N] [--device cpu|cuda] [--zoe-photos N]
 *     [--no-python] [--no-int8] [--no-all-loaded] [--no-flush-denormals] [--steps] [--synthetic N]
 *     [--models-dir DIR] [--keep DIR]
 *
 * `--keep DIR` leaves every run's outputs (annotations, depth PNGs, the reference's results) in DIR.
 * `gsr_fp32` is `gsr annotate`'s default (one model at a time for real-size models), the run the
 * memory and speed comparisons with the reference (`default_vs_python`) are about; `gsr_fp32_all_loaded`
 * keeps every model loaded (`--no-low-memory`).
 *
 * `--steps` adds the speed-up steps' measurements (session options, pipelining) on the first photos.
 * Every run is a fresh process (its peak RSS is its own). Needs GSR_BENCH_PYTHON (default python3)
 * with torch and transformers for the reference.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fileStemForId, targetsFromManifest, type AnnotateTarget } from '../src/annotate/targets.js';
import { importWhatsupToManifest, synthesizeDataset } from '../src/datasets/index.js';
import { sharedPath } from '../test/helpers/shared.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = join(here, '..');
const python = process.env.GSR_BENCH_PYTHON ?? 'python3';

type Figures = Record<string, unknown> & { images_per_second: number; peak_rss_mib: number; loop_seconds: number };

const load = () => loadavg().map((v) => Math.round(v * 100) / 100);

function worker(cfg: Record<string, unknown>): Figures {
  const before = load();
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(here, 'annotate-real-worker.ts'), JSON.stringify(cfg)], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, GSR_PROGRESS: '0' },
    maxBuffer: 16 << 20,
  });
  return { ...(JSON.parse(out.trim().split('\n').pop()!) as Figures), load_average_before: before, load_average_after: load() };
}

function py(args: string[]): Record<string, unknown> {
  const before = load();
  const res = spawnSync(python, [join(here, 'real_reference.py'), ...args], { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (res.status !== 0) throw new Error(`${python} bench/real_reference.py ${args[0]} failed: ${(res.stderr || res.error?.message || '').trim().split('\n').pop()}`);
  return { ...(JSON.parse(res.stdout.trim().split('\n').pop()!) as Record<string, unknown>), load_average_before: before, load_average_after: load() };
}

/** Parity targets of test/perception/parity.test.ts, as the bench applies them to stored outputs. */
const TOLERANCE = {
  // Boxes are stored to 0.01 px in annotations.json; the parity target is 1e-3 px on top.
  box_shift_px: 0.005 + 1e-3,
  score_diff: 1e-5,
  // SAM's parity: masks identical but for 1-2 pixels that onnxruntime's logits flip (parity table).
  mask_iou_min: 0.999,
  depth_max_abs_over_range: 1e-4,
};

interface Parity {
  objects_compared: number;
  worst: Record<string, number>;
  problems: string[];
  agree?: boolean;
}

function judged(p: Parity): Parity {
  const w = p.worst;
  const within =
    w.box_shift_px! <= TOLERANCE.box_shift_px &&
    w.score_diff! <= TOLERANCE.score_diff &&
    w.mask_iou_min! >= TOLERANCE.mask_iou_min &&
    w.depth_max_abs_over_range! <= TOLERANCE.depth_max_abs_over_range;
  return { ...p, agree: within && p.problems.length === 0 };
}

/** Whether two gsr runs wrote the same records and byte-identical depth PNGs. */
function sameOutputs(a: string, b: string): { records: boolean; depth_files: boolean } {
  const read = (d: string) => JSON.parse(readFileSync(join(d, 'annotations.json'), 'utf8')) as { images: Array<{ depth_file?: string }>; annotations: unknown[] };
  const [x, y] = [read(a), read(b)];
  const depth = x.images.every((im) => !im.depth_file || readFileSync(join(a, im.depth_file)).equals(readFileSync(join(b, im.depth_file))));
  return { records: JSON.stringify([x.images, x.annotations]) === JSON.stringify([y.images, y.annotations]), depth_files: depth };
}

/** GroundingDINO's traced input size (bench/real_models.py, GD_PAD), which both pipelines pad to. */
function gdPad(modelsDir: string): [number, number] {
  const s = (JSON.parse(readFileSync(join(modelsDir, 'grounding-dino-tiny', 'built.json'), 'utf8')) as { input_size: { height: number; width: number } }).input_size;
  return [s.height, s.width];
}

function job(targets: AnnotateTarget[], models: Record<string, string | null>, modelsDir: string, threads: number, outDir: string, path: string): string {
  mkdirSync(outDir, { recursive: true });
  const photos = targets.map((t) => ({ id: t.itemId, stem: fileStemForId(t.itemId), path: t.imagePath, objects: t.objects }));
  const gd_pad = gdPad(modelsDir);
  writeFileSync(path, JSON.stringify({ ...models, models_dir: modelsDir, threads, out_dir: outDir, box_threshold: 0.35, text_threshold: 0.25, gd_pad, photos }));
  return path;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

export default async function bench() {
  const { values: a } = parseArgs({
    args: process.argv.slice(2).filter((x) => x !== 'annotate-real'),
    options: {
      photos: { type: 'string', default: '16' },
      threads: { type: 'string', default: '2' },
      device: { type: 'string', default: 'cpu' },
      'zoe-photos': { type: 'string', default: '4' },
      'models-dir': { type: 'string', default: process.env.GSR_REAL_MODELS_DIR ?? join(repo, '.cache', 'real-models') },
      'no-python': { type: 'boolean', default: false },
      'no-int8': { type: 'boolean', default: false },
      'no-all-loaded': { type: 'boolean', default: false },
      'no-flush-denormals': { type: 'boolean', default: false },
      steps: { type: 'boolean', default: false },
      synthetic: { type: 'string', default: '0' },
      keep: { type: 'string' },
    },
  });
  const modelsDir = a['models-dir']!;
  const threads = Number(a.threads);
  const device = a.device as 'cpu' | 'cuda';
  const needed = ['grounding-dino-tiny', 'sam-vit-base', 'depth-anything-v2-small', ...(Number(a['zoe-photos']) > 0 ? ['zoedepth-nyu-kitti'] : [])];
  const built = needed.filter((id) => !existsSync(join(modelsDir, id, 'built.json')));
  if (built.length > 0) throw new Error(`real-size models missing in ${modelsDir}: ${built.join(', ')}; run npm run bench:models`);

  if (a.keep) mkdirSync(a.keep, { recursive: true });
  const dir = a.keep ? mkdtempSync(join(a.keep, 'run-')) : mkdtempSync(join(tmpdir(), 'gsr-annotate-real-'));
  try {
    const sample = sharedPath('whatsupSample');
    let manifest = join(dir, 'photos.jsonl');
    if (sample) {
      await importWhatsupToManifest(join(sample, 'data'), manifest);
    } else {
      await synthesizeDataset({ out: join(dir, 'rendered'), count: 16, seed: 7, width: 1127, height: 843 });
      manifest = join(dir, 'rendered', 'manifest.jsonl');
    }
    const all = await targetsFromManifest(manifest);
    const photos = all.slice(0, Number(a.photos));
    writeFileSync(manifest, readFileSync(manifest, 'utf8').trim().split('\n').slice(0, photos.length).join('\n') + '\n');
    const models = { detector: 'grounding-dino-tiny', segmenter: 'sam-vit-base', depth: 'depth-anything-v2-small' };
    const pad = gdPad(modelsDir);
    // lowMemory unset: `gsr annotate`'s own default decides (one model at a time for these models).
    const base = { mode: 'annotate', manifest, modelsDir, device, threads, ...models, params: { pad_size: `${pad[0]}x${pad[1]}` } };
    const result: Record<string, unknown> = {
      photos: photos.length,
      images: sample ? "the What'sUp sample photos" : 'rendered scenes, 1127x843 (the What\'sUp sample photos are not beside the repository)',
      threads,
      device,
      cpus: cpus().length,
      models: { ...models, zoedepth: 'zoedepth-nyu-kitti (depth only)' },
      tolerance: TOLERANCE,
    };
    const step = (label: string) => process.stderr.write(`  ${label} (load ${load().join(' ')})\n`);

    step(`gsr fp32 (the default), ${photos.length} photos`);
    const gsr = worker({ ...base, outDir: join(dir, 'gsr-fp32'), precision: 'fp32' });
    result.gsr_fp32 = gsr;
    if (!a['no-all-loaded']) {
      step(`gsr fp32 --no-low-memory, ${photos.length} photos`);
      result.gsr_fp32_all_loaded = worker({ ...base, outDir: join(dir, 'gsr-fp32-all'), precision: 'fp32', lowMemory: false });
      result.all_loaded_same_outputs_as_fp32 = sameOutputs(join(dir, 'gsr-fp32'), join(dir, 'gsr-fp32-all'));
    }
    if (!a['no-flush-denormals']) {
      step(`gsr fp32 --flush-denormals, ${photos.length} photos`);
      result.gsr_fp32_flush_denormals = worker({ ...base, outDir: join(dir, 'gsr-fp32-flush'), precision: 'fp32', session: { denormalAsZero: true } });
      result.flush_denormals_same_outputs_as_fp32 = sameOutputs(join(dir, 'gsr-fp32'), join(dir, 'gsr-fp32-flush'));
    }
    if (!a['no-python']) {
      step('python reference');
      const jobPath = job(photos, models, modelsDir, threads, join(dir, 'ref'), join(dir, 'job.json'));
      const ref = py(['run', jobPath]) as Figures;
      result.python_reference = ref;
      result.gsr_fp32_vs_python = ratio(gsr.images_per_second, ref.images_per_second);
      // The default against the reference, speed and peak memory, from this one run (docs/perception.md).
      result.default_vs_python = {
        speed: result.gsr_fp32_vs_python,
        peak_rss_mib: { gsr_default: gsr.peak_rss_mib, python_reference: ref.peak_rss_mib },
        peak_rss_ratio: ratio(gsr.peak_rss_mib, ref.peak_rss_mib),
      };
      result.parity_fp32 = judged(py(['compare', jobPath, join(dir, 'gsr-fp32'), join(dir, 'ref')]) as unknown as Parity);
      const flush = result.gsr_fp32_flush_denormals as Figures | undefined;
      if (flush) {
        result.gsr_fp32_flush_denormals_vs_python = ratio(flush.images_per_second, ref.images_per_second);
        result.parity_fp32_flush_denormals = judged(py(['compare', jobPath, join(dir, 'gsr-fp32-flush'), join(dir, 'ref')]) as unknown as Parity);
      }
      const all = result.gsr_fp32_all_loaded as Figures | undefined;
      if (all) {
        result.gsr_fp32_all_loaded_vs_python = ratio(all.images_per_second, ref.images_per_second);
        result.parity_fp32_all_loaded = judged(py(['compare', jobPath, join(dir, 'gsr-fp32-all'), join(dir, 'ref')]) as unknown as Parity);
      }
      if (!a['no-int8']) {
        step('gsr int8');
        const int8 = worker({ ...base, outDir: join(dir, 'gsr-int8'), precision: 'int8' });
        result.gsr_int8 = int8;
        result.int8_speedup_over_fp32 = ratio(int8.images_per_second, gsr.images_per_second);
        // Parity loss: the same comparison, int8 outputs against the fp32 reference.
        result.parity_loss_int8 = py(['compare', jobPath, join(dir, 'gsr-int8'), join(dir, 'ref')]);
      }
      const zoe = Number(a['zoe-photos']);
      if (zoe > 0) {
        step(`ZoeDepth depth-only, ${zoe} photos`);
        const zm = join(dir, 'zoe.jsonl');
        writeFileSync(zm, readFileSync(manifest, 'utf8').trim().split('\n').slice(0, zoe).join('\n') + '\n');
        const zModels = { detector: null, segmenter: null, depth: 'zoedepth-nyu-kitti' };
        const zJob = job(photos.slice(0, zoe), zModels, modelsDir, threads, join(dir, 'zref'), join(dir, 'zjob.json'));
        const zBase = { ...base, ...zModels, mode: 'depth', manifest: zm };
        const zg = worker({ ...zBase, outDir: join(dir, 'zoe-fp32'), precision: 'fp32' });
        const zr = py(['run', zJob]) as Figures;
        const zoeOut: Record<string, unknown> = {
          gsr_fp32: zg,
          python_reference: zr,
          gsr_fp32_vs_python: ratio(zg.images_per_second, zr.images_per_second),
          parity_fp32: judged(py(['compare', zJob, join(dir, 'zoe-fp32'), join(dir, 'zref')]) as unknown as Parity),
        };
        if (!a['no-int8']) {
          const zi = worker({ ...zBase, outDir: join(dir, 'zoe-int8'), precision: 'int8' });
          zoeOut.gsr_int8 = zi;
          zoeOut.int8_speedup_over_fp32 = ratio(zi.images_per_second, zg.images_per_second);
          zoeOut.parity_loss_int8 = py(['compare', zJob, join(dir, 'zoe-int8'), join(dir, 'zref')]);
        }
        result.zoedepth = zoeOut;
      }
    }
    if (a.steps) result.steps = steps(base, dir, photos.length);
    const synthetic = Number(a.synthetic);
    if (synthetic > 0) {
      step(`${synthetic} synthetic scenes`);
      const syn = join(dir, 'syn');
      await synthesizeDataset({ out: syn, count: synthetic, seed: 7, width: 640, height: 480, format: 'png' });
      result.synthetic = worker({ ...base, manifest: join(syn, 'manifest.jsonl'), outDir: join(dir, 'gsr-syn'), precision: 'fp32' });
    }
    const parity = [result.parity_fp32, result.parity_fp32_all_loaded, result.parity_fp32_flush_denormals, (result.zoedepth as { parity_fp32?: Parity } | undefined)?.parity_fp32].filter(Boolean) as Parity[];
    if (parity.some((p) => !p.agree)) {
      process.exitCode = 1;
      process.stderr.write('annotate-real: gsr-bench and the Python reference disagree beyond the parity tolerances (see parity_fp32)\n');
    }
    return result;
  } finally {
    if (a.keep) process.stderr.write(`annotate-real: outputs kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The speed-up steps, each against the shipped default on the first photos (at most 2): onnxruntime
 * session options one at a time, and pre-processing of the next image during inference (prefetch).
 */
function steps(base: Record<string, unknown>, dir: string, photos: number): Record<string, unknown> {
  const n = Math.min(2, photos);
  const manifest = join(dir, 'steps.jsonl');
  writeFileSync(manifest, readFileSync(base.manifest as string, 'utf8').trim().split('\n').slice(0, n).join('\n') + '\n');
  const variants: Record<string, Record<string, unknown>> = {
    default: {},
    memory_pattern_on: { session: { memoryPattern: true } },
    all_loaded: { lowMemory: false },
    graph_optimization_basic: { session: { graphOptimization: 'basic' } },
    memory_arena_off: { session: { memoryArena: false } },
    flush_denormals: { session: { denormalAsZero: true } },
    parallel_execution_2_inter_op: { session: { executionMode: 'parallel', interOpThreads: 2 } },
    intra_op_threads_1: { threads: 1 },
    prefetch: { prefetch: true },
    int8: { precision: 'int8' },
    int8_flush_denormals: { precision: 'int8', session: { denormalAsZero: true } },
  };
  const out: Record<string, unknown> = { photos: n };
  for (const [name, v] of Object.entries(variants)) {
    process.stderr.write(`  step ${name} (load ${load().join(' ')})\n`);
    const r = worker({ ...base, manifest, outDir: join(dir, `step-${name}`), precision: 'fp32', ...v });
    out[name] = { images_per_second: r.images_per_second, loop_seconds: r.loop_seconds, peak_rss_mib: r.peak_rss_mib, stages_ms: r.stages_ms, load_average_before: r.load_average_before };
  }
  return out;
}
