/**
 * GroundingDINO port (contract: docs/reference.md, "ONNX contracts"): BERT-uncased tokens of one
 * phrase per pass ("mug."), image resized by the DETR rule with ImageNet mean/std; decoded as
 * Transformers' `post_process_grounded_object_detection` (sigmoid, max over all valid text tokens,
 * box threshold, labels from the text threshold, no clamping), with the earlier phrase-token rule
 * and clamping as named options.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { GsrError, errorMessage } from '../../util/errors.js';
import { normalisePhrase } from '../coco-classes.js';
import { choiceParam, loadGraph, manifestFor, numberParam } from '../load.js';
import { installedModelFile } from '../manifest.js';
import { clipBox } from '../../geometry/boxes.js';
import { prepareGroundingDino, type PreparedImage } from '../preprocess.js';
import { Ahead } from '../ahead.js';
import { Float32Pool } from '../tensor-pool.js';
import { ort, releaseSession, runSession } from '../runtime.js';
import type { Detection, Detector, ModelLoadOptions, RgbImage } from '../types.js';
import { timeStage, timeStageAsync } from '../../util/stage-clock.js';

export const GROUNDING_DINO_ID = 'grounding-dino-tiny';

/** Loads a Hugging Face tokenizer.json (and tokenizer_config.json beside it, if present). */
export function loadTokenizer(path: string): Tokenizer {
  try {
    const json = JSON.parse(readFileSync(path, 'utf8')) as object;
    const cfgPath = join(dirname(path), 'tokenizer_config.json');
    const config = existsSync(cfgPath) ? (JSON.parse(readFileSync(cfgPath, 'utf8')) as object) : {};
    return new Tokenizer(json, config);
  } catch (err) {
    throw new GsrError(`cannot load tokenizer ${path}: ${errorMessage(err).split('\n')[0]}`);
  }
}

/** GroundingDINO's prompt for one object: lower case, ending in ".". */
export function groundingPrompt(phrase: string): string {
  return `${normalisePhrase(phrase)}.`;
}

export interface PhraseTokens {
  ids: number[];
  attentionMask: number[];
  tokenTypeIds: number[];
  /** Positions of the phrase's own tokens (not [CLS], [SEP] or the final "."). */
  phrasePositions: number[];
}

/** Tokenises one phrase and finds the positions its box scores are read from. */
export function tokenisePhrase(tokenizer: Tokenizer, phrase: string): PhraseTokens {
  const enc = tokenizer.encode(groundingPrompt(phrase), { return_token_type_ids: true });
  const phrasePositions: number[] = [];
  enc.tokens.forEach((t: string, i: number) => {
    if (t !== '[CLS]' && t !== '[SEP]' && t !== '.' && t !== '[PAD]') phrasePositions.push(i);
  });
  return { ids: enc.ids, attentionMask: enc.attention_mask, tokenTypeIds: enc.token_type_ids, phrasePositions };
}

/** Token ids to text as the reference's `batch_decode` (special tokens kept); '' for none. */
export function decodeTokens(tokenizer: Tokenizer, ids: number[]): string {
  return ids.length === 0 ? '' : tokenizer.decode(ids);
}

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

export interface DinoThresholds {
  box: number;
  text: number;
}

/** Which text positions a box's score is the maximum over. */
export type DinoScoreTokens = 'all' | 'phrase';
/** Whether boxes are clipped to the image. */
export type DinoClamp = 'none' | 'image';

export interface DinoDecoding {
  /**
   * `all` (default, as Transformers' `post_process_grounded_object_detection` and GroundingDINO's
   * `predict`): max over every valid text position, [CLS], "." and [SEP] included; a box is kept when
   * that is above the box threshold. `phrase`: max over the phrase's own tokens, kept when above both
   * thresholds (this project's earlier rule).
   */
  scoreTokens: DinoScoreTokens;
  /** `none` (default, as the reference) or `image`: clip boxes to the image. */
  clamp: DinoClamp;
}

export const DINO_REFERENCE_DECODING: DinoDecoding = { scoreTokens: 'all', clamp: 'none' };

/** A decoded box with the text positions above the text threshold (the reference's label tokens). */
export interface DinoDetection extends Detection {
  textPositions: number[];
  /** The query (0..899) the box came from. */
  query: number;
}

