/**
 * Tiny ONNX models with exactly the real exports' input/output names, dtypes and shapes
 * (docs/reference.md, "ONNX contracts"), computing known functions of their inputs so that the ports' decoding,
 * thresholds, coordinate scaling, mask resizing and depth resizing can be checked exactly.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GraphBuilder } from './onnx-builder.js';

function save(path: string, g: GraphBuilder): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, g.toBytes());
  return path;
}

export interface DepthFixtureOptions {
  /** predicted_depth = scale * mean over channels of pixel_values + offset. */
  scale?: number;
  offset?: number;
  /** Override the input name (to make a model that breaks the contract). */
  inputName?: string;
}

/**
 * Depth model: `pixel_values` [B,3,H,W] float32 -> `predicted_depth` [B,H,W] float32, where each
 * output pixel is `scale * mean_c(pixel_values[c]) + offset` at the same position.
 */
export function writeDepthFixture(path: string, opts: DepthFixtureOptions = {}): string {
  const g = new GraphBuilder();
  const x = g.input(opts.inputName ?? 'pixel_values', 'float32', ['batch_size', 3, 'height', 'width']);
  const mean = g.op('ReduceMean', [x], { axes: [1], keepdims: 0 });
  const scaled = g.op('Mul', [mean, g.floats([opts.scale ?? 1], [])]);
  g.op('Add', [scaled, g.floats([opts.offset ?? 0], [])], {}, 'predicted_depth');
  g.output('predicted_depth', 'float32', ['batch_size', 'height', 'width']);
  return save(path, g);
}

/** One GroundingDINO query of the fixture: fires on a token id with a fixed box. */
export interface DinoQuery {
  /** Vocabulary id the query "recognises". */
  tokenId: number;
  /** Logit at every position holding `tokenId`; other positions get `offLogit`. */
  logit: number;
  /** Normalised cx, cy, w, h. */
  box: [number, number, number, number];
}

export const DINO_QUERIES = 900;
export const DINO_TEXT_LEN = 256;

/**
 * GroundingDINO: inputs `input_ids`, `token_type_ids`, `attention_mask` [B,T] int64,
 * `pixel_values` [B,3,H,W] float32, `pixel_mask` [B,H,W] int64; outputs `logits` [B,900,256]
 * (-inf past the text length T, as in the public export) and `pred_boxes` [B,900,4].
 * Query q's logit at text position t is `queries[q].logit` where input_ids[t] == tokenId, else
 * `offLogit`; unused queries never fire. Boxes are the queries' fixed boxes.
 */
export function writeGroundingDinoFixture(path: string, queries: DinoQuery[], offLogit = -8): string {
  const g = new GraphBuilder();
  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  g.input('token_type_ids', 'int64', ['batch_size', 'sequence_length']);
  g.input('attention_mask', 'int64', ['batch_size', 'sequence_length']);
  const pixels = g.input('pixel_values', 'float32', ['batch_size', 3, 'height', 'width']);
  g.input('pixel_mask', 'int64', ['batch_size', 'height', 'width']);

  const targets = new Float32Array(DINO_QUERIES).fill(-1);
  const on = new Float32Array(DINO_QUERIES).fill(offLogit);
  const boxes = new Float32Array(DINO_QUERIES * 4);
  queries.forEach((q, i) => {
    targets[i] = q.tokenId;
    on[i] = q.logit;
    boxes.set(q.box, i * 4);
  });
  // hit = 1 - min(|id - target|, 1): 1 where the token matches the query's id.
  const idsF = g.op('Unsqueeze', [g.op('Cast', [ids], { to: 1 }), g.int64s([1], [1])]); // [B,1,T]
  const diff = g.op('Abs', [g.op('Sub', [idsF, g.floats(targets, [1, DINO_QUERIES, 1])])]);
  const miss = g.op('Min', [diff, g.floats([1], [])]);
  const onMinusOff = Float32Array.from(on, (v) => v - offLogit);
  const hitLogit = g.op('Mul', [g.op('Sub', [g.floats([1], []), miss]), g.floats(onMinusOff, [1, DINO_QUERIES, 1])]);
  const logitsT = g.op('Add', [hitLogit, g.floats([offLogit], [])]); // [B,900,T]
  // Pad the text axis to 256 with -inf.
  const t = g.op('Gather', [g.op('Shape', [ids]), g.int64s([1], [1])], { axis: 0 });
  const padLen = g.op('Sub', [g.int64s([DINO_TEXT_LEN], [1]), t]);
  const pads = g.op('Concat', [g.int64s([0, 0, 0, 0, 0], [5]), padLen], { axis: 0 });
  g.op('Pad', [logitsT, pads, g.floats([-Infinity], [])], {}, 'logits');
  // Boxes do not depend on the pixels; the zero product only gives them the batch axis.
  const meanPix = g.op('ReduceMean', [pixels], { axes: [1, 2, 3], keepdims: 0 }); // [B]
  const zero = g.op('Mul', [g.op('Unsqueeze', [meanPix, g.int64s([1, 2], [2])]), g.floats([0], [])]); // [B,1,1]
  g.op('Add', [zero, g.floats(boxes, [1, DINO_QUERIES, 4])], {}, 'pred_boxes');
  g.output('logits', 'float32', ['batch_size', DINO_QUERIES, DINO_TEXT_LEN]);
  g.output('pred_boxes', 'float32', ['batch_size', DINO_QUERIES, 4]);
  return save(path, g);
}

