/**
 * GroundingDINO port (contract: docs/reference.md, "ONNX contracts"): BERT-uncased tokens of one phrase per pass ("a mug."), image
 * resized by the DETR rule with ImageNet mean/std; sigmoid logits, box score = max over the
 * phrase's tokens, box/text thresholds, normalised cx,cy,w,h boxes scaled to the original image.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { GsrError, errorMessage } from '../../util/errors.js';
import { normalisePhrase } from '../coco-classes.js';
import { loadGraph, manifestFor, numberParam } from '../load.js';
import { modelFilePath } from '../manifest.js';
import { clipBox } from '../../geometry/boxes.js';
import { prepareGroundingDino, type PreparedImage } from '../preprocess.js';
import { Float32Pool } from '../tensor-pool.js';
import { ort, releaseSession, runSession } from '../runtime.js';
import type { Detection, Detector, ModelLoadOptions, RgbImage } from '../types.js';

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

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

export interface DinoThresholds {
  box: number;
  text: number;
}

/**
 * Decodes one pass: per query, score = max sigmoid over the phrase's token positions; kept when above
 * the box threshold and some phrase token is above the text threshold. Boxes are normalised cx, cy,
 * w, h of the (unpadded) image, scaled to `width` x `height`. Best first. Pure.
 */
export function decodeGroundingDino(
  logits: Float32Array,
  boxes: Float32Array,
  queries: number,
  textLen: number,
  phrasePositions: readonly number[],
  label: string,
  width: number,
  height: number,
  th: DinoThresholds,
): Detection[] {
  const out: Detection[] = [];
  for (let q = 0; q < queries; q++) {
    let best = 0;
    for (const t of phrasePositions) best = Math.max(best, sigmoid(logits[q * textLen + t]!));
    if (!(best > th.box) || !(best > th.text)) continue;
    const [cx, cy, w, h] = [boxes[q * 4]!, boxes[q * 4 + 1]!, boxes[q * 4 + 2]!, boxes[q * 4 + 3]!];
    const box = clipBox([(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height], width, height);
    out.push({ box, score: best, label });
  }
  return out.sort((a, b) => b.score - a.score);
}

const int64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);

/**
 * Creates the GroundingDINO detector. Params: `box_threshold` (0.35), `text_threshold` (0.25),
 * `max_boxes` (10, candidates returned per phrase).
 */
export async function createGroundingDino(opts: ModelLoadOptions): Promise<Detector> {
  const manifest = await manifestFor(GROUNDING_DINO_ID);
  const post = manifest.postprocess as { box_threshold: number; text_threshold: number };
  const th = { box: numberParam(opts, 'box_threshold', post.box_threshold), text: numberParam(opts, 'text_threshold', post.text_threshold) };
  const maxBoxes = numberParam(opts, 'max_boxes', 10);
  const tokenizer = loadTokenizer(modelFilePath(manifest, 'tokenizer', opts.modelsDir, opts.files));
  const graph = await loadGraph(manifest, 'model', opts);
  // Pre-process each image once, whatever the number of phrases asked about it.
  let last: { image: RgbImage; prepared: PreparedImage; pixels: ort.Tensor; mask: ort.Tensor } | undefined;
  const inputs = new Float32Pool();
  // The all-ones pixel mask depends only on the tensor size: made once per size, not per image.
  let mask: { h: number; w: number; tensor: ort.Tensor } | undefined;

  return {
    id: GROUNDING_DINO_ID,
    device: graph.opened.device,
    async detect(image: RgbImage, phrase: string): Promise<Detection[]> {
      if (last?.image !== image) {
        if (last) inputs.give(last.prepared.data);
        last = undefined;
        const prepared = await prepareGroundingDino(image, inputs);
        const [h, w] = prepared.tensorSize;
        const pixels = new ort.Tensor('float32', prepared.data, [1, 3, h, w]);
        if (mask?.h !== h || mask.w !== w) mask = { h, w, tensor: new ort.Tensor('int64', new BigInt64Array(h * w).fill(1n), [1, h, w]) };
        last = { image, prepared, pixels, mask: mask.tensor };
      }
      const tok = tokenisePhrase(tokenizer, phrase);
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
      const dets = decodeGroundingDino(
        logits.data as Float32Array,
        out.pred_boxes!.data as Float32Array,
        queries!,
        textLen!,
        tok.phrasePositions,
        normalisePhrase(phrase),
        width,
        height,
        th,
      );
      return dets.slice(0, maxBoxes);
    },
    async dispose() {
      last = undefined;
      mask = undefined;
      await releaseSession(graph.opened);
    },
  };
}