/**
 * Decodes one pass. `tokens` holds the prompt's `length` valid positions and the phrase's own
 * positions; logits are [queries, textLen]. Boxes are normalised cx, cy, w, h of the (unpadded)
 * image, scaled to `width` x `height`. Label positions are those above the text threshold except
 * the first and the last of the logits' text axis, as the reference's `get_phrases_from_posmap`.
 * Best first (stable, so equal scores keep query order). Pure.
 */
export function decodeGroundingDino(
  logits: Float32Array,
  boxes: Float32Array,
  queries: number,
  textLen: number,
  tokens: { length: number; phrasePositions: readonly number[] },
  label: string,
  width: number,
  height: number,
  th: DinoThresholds,
  decoding: DinoDecoding = DINO_REFERENCE_DECODING,
): DinoDetection[] {
  const out: DinoDetection[] = [];
  // The reference compares float32 probabilities with the thresholds cast to float32.
  const f = Math.fround;
  const [boxTh, textTh] = [f(th.box), f(th.text)];
  const valid = Math.min(tokens.length, textLen);
  const scored = decoding.scoreTokens === 'all' ? Array.from({ length: valid }, (_, i) => i) : tokens.phrasePositions;
  for (let q = 0; q < queries; q++) {
    const row = q * textLen;
    let best = 0;
    for (const t of scored) best = Math.max(best, sigmoid(logits[row + t]!));
    if (!(f(best) > boxTh)) continue;
    if (decoding.scoreTokens === 'phrase' && !(f(best) > textTh)) continue;
    const textPositions: number[] = [];
    for (let t = 1; t < Math.min(valid, textLen - 1); t++) if (f(sigmoid(logits[row + t]!)) > textTh) textPositions.push(t);
    const [cx, cy, w, h] = [boxes[q * 4]!, boxes[q * 4 + 1]!, boxes[q * 4 + 2]!, boxes[q * 4 + 3]!];
    const corners: Detection['box'] = [(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height];
    const box = decoding.clamp === 'image' ? clipBox(corners, width, height) : corners;
    out.push({ box, score: best, label, textPositions, query: q });
  }
  return out.sort((a, b) => b.score - a.score);
}

/**
 * The `pad_size` parameter, "HxW" (e.g. "800x1333"): pad every image's tensor bottom/right with
 * zeros to that size, with `pixel_mask` 0 on the padding, as the Transformers processor's own
 * `pad_size` does. For exports traced at one image size (bench/real_models.py); off by default.
 */
export function parsePadSize(value: number | string | undefined): [number, number] | null {
  if (value === undefined || value === 'none') return null;
  const m = /^(\d+)x(\d+)$/.exec(String(value));
  if (!m) throw new GsrError(`parameter pad_size must be HxW (e.g. 800x1333) or none, got "${value}"`);
  return [Number(m[1]), Number(m[2])];
}

/** The [3, h, w] tensor zero-padded bottom/right to [3, ph, pw], and its pixel mask. Pure. */
export function padPixels(data: Float32Array, h: number, w: number, ph: number, pw: number): { data: Float32Array; mask: BigInt64Array } {
  if (h > ph || w > pw) throw new GsrError(`${GROUNDING_DINO_ID}: image tensor ${h}x${w} is larger than pad_size ${ph}x${pw}`);
  const out = new Float32Array(3 * ph * pw);
  for (let c = 0; c < 3; c++) for (let y = 0; y < h; y++) out.set(data.subarray((c * h + y) * w, (c * h + y + 1) * w), (c * ph + y) * pw);
  const mask = new BigInt64Array(ph * pw);
  for (let y = 0; y < h; y++) mask.fill(1n, y * pw, y * pw + w);
  return { data: out, mask };
}

const int64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);

/**
 * Creates the GroundingDINO detector. Params: `box_threshold` (0.35), `text_threshold` (0.25),
 * `max_boxes` (10, candidates returned per phrase), `score_tokens` (`all` | `phrase`) and `clamp`
 * (`none` | `image`); see {@link DinoDecoding}. The detector's `provenance.settings` records them.
 */
