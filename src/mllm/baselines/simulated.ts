/**
 * The `simulated` answerer: a seeded stand-in for a model with a chosen grounding quality and an
 * extra reasoning error, for checking whether the cross-model regression finds what was put in.
 *
 * - Boxes: each item draws one uniform u (seed, item). When u < `grounding`, its subject and object
 *   boxes are hits (the annotation boxes moved a little), otherwise misses (`simulatedBox`). Subject and object share the draw, so expected accuracy is linear in the target
 *   G-Score; the moved boxes depend only on (seed, item, role), so answerers with the same seed and
 *   different targets differ only in which items got the hit boxes (common random numbers).
 * - TG/MC/DAP: the geometric reasoner (geometry-reasoner.ts) on its own boxes, with the annotation
 *   depths (a DAP prompt's: those its hint states) and no mask contact; then, for a share `reasoning_error` of items (their own draw), a
 *   wrong caption (by the prompt's answer key), the same in every rotation. So an item is right exactly
 *   when its boxes lead the reasoner to the truth and it is not among the reasoning errors.
 * - Grounding: its box for the asked role.
 */
import { keyedUniform as uniform } from '../../util/random.js';
import type { CocoFile } from '../../formats/coco.js';
import { boxIou, clipBox, xywhToXyxy } from '../../geometry/boxes.js';
import type { AnyPrompt, PromptRecord } from '../../formats/prompts.js';
import { GsrError } from '../../util/errors.js';
import type { Answerer } from '../types.js';
import { indexAnnotations, sceneOf, withHintDepth, type ItemAnnotations } from './annotation-index.js';
import { answerStyle, choiceText, formatBox, whatsupPrompt, type BaselineBoxFormat } from './answer-text.js';
import { chooseCaption, type SceneGeometry, type Xyxy } from './geometry-reasoner.js';

export interface SimulatedSettings {
  /** Target G-Score: share of items whose boxes are hits, in [0, 1]. */
  grounding: number;
  /** Share of items answered with a wrong caption whatever the boxes say, in [0, 1]. */
  reasoningError: number;
  seed: number;
}

/**
 * The box moved from `truth` in direction `angle` until its IoU with `truth` is `target` (bisection on
 * the shift; IoU falls as the box moves away), clipped to the image.
 */
export function shiftToIou(truth: Xyxy, target: number, angle: number, width: number, height: number): Xyxy {
  const w = truth[2] - truth[0];
  const h = truth[3] - truth[1];
  const at = (s: number): Xyxy => {
    const dx = Math.cos(angle) * s * w;
    const dy = Math.sin(angle) * s * h;
    return clipBox([truth[0] + dx, truth[1] + dy, truth[2] + dx, truth[3] + dy], width, height) as Xyxy;
  };
  let [lo, hi] = [0, 4];
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (boxIou(at(mid), truth) > target) lo = mid;
    else hi = mid;
  }
  return at(hi);
}

/**
 * The simulated box of one role. A hit is the annotation box moved to an IoU in [0.6, 0.95] in a
 * seeded direction; a miss is a box of the same size at a seeded place in the image with IoU < 0.5
 * (a wrong object), so misses mislead the reasoner as a model's wrong boxes would.
 */
export function simulatedBox(truth: Xyxy, hit: boolean, seed: number, item: string, role: string, width: number, height: number): Xyxy {
  if (hit) {
    const target = 0.6 + 0.35 * uniform(seed, item, role, 'iou');
    // Clipping can raise the IoU of a box pushed off the image; that keeps it a hit.
    return shiftToIou(truth, target, 2 * Math.PI * uniform(seed, item, role, 'angle'), width, height);
  }
  const w = Math.min(truth[2] - truth[0], width);
  const h = Math.min(truth[3] - truth[1], height);
  let box: Xyxy = truth;
  for (let k = 0; k < 16; k++) {
    const x = uniform(seed, item, role, 'x', String(k)) * (width - w);
    const y = uniform(seed, item, role, 'y', String(k)) * (height - h);
    box = [x, y, x + w, y + h];
    if (boxIou(box, truth) < 0.5) return box;
  }
  // An object filling the image leaves no place for a miss of its size: move it to IoU 0.25.
  return shiftToIou(truth, 0.25, 2 * Math.PI * uniform(seed, item, role, 'angle'), width, height);
}

function checkShare(name: string, key: string, v: unknown): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new GsrError(`${name}: ${key} must be a number in [0, 1], got ${JSON.stringify(v)}`);
  return v;
}

/** Validated settings from answerer options (`grounding`, `reasoning_error`, `seed`). */
export function simulatedSettings(name: string, options: Record<string, unknown>): SimulatedSettings {
  if (options.grounding === undefined) throw new GsrError(`${name}: a simulated answerer needs grounding (its target G-Score, 0-1)`);
  return {
    grounding: checkShare(name, 'grounding', options.grounding),
    reasoningError: checkShare(name, 'reasoning_error', options.reasoning_error ?? options.reasoningError ?? 0),
    seed: typeof options.seed === 'number' ? options.seed : 0,
  };
}