/**
 * SAM image encoder: `pixel_values` [B,3,1024,1024] -> `image_embeddings` [B,256,64,64], channel k
 * being the 16x16 average of input channel k mod 3.
 */
export function writeSamEncoderFixture(path: string): string {
  const g = new GraphBuilder();
  const x = g.input('pixel_values', 'float32', ['batch_size', 3, 1024, 1024]);
  const pooled = g.op('AveragePool', [x], { kernel_shape: [16, 16], strides: [16, 16] });
  const w = new Float32Array(256 * 3);
  for (let k = 0; k < 256; k++) w[k * 3 + (k % 3)] = 1;
  g.op('Conv', [pooled, g.floats(w, [256, 3, 1, 1])], { kernel_shape: [1, 1] }, 'image_embeddings');
  g.output('image_embeddings', 'float32', ['batch_size', 256, 64, 64]);
  return save(path, g);
}

export interface SamDecoderFixtureOptions {
  /** Predicted IoU of the three masks: empty, box, full (default 0.2, 0.9, 0.5: the box wins). */
  iouScores?: [number, number, number];
}

/**
 * SAM prompt decoder, Hugging Face layout with a box prompt: `image_embeddings` [B,256,64,64] and
 * `input_boxes` [B,nb,4] (xyxy in the 1024-resized frame) -> `iou_scores` [B,nb,3] and
 * `pred_masks` [B,nb,3,256,256]. Low-res mask logits are the signed distance (in 1024-frame pixels)
 * to the box edge, min(x - x1, x2 - x, y - y1, y2 - y) at each 4x4 cell centre; mask 0 subtracts
 * 1e4 (empty), mask 1 is the box, mask 2 adds 1e4 (everything).
 */
export function writeSamDecoderFixture(path: string, opts: SamDecoderFixtureOptions = {}): string {
  const g = new GraphBuilder();
  g.input('image_embeddings', 'float32', ['batch_size', 256, 64, 64]);
  const boxes = g.input('input_boxes', 'float32', ['batch_size', 'num_boxes', 4]);
  const [x1, y1, x2, y2] = g.opMulti('Split', [boxes], 4, { axis: 2 }).map((c) => g.op('Unsqueeze', [c, g.int64s([3, 4], [2])]));
  const centres = Float32Array.from({ length: 256 }, (_, i) => 4 * i + 2);
  const X = g.floats(centres, [1, 1, 1, 1, 256]);
  const Y = g.floats(centres, [1, 1, 1, 256, 1]);
  const m = g.op('Min', [g.op('Sub', [X, x1!]), g.op('Sub', [x2!, X]), g.op('Sub', [Y, y1!]), g.op('Sub', [y2!, Y])]);
  g.op('Add', [m, g.floats([-1e4, 0, 1e4], [1, 1, 3, 1, 1])], {}, 'pred_masks');
  const zero = g.op('Mul', [g.op('ReduceMean', [boxes], { axes: [2], keepdims: 1 }), g.floats([0], [])]);
  g.op('Add', [zero, g.floats(opts.iouScores ?? [0.2, 0.9, 0.5], [1, 1, 3])], {}, 'iou_scores');
  g.output('iou_scores', 'float32', ['batch_size', 'num_boxes', 3]);
  g.output('pred_masks', 'float32', ['batch_size', 'num_boxes', 3, 256, 256]);
  return save(path, g);
}
