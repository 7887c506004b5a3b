/**
 * Scoring-core throughput: COCO RLE encode / IoU on 1024x1024 masks beside pycocotools, and full-benchmark scoring
 * (4,958 What'sUp items x 27 models, CircularEval prompts and G-Score objects) on synthetic answers.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { CocoFile } from '../src/formats/coco.js';
import { decodeMask, type Rle, rleDecode, rleEncode, rleIou, rleIouMatrix } from '../src/geometry/index.js';
import type { ResponseRecord } from '../src/formats/responses.js';
import type { PromptRecord } from '../src/formats/prompts.js';
import { indexGroundTruth, indexPrompts, scoreGrounding, scoreReasoning } from '../src/scoring/index.js';

const SPLITS: Array<[string, number, number]> = [
  // split, items, options (= rotations); object count follows from one/two-object splits
  ['whatsup-a', 412, 4],
  ['whatsup-b', 408, 4],
  ['coco-one', 2247, 2],
  ['coco-two', 440, 2],
  ['gqa-one', 1160, 2],
  ['gqa-two', 291, 2],
];
const MODELS = 27;

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function blobMask(rnd: () => number, size: number): Uint8Array {
  const m = new Uint8Array(size * size);
  for (let b = 0; b < 6; b++) {
    const cx = rnd() * size;
    const cy = rnd() * size;
    const r = 30 + rnd() * 200;
    const y0 = Math.max(0, Math.floor(cy - r));
    const y1 = Math.min(size - 1, Math.ceil(cy + r));
    for (let y = y0; y <= y1; y++) {
      const dx = Math.sqrt(Math.max(0, r * r - (y - cy) ** 2));
      for (let x = Math.max(0, Math.floor(cx - dx)); x <= Math.min(size - 1, Math.ceil(cx + dx)); x++) m[y * size + x] = 1;
    }
  }
  return m;
}

/** global.gc, exposed on demand when node was started without --expose-gc. */
function collectGarbage(): void {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
    (globalThis as { gc?: () => void }).gc = gc;
  }
  gc();
}

/** Result, wall seconds and CPU seconds (the CPU figure is steadier on a shared machine). */
function timeIt<T>(fn: () => T): [T, number, number] {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const v = fn();
  const c = process.cpuUsage(c0);
  return [v, (performance.now() - t0) / 1000, (c.user + c.system) / 1e6];
}

/** Median of per-second rates over runs, from wall and CPU seconds. */
function rates(count: number, runs: Array<{ wall_s: number; cpu_s: number }>) {
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  return {
    per_s_wall: Math.round(count / median(runs.map((r) => r.wall_s))),
    per_s_cpu: Math.round(count / median(runs.map((r) => r.cpu_s))),
    runs: runs.map((r) => ({ wall_s: +r.wall_s.toFixed(4), cpu_s: +r.cpu_s.toFixed(4) })),
  };
}

/** Row-major masks as numpy.packbits bytes (most significant bit first), for the Python side. */
function packBits(masks: Uint8Array[]): Buffer {
  const total = masks.reduce((a, m) => a + m.length, 0);
  const out = Buffer.alloc(Math.ceil(total / 8));
  let bit = 0;
  for (const m of masks) for (let i = 0; i < m.length; i++, bit++) if (m[i]) out[bit >> 3] |= 0x80 >> (bit & 7);
  return out;
}

type Timing = { wall_s: number; cpu_s: number };
type Pycocotools = {
  python: string;
  round: () => Promise<{ encode: Timing; iou: Timing }>;
  finish: () => Promise<{ pycocotools: string; numpy: string; encode_matches: boolean; iou_matrix_base64: string }>;
  dispose: () => void;
};

/**
 * pycocotools' encode and iou on the same masks, run by bench/pycocotools_mask.py with
 * GSR_BENCH_PYTHON (default python3): one process that times one round each time `round` is
 * called, so the bench interleaves its own rounds with these. Without pycocotools it says so and
 * the comparison is skipped.
 */
