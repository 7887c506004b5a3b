/**
 * Scoring-core throughput: COCO RLE encode / IoU on 1024x1024 masks, and full-benchmark scoring
 * (4,958 What'sUp items x 27 models, CircularEval prompts and G-Score objects) on synthetic answers.
 */
import os from 'node:os';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { CocoFile } from '../src/formats/coco.js';
import { rleDecode, rleEncode, rleIou } from '../src/geometry/index.js';
import type { ResponseRecord } from '../src/formats/responses.js';
import type { PromptRecord } from '../src/formats/prompts.js';
import { scoreGrounding, scoreReasoning } from '../src/scoring/index.js';

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

function rleFigures() {
  const rnd = seeded(1);
  const size = 1024;
  const masks = Array.from({ length: 24 }, () => blobMask(rnd, size));
  rleEncode(masks[0], size, size); // warm-up
  const [rles, encodeS] = timeIt(() => masks.map((m) => rleEncode(m, size, size)));
  const [, iouS] = timeIt(() => {
    let s = 0;
    for (let i = 0; i < rles.length; i++) for (let j = 0; j < rles.length; j++) s += rleIou(rles[i], rles[j]);
    return s;
  });
  const [, decodeS] = timeIt(() => rles.map((r) => rleDecode(r)));
  const pairs = rles.length * rles.length;
  return {
    mask_size: `${size}x${size}`,
    masks: masks.length,
    mean_counts_chars: Math.round(rles.reduce((a, r) => a + r.counts.length, 0) / rles.length),
    encode_masks_per_s: +(masks.length / encodeS).toFixed(1),
    encode_mpix_per_s: +((masks.length * size * size) / 1e6 / encodeS).toFixed(1),
    iou_pairs_per_s: +(pairs / iouS).toFixed(1),
    decode_masks_per_s: +(masks.length / decodeS).toFixed(1),
  };
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
  const rle = rleFigures();
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
  /** One full benchmark: 27 models, reasoning then grounding, answers made outside the timed part. */
  const pass = () => {
    let reasoningS = 0;
    let groundingS = 0;
    let cpuS = 0;
    for (let m = 0; m < MODELS; m++) {
      const answers = modelAnswers(m);
      // Collect the generator's garbage outside the timed part. Without this (plain `npx tsx`, no
      // --expose-gc) the answers' garbage was collected inside the timed scoring calls.
      collectGarbage();
      const [, rw, rc] = timeIt(() => scoreReasoning(prompts, answers.reasoning));
      const [, gw, gc] = timeIt(() => scoreGrounding(answers.grounding, coco, { boxFormat: 'qwen2-vl' }));
      reasoningS += rw;
      groundingS += gw;
      cpuS += rc + gc;
    }
    return { reasoning_s: +reasoningS.toFixed(3), grounding_s: +groundingS.toFixed(3), total_s: +(reasoningS + groundingS).toFixed(3), cpu_s: +cpuS.toFixed(3) };
  };
  // The first pass is what one scoring run costs: no warm-up, so it includes JIT compilation and the
  // one-time indexing of the prompts and annotations. Later passes show the steady state.
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