export async function createGroundingDino(opts: ModelLoadOptions): Promise<Detector> {
  const manifest = await manifestFor(GROUNDING_DINO_ID);
  const post = manifest.postprocess as { box_threshold: number; text_threshold: number };
  const th = { box: numberParam(opts, 'box_threshold', post.box_threshold), text: numberParam(opts, 'text_threshold', post.text_threshold) };
  const maxBoxes = numberParam(opts, 'max_boxes', 10);
  const decoding: DinoDecoding = {
    scoreTokens: choiceParam(opts, 'score_tokens', ['all', 'phrase']),
    clamp: choiceParam(opts, 'clamp', ['none', 'image']),
  };
  const pad = parsePadSize(opts.params?.pad_size);
  const tokenizer = loadTokenizer(installedModelFile(manifest, 'tokenizer', opts.modelsDir, opts.files));
  const graph = await loadGraph(manifest, 'model', opts);
  // Pre-process each image once, whatever the number of phrases asked about it.
  let last: { image: RgbImage; prepared: PreparedImage; pixels: ort.Tensor; mask: ort.Tensor } | undefined;
  const inputs = new Float32Pool();
  const ahead = new Ahead(
    (image: RgbImage) => timeStageAsync(`pre:${GROUNDING_DINO_ID}`, () => prepareGroundingDino(image, inputs)),
    (p) => inputs.give(p.data),
  );
  // The all-ones pixel mask depends only on the tensor size: made once per size, not per image.
  let mask: { h: number; w: number; tensor: ort.Tensor } | undefined;

  return {
    id: GROUNDING_DINO_ID,
    device: graph.opened.device,
    provenance: { settings: { score_tokens: decoding.scoreTokens, clamp: decoding.clamp, ...(pad ? { pad_size: `${pad[0]}x${pad[1]}` } : {}) } },
    prefetch: (image: RgbImage) => ahead.start(image),
    async detect(image: RgbImage, phrase: string): Promise<Detection[]> {
      if (last?.image !== image) {
        if (last) inputs.give(last.prepared.data);
        last = undefined;
        const prepared = await ahead.take(image);
        const [h, w] = prepared.tensorSize;
        if (pad) {
          const padded = timeStage(`pre:${GROUNDING_DINO_ID}`, () => padPixels(prepared.data, h, w, pad[0], pad[1]));
          const pixels = new ort.Tensor('float32', padded.data, [1, 3, pad[0], pad[1]]);
          last = { image, prepared, pixels, mask: new ort.Tensor('int64', padded.mask, [1, pad[0], pad[1]]) };
        } else {
          const pixels = new ort.Tensor('float32', prepared.data, [1, 3, h, w]);
          if (mask?.h !== h || mask.w !== w) mask = { h, w, tensor: new ort.Tensor('int64', new BigInt64Array(h * w).fill(1n), [1, h, w]) };
          last = { image, prepared, pixels, mask: mask.tensor };
        }
      }
      const tok = timeStage(`pre:${GROUNDING_DINO_ID}`, () => tokenisePhrase(tokenizer, phrase));
      if (tok.phrasePositions.length === 0) throw new GsrError(`${GROUNDING_DINO_ID}: phrase "${phrase}" has no tokens`);
      const n = tok.ids.length;
      const out = await runSession(
        graph.opened,
        {
          input_ids: int64(tok.ids, [1, n]),
          token_type_ids: int64(tok.tokenTypeIds, [1, n]),
          attention_mask: int64(tok.attentionMask, [1, n]),
          pixel_values: last.pixels,
          pixel_mask: last.mask,
        },
        GROUNDING_DINO_ID,
      );
      const logits = out.logits!;
      const [, queries, textLen] = logits.dims as number[];
      const [height, width] = last.prepared.original;
      return timeStage(`post:${GROUNDING_DINO_ID}`, () => {
        const dets = decodeGroundingDino(
          logits.data as Float32Array,
          out.pred_boxes!.data as Float32Array,
          queries!,
          textLen!,
          { length: n, phrasePositions: tok.phrasePositions },
          normalisePhrase(phrase),
          width,
          height,
          th,
          decoding,
        );
        return dets.slice(0, maxBoxes).map(({ textPositions, query: _query, ...d }) => ({
          ...d,
          textLabel: decodeTokens(tokenizer, textPositions.map((p) => tok.ids[p]!)),
        }));
      });
    },
    async dispose() {
      ahead.clear();
      last = undefined;
      mask = undefined;
      await releaseSession(graph.opened);
    },
  };
}