function startPycocotools(masks: Uint8Array[], size: number, rles: Rle[]): Pycocotools | { skipped: string } {
  const python = process.env.GSR_BENCH_PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import numpy, pycocotools.mask'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    const skipped = `pycocotools not importable by ${python}; comparison skipped (set GSR_BENCH_PYTHON to a python with numpy and pycocotools)`;
    process.stderr.write(`bench scoring: ${skipped}\n`);
    return { skipped };
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'gsr-bench-coco-'));
  const bits = join(dir, 'masks.bin');
  writeFileSync(bits, packBits(masks));
  const spec = join(dir, 'spec.json');
  writeFileSync(spec, JSON.stringify({ masks: masks.length, height: size, width: size, bits, counts: rles.map((r) => r.counts) }));
  const script = fileURLToPath(new URL('./pycocotools_mask.py', import.meta.url));
  const child = spawn(python, [script, spec], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    const line = await lines.next();
    if (line.done) throw new Error(`${script} failed (exit ${await exited}): ${stderr}`);
    return JSON.parse(line.value) as T;
  };
  return {
    python,
    round: () => {
      child.stdin.write('round\n');
      return next();
    },
    finish: () => {
      child.stdin.end('end\n');
      return next();
    },
    /** Stops the process if it still runs (the bench failed) and removes the input files. */
    dispose: () => {
      if (child.exitCode === null) child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * COCO RLE on 100 blob masks of 1024x1024: encode, decode, IoU one pair at a time (rleIou) and as a
 * matrix that decodes each mask once (rleIouMatrix), from strings and from decoded masks; then the
 * same work by pycocotools, one round of each side after the other in the same run.
 */
async function rleFigures() {
  const rnd = seeded(1);
  const size = 1024;
  const runs = 5;
  const masks = Array.from({ length: 100 }, () => blobMask(rnd, size));
  const pairs = masks.length ** 2;
  rleEncode(masks[0], size, size); // warm-up
  const [encode, decode, pairwise, matrix, matrixDecoded, pyEncode, pyIou]: Timing[][] = [[], [], [], [], [], [], []];
  const rles = masks.map((m) => rleEncode(m, size, size));
  const coco = startPycocotools(masks, size, rles);
  // Each step's garbage (rleIou decodes both masks of every pair) is collected before the next is timed.
  const timed = <T>(fn: () => T) => {
    collectGarbage();
    return timeIt(fn);
  };
  try {
    let ours: Float64Array[] = [];
    for (let r = 0; r < runs; r++) {
      const [, ew, ec] = timed(() => masks.map((m) => rleEncode(m, size, size)));
      encode.push({ wall_s: ew, cpu_s: ec });
      const [, dw, dc] = timed(() => rles.map((x) => rleDecode(x)));
      decode.push({ wall_s: dw, cpu_s: dc });
      const [, pw, pc] = timed(() => {
        let s = 0;
        for (let i = 0; i < rles.length; i++) for (let j = 0; j < rles.length; j++) s += rleIou(rles[i], rles[j]);
        return s;
      });
      pairwise.push({ wall_s: pw, cpu_s: pc });
      const [iou, mw0, mc0] = timed(() => rleIouMatrix(rles, rles));
      ours = iou;
      matrix.push({ wall_s: mw0, cpu_s: mc0 });
      const decoded = rles.map(decodeMask);
      const [, mw, mc] = timed(() => rleIouMatrix(decoded, decoded));
      matrixDecoded.push({ wall_s: mw, cpu_s: mc });
      if ('round' in coco) {
        const py = await coco.round();
        pyEncode.push(py.encode);
        pyIou.push(py.iou);
      }
    }
    const figures = {
      mask_size: `${size}x${size}`,
      masks: masks.length,
      pairs,
      mean_counts_chars: Math.round(rles.reduce((a, r) => a + r.counts.length, 0) / rles.length),
      encode_masks: rates(masks.length, encode),
      decode_masks: rates(masks.length, decode),
      iou_pairs_one_at_a_time: rates(pairs, pairwise),
      iou_matrix_pairs_from_strings: rates(pairs, matrix),
      iou_matrix_pairs_from_decoded: rates(pairs, matrixDecoded),
    };
    if (!('round' in coco)) return { ...figures, pycocotools: coco };
    const py = await coco.finish();
    const theirs = new Float64Array(new Uint8Array(Buffer.from(py.iou_matrix_base64, 'base64')).buffer);
    let maxDiff = 0;
    for (let d = 0; d < ours.length; d++) for (let g = 0; g < ours.length; g++) maxDiff = Math.max(maxDiff, Math.abs(ours[d][g] - theirs[d * ours.length + g]));
    const pycocotools = {
      python: coco.python,
      version: py.pycocotools,
      numpy: py.numpy,
      encode_masks: rates(masks.length, pyEncode),
      iou_pairs: rates(pairs, pyIou),
      encode_strings_identical: py.encode_matches,
      iou_max_abs_difference: maxDiff,
    };
    const ratio = (a: { per_s_wall: number; per_s_cpu: number }, b: { per_s_wall: number; per_s_cpu: number }) => ({
      wall: +(a.per_s_wall / b.per_s_wall).toFixed(2),
      cpu: +(a.per_s_cpu / b.per_s_cpu).toFixed(2),
    });
    return {
      ...figures,
      pycocotools,
      vs_pycocotools: {
        iou_matrix_from_strings: ratio(figures.iou_matrix_pairs_from_strings, pycocotools.iou_pairs),
        iou_one_at_a_time: ratio(figures.iou_pairs_one_at_a_time, pycocotools.iou_pairs),
        encode: ratio(figures.encode_masks, pycocotools.encode_masks),
        // Round r of each side ran one after the other: their CPU-time ratio, round by round.
        iou_matrix_from_strings_by_round_cpu: matrix.map((m, r) => +(pyIou[r].cpu_s / m.cpu_s).toFixed(2)),
        encode_by_round_cpu: encode.map((e, r) => +(pyEncode[r].cpu_s / e.cpu_s).toFixed(2)),
      },
    };
  } finally {
    if ('dispose' in coco) coco.dispose();
  }
}

const OPTIONS = ['A mug on a table', 'A mug under a table', 'A mug to the left of a table', 'A mug to the right of a table'];

function benchmarkPrompts(): PromptRecord[] {
  const out: PromptRecord[] = [];
  for (const [split, n, k] of SPLITS) {
    for (let i = 0; i < n; i++) {
      for (let r = 0; r < k; r++) {
        const permutation = Array.from({ length: k }, (_, j) => (j + r) % k);
        const answerIndex = permutation.indexOf(0);
        const task = i % 2 === 0 ? 'mc' : 'tg';
        const options = permutation.map((o) => OPTIONS[o]);
        out.push({
          key: `${split}-${i}-${r}`, item: `${split}-${i}`, split, relation: 'on', task, permutation, rotation: r, image: 'x.jpg', text: 'q',
          options, expected: task === 'mc' ? String.fromCharCode(65 + answerIndex) : options[answerIndex], answer_index: answerIndex,
        });
      }
    }
  }
  return out;
}

/** Answers in the shapes models write: letters, sentences, captions, refusals. */
function answer(p: PromptRecord, rnd: () => number): string {
  const choice = rnd() < 0.6 ? p.answer_index! : Math.floor(rnd() * p.options.length);
  const L = String.fromCharCode(65 + choice);
  const u = rnd();
  if (p.task === 'mc') {
    if (u < 0.4) return L;
    if (u < 0.6) return `(${L}) ${p.options[choice]}`;
    if (u < 0.8) return `Looking at the image carefully, the answer is ${L}.`;
    if (u < 0.95) return `**${L}**`;
    return 'I cannot determine this from the image.';
  }
  if (u < 0.5) return p.options[choice];
  if (u < 0.9) return `In the image, ${p.options[choice].toLowerCase()}.`;
  return 'Sorry, it is hard to tell.';
}

function groundingData(): { coco: CocoFile; objects: Array<{ item: string; role: 'subject' | 'object' }> } {
  const images: CocoFile['images'] = [];
  const annotations: CocoFile['annotations'] = [];
  const objects: Array<{ item: string; role: 'subject' | 'object' }> = [];
  let id = 0;
  for (const [split, n] of SPLITS) {
    const roles: Array<'subject' | 'object'> = split.endsWith('one') ? ['subject'] : ['subject', 'object'];
    for (let i = 0; i < n; i++) {
      const imageId = images.length + 1;
      images.push({ id: imageId, file_name: 'x.jpg', width: 640, height: 480, item_id: `${split}-${i}`, split });
      for (const role of roles) {
        annotations.push({ id: ++id, image_id: imageId, category_id: 1, bbox: [64, 96, 256, 288], area: 1, iscrowd: 0, role, phrase: 'mug', score: 0.8 });
        objects.push({ item: `${split}-${i}`, role });
      }
    }
  }
  return { coco: { info: { tool: 'bench', version: '0', date_created: '', source: 'auto' }, images, annotations, categories: [] }, objects };
}

export default async function bench() {
  const rle = await rleFigures();
  const prompts = benchmarkPrompts();
  const { coco, objects } = groundingData();
  const rnd = seeded(2);
  /** One model's answers, generated outside the timed part (and dropped after) to keep the heap small. */
  const modelAnswers = (m: number) => ({
    reasoning: prompts.map((p): ResponseRecord => ({ key: p.key, model: `m${m}`, output: answer(p, rnd), status: 'ok', error: null, attempts: 1, latency_ms: 1, item: p.item })),
    grounding: objects.map((o, i): ResponseRecord => {
      const j = Math.round(rnd() * 200);
      const text = i % 10 === 0 ? 'I do not see it.' : `<|box_start|>(${100 + j},${200 + j}),(${500 + j},${800})<|box_end|>`;
      return { key: `g${i}`, model: `m${m}`, output: text, status: 'ok', error: null, attempts: 1, latency_ms: 1, item: o.item, role: o.role };
    }),
  });
  /**
   * One full benchmark: the prompts and annotations indexed once, then 27 models, reasoning then
   * grounding, answers made outside the timed part.
   */
  const pass = () => {
    const [promptIndex, piw, pic] = timeIt(() => indexPrompts(prompts));
    const [truth, tiw, tic] = timeIt(() => indexGroundTruth(coco));
    const indexS = piw + tiw;
    let reasoningS = 0;
    let groundingS = 0;
    let cpuS = pic + tic;
    for (let m = 0; m < MODELS; m++) {
      const answers = modelAnswers(m);
      // Collect the generator's garbage outside the timed part. Without this (plain `npx tsx`, no
      // --expose-gc) the answers' garbage was collected inside the timed scoring calls.
      collectGarbage();
      const [, rw, rc] = timeIt(() => scoreReasoning(promptIndex, answers.reasoning));
      const [, gw, gc] = timeIt(() => scoreGrounding(answers.grounding, truth, { boxFormat: 'qwen2-vl' }));
      reasoningS += rw;
      groundingS += gw;
      cpuS += rc + gc;
    }
    return {
      index_s: +indexS.toFixed(3),
      reasoning_s: +reasoningS.toFixed(3),
      grounding_s: +groundingS.toFixed(3),
      total_s: +(indexS + reasoningS + groundingS).toFixed(3),
      cpu_s: +cpuS.toFixed(3),
    };
  };
  // The first pass is what one scoring run costs: no warm-up, so it includes JIT compilation. Every
  // pass indexes the prompts and annotations once. Later passes show the steady state.
  const first = pass();
  const warm = [pass(), pass(), pass()];
  const warmMedian = [...warm].sort((a, b) => a.total_s - b.total_s)[1];
  const items = SPLITS.reduce((a, [, n]) => a + n, 0);
  return {
    rle,
    scoring: {
      items,
      models: MODELS,
      reasoning_prompts_per_model: prompts.length,
      grounding_objects_per_model: objects.length,
      first_pass: first,
      warm_passes: warm,
      full_benchmark_seconds: first.total_s,
      warm_median_seconds: warmMedian.total_s,
      load_average_1m: +os.loadavg()[0].toFixed(1),
      items_x_models_per_s_first_pass: Math.round((items * MODELS) / first.total_s),
      target_under_1s_first_pass: first.total_s < 1,
      target_under_1s_warm_median: warmMedian.total_s < 1,
    },
  };
}