/** A simulated answerer; `choose` is its choice (an index into the shown options) for TG/MC/DAP prompts. */
export interface SimulatedAnswerer extends Answerer {
  choose(prompt: PromptRecord): number;
}

/** A simulated answerer over an annotation file (the boxes it perturbs and the depths it reads). */
export function createSimulatedAnswerer(name: string, coco: CocoFile, settings: SimulatedSettings, boxFormat: BaselineBoxFormat): SimulatedAnswerer {
  const index = indexAnnotations(coco);
  const larger = coco.info?.depth?.larger;
  // Per item: its boxes and the scene the reasoner sees (its boxes, the annotation depths, no mask).
  const items = new Map<string, { entry: ItemAnnotations; subject?: Xyxy; object?: Xyxy; scene: SceneGeometry | string }>();
  const itemOf = (item: string) => {
    let it = items.get(item);
    if (it) return it;
    const entry = index.get(item);
    if (!entry) throw new GsrError(`no annotations for the item: ${item}`);
    const hit = uniform(settings.seed, item, 'grounding') < settings.grounding;
    const move = (role: 'subject' | 'object') => {
      const ann = entry[role];
      return ann ? simulatedBox(xywhToXyxy(ann.bbox) as Xyxy, hit, settings.seed, item, role, entry.width, entry.height) : undefined;
    };
    const [subject, object] = [move('subject'), move('object')];
    const truth = sceneOf({ ...entry, object: entry.object && { ...entry.object, segmentation: undefined } }, larger);
    const scene =
      typeof truth === 'string'
        ? truth
        : { width: entry.width, height: entry.height, subject: { ...truth.subject, box: subject! }, object: truth.object && object ? { ...truth.object, box: object } : truth.object };
    it = { entry, subject, object, scene };
    items.set(item, it);
    return it;
  };
  const choose = (prompt: PromptRecord): number => {
    const { entry, scene } = itemOf(prompt.item);
    if (typeof scene === 'string') throw new GsrError(`${scene}: ${prompt.item}`);
    const choice = chooseCaption(withHintDepth(scene, prompt), prompt.options, entry.subject?.phrase ?? '', entry.object?.phrase ?? null);
    if (choice.index < 0) throw new GsrError(`no option states a relation it can judge: ${prompt.item}`);
    if (uniform(settings.seed, prompt.item, 'reasoning') >= settings.reasoningError) return choice.index;
    // A reasoning error: the same wrong caption in every rotation (picked by caption, not position).
    const right = prompt.answer_index === undefined ? undefined : prompt.options[prompt.answer_index];
    const wrong = prompt.options
      .filter((c) => c !== right)
      .map((c) => ({ c, u: uniform(settings.seed, prompt.item, 'wrong', c) }))
      .sort((x, y) => x.u - y.u)[0];
    return wrong ? prompt.options.indexOf(wrong.c) : choice.index;
  };
  return {
    name,
    choose,
    async answer(anyPrompt: AnyPrompt): Promise<string> {
      const prompt = whatsupPrompt(anyPrompt, name);
      if (answerStyle(prompt) !== 'grounding') return choiceText(prompt, choose(prompt));
      const { entry, subject, object } = itemOf(prompt.item);
      const role = prompt.role ?? 'subject';
      const box = role === 'object' ? object : subject;
      if (!box) throw new GsrError(`no ${role} box in the annotations: ${prompt.item}`);
      return formatBox(box, entry.width, entry.height, boxFormat);
    },
  };
}

/**
 * The true effect a family of simulated answerers (one seed and reasoning error, targets from 0 to 1)
 * puts into the regression of CircularEval on G-Score: accuracy with every box a hit minus accuracy with
 * every box a miss, on these prompts. Expected accuracy is linear in the target between those two ends
 * (subject and object share the hit draw), so this is the slope, in accuracy per unit of G-Score.
 */
export function simulatedTrueSlope(coco: CocoFile, prompts: PromptRecord[], seed: number, reasoningError: number): { all_hits: number; all_misses: number; slope: number; items: number } {
  const circular = (grounding: number) => {
    const sim = createSimulatedAnswerer('truth', coco, { grounding, reasoningError, seed }, 'qwen2-vl');
    const right = new Map<string, boolean>();
    for (const p of prompts) right.set(p.item, (right.get(p.item) ?? true) && sim.choose(p) === p.answer_index);
    return { share: [...right.values()].filter(Boolean).length / right.size, items: right.size };
  };
  const hits = circular(1);
  const misses = circular(0);
  return { all_hits: hits.share, all_misses: misses.share, slope: hits.share - misses.share, items: hits.items };
}
