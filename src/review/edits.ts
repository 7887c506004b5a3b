/**
 * Review edits as an append-only list of events, and the label each slot has after them. Pure: the
 * journal stores the events, this module replays them, so undo and crash recovery are the same code.
 */
import { z } from 'zod';
import type { CocoRle } from '../formats/coco.js';
import { boxIou, type Box } from '../geometry/boxes.js';
import { modelBox, type Slot } from './labels.js';

const BoxSchema = z.tuple([z.number().finite(), z.number().finite(), z.number().finite(), z.number().finite()]);

/** What a reviewer can do to a slot. `undo` withdraws the slot's latest action not yet undone. */
export const EditSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('box'), box: BoxSchema }),
  z.object({ kind: z.literal('absent') }),
  z.object({ kind: z.literal('wrong-instance') }),
  z.object({ kind: z.literal('accept') }),
  z.object({ kind: z.literal('reject') }),
  z.object({ kind: z.literal('undo') }),
  z.object({ kind: z.literal('note'), text: z.string().max(2000) }),
  /** Written by the server after re-segmenting; `box` is the box it segmented. */
  z.object({
    kind: z.literal('mask'),
    box: BoxSchema,
    mask: z.object({ size: z.tuple([z.number().int(), z.number().int()]), counts: z.string() }),
    score: z.number(),
    segmenter: z.string(),
  }),
]);
export type Edit = z.infer<typeof EditSchema>;

/** One stored event. */
export interface EditEvent {
  seq: number;
  slot: string;
  reviewer: string;
  /** ISO time. */
  time: string;
  edit: Edit;
}

/** `unreviewed`: nothing done; `accepted`/`rejected`: decided; `edited`: changed, not yet decided. */
export type ReviewState = 'unreviewed' | 'edited' | 'accepted' | 'rejected';
export const REVIEW_STATES: readonly ReviewState[] = ['unreviewed', 'edited', 'accepted', 'rejected'];

export type Provenance = 'model' | 'human-accepted' | 'human-edited' | 'human-added';

/** A slot's label after its events. */
export interface SlotLabel {
  /** Current box, xyxy; null when there is none (not found, absent, or rejected). */
  box: Box | null;
  /** Mask of the current box: the model's while the box is unchanged, a re-segmented one, or none. */
  mask: { rle: CocoRle; score: number; source: string } | null;
  state: ReviewState;
  /** Marked absent from the image / the model's box is another instance of the noun. */
  absent: boolean;
  wrongInstance: boolean;
  boxChanged: boolean;
  note: string | null;
  /** Reviewer and time of the latest effective event. */
  reviewer: string | null;
  time: string | null;
  /** Number of effective (not undone) events: what undo can still withdraw. */
  depth: number;
}

/** Two boxes within this many pixels on every edge count as the same box. */
const SAME_BOX_PX = 0.5;
const sameBox = (a: Box | null, b: Box | null) => (a === null || b === null ? a === b : a.every((v, i) => Math.abs(v - b[i]) <= SAME_BOX_PX));

/** The events of one slot that undo has not withdrawn, in order. */
export function effectiveEvents(events: readonly EditEvent[]): EditEvent[] {
  const stack: EditEvent[] = [];
  for (const e of events) {
    if (e.edit.kind === 'undo') stack.pop();
    else stack.push(e);
  }
  return stack;
}

/** Replays one slot's events (in seq order) onto its model label. */
export function labelOf(slot: Slot, events: readonly EditEvent[]): SlotLabel {
  const original = modelBox(slot);
  const modelMask = slot.model?.segmentation ? { rle: slot.model.segmentation, score: slot.model.mask_score ?? 1, source: 'model' } : null;
  const label: SlotLabel = { box: original, mask: modelMask, state: 'unreviewed', absent: false, wrongInstance: false, boxChanged: false, note: null, reviewer: null, time: null, depth: 0 };
  const effective = effectiveEvents(events);
  for (const e of effective) {
    const edit = e.edit;
    switch (edit.kind) {
      case 'box':
        label.box = edit.box;
        label.absent = false;
        label.mask = sameBox(edit.box, original) ? modelMask : null;
        label.state = 'edited';
        break;
      case 'mask':
        // A new mask is a reviewer's change even on the model's own box (docs/review.md: re-segmented = human-edited).
        if (sameBox(edit.box, label.box)) {
          label.mask = { rle: edit.mask, score: edit.score, source: edit.segmenter };
          label.state = 'edited';
        }
        break;
      case 'absent':
        label.absent = true;
        label.box = null;
        label.mask = null;
        label.state = 'edited';
        break;
      case 'wrong-instance':
        label.wrongInstance = true;
        label.box = null;
        label.mask = null;
        label.state = 'edited';
        break;
      case 'accept':
        label.state = 'accepted';
        break;
      case 'reject':
        label.state = 'rejected';
        break;
      case 'note':
        label.note = edit.text;
        break;
      case 'undo':
        break;
    }
    label.reviewer = e.reviewer;
    label.time = e.time;
  }
  label.depth = effective.length;
  label.boxChanged = !sameBox(label.box, original);
  return label;
}

/**
 * Where an exported label comes from; null when the slot has no label to export (not found and
 * never drawn, marked absent, wrong instance without a new box, or rejected).
 */
export function provenanceOf(slot: Slot, label: SlotLabel): Provenance | null {
  if (label.box === null || label.state === 'rejected') return null;
  if (label.state === 'unreviewed') return 'model';
  if (!slot.model) return 'human-added';
  if (label.boxChanged || (label.mask && label.mask.source !== 'model')) return 'human-edited';
  return label.state === 'accepted' ? 'human-accepted' : 'model';
}

/** IoU of the current box with the model's (1 when unchanged, null when either is missing). */
export function iouWithModel(slot: Slot, label: SlotLabel): number | null {
  const original = modelBox(slot);
  return original && label.box ? boxIou(original, label.box) : null;
}
