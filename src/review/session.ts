/**
 * A review session: the annotation file, its manifest, the journal and (on demand) the segmenter,
 * with every operation the server and the export command need. Requests name slots by item id and
 * role only; image and depth paths come from the manifest and the annotation file, resolved to real
 * paths that must stay inside their dataset root.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { CocoFile, ObjectDepth } from '../formats/coco.js';
import { readCocoFile, writeCocoFile } from '../formats/coco.js';
import { decodeDepthPng } from '../formats/depth-png.js';
import { regionDepthStats } from '../geometry/depth-stats.js';
import { readManifestAll } from '../formats/manifest.js';
import { isInside, normaliseRelativePath, resolveItemImage } from '../formats/image-paths.js';
import { rleDecode, rleEncode } from '../geometry/rle.js';
import { GsrError, errorMessage } from '../util/errors.js';
import { labelOf, type Edit, type EditEvent, type SlotLabel } from './edits.js';
import { buildReviewedCoco } from './export.js';
import { ReviewJournal, eventsBySlot } from './journal.js';
import { buildSlots, type Slot } from './labels.js';
import { buildQueue, type QueueEntry } from './queue.js';
import type { Segmenter } from '../perception/types.js';

export interface SegmenterChoice {
  id: string;
  modelsDir: string;
  /** Explicit model file paths by role (tests, files kept elsewhere). */
  files?: Record<string, string>;
}

export interface ReviewSessionOptions {
  annotations: string;
  manifest: string;
  /** Journal file (default: review.sqlite beside the annotation file). */
  journal?: string;
  /** Folder the annotation file's depth_file paths resolve against (default: its own folder). */
  depth?: string;
  reviewer?: string;
  /** Segmenter for re-segmenting; null: none. */
  segmenter?: SegmenterChoice | null;
}

export const DEFAULT_JOURNAL = 'review.sqlite';

/** Real path of `path`, which must lie inside the real path of `root`. */
async function realInside(root: string, path: string, what: string): Promise<string> {
  let realRoot: string;
  let real: string;
  try {
    [realRoot, real] = await Promise.all([realpath(root), realpath(path)]);
  } catch (err) {
    throw new GsrError(`${what}: ${errorMessage(err)}`);
  }
  if (!isInside(realRoot, real)) throw new GsrError(`${what}: ${path} leads outside ${root}`);
  return real;
}

export class ReviewSession {
  readonly queue: QueueEntry[];
  private readonly bySlot: Map<string, Slot>;
  private readonly events: Map<string, EditEvent[]>;
  private segmenter: Promise<Segmenter> | null = null;
  /** The image the segmenter holds, so re-segmenting one image twice encodes it once. */
  private segmentedImage: string | null = null;
  private segmentQueue: Promise<unknown> = Promise.resolve();
  /** Whether the configured segmenter's files are all present (null: none configured). */
  segmenterInstalled: boolean | null = null;

  private constructor(
    readonly options: Required<Pick<ReviewSessionOptions, 'annotations' | 'manifest' | 'journal' | 'reviewer'>> & ReviewSessionOptions,
    readonly coco: CocoFile,
    readonly sha256: string,
    readonly slots: Slot[],
    readonly unannotated: string[],
    readonly journal: ReviewJournal,
  ) {
    this.bySlot = new Map(slots.map((s) => [s.key, s]));
    this.queue = buildQueue(slots, coco);
    this.events = eventsBySlot(journal.events());
  }

  static async open(options: ReviewSessionOptions): Promise<ReviewSession> {
    const annotations = resolve(options.annotations);
    const manifest = resolve(options.manifest);
    const bytes = await readFile(annotations).catch((err) => {
      throw new GsrError(`cannot read ${annotations}: ${errorMessage(err)}`);
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const coco = await readCocoFile(annotations);
    const items = await readManifestAll(manifest);
    const { slots, unannotated } = buildSlots(coco, items);
    if (slots.length === 0) throw new GsrError(`${annotations}: no image matches an item of ${manifest} (images[].item_id)`);
    const journalPath = resolve(options.journal ?? resolve(dirname(annotations), DEFAULT_JOURNAL));
    const journal = ReviewJournal.open(journalPath, { file: annotations, sha256 });
    const reviewer = options.reviewer ?? 'reviewer';
    let installed: boolean | null = null;
    if (options.segmenter) {
      const { getManifest, modelFilePath } = await import('../perception/manifest.js');
      const choice = options.segmenter;
      installed = await getManifest(choice.id).then(
        (m) => m.files.every((f) => existsSync(modelFilePath(m, f.role, choice.modelsDir, choice.files))),
        () => false,
      );
    }
    try {
      const session = new ReviewSession({ ...options, annotations, manifest, journal: journalPath, reviewer }, coco, sha256, slots, unannotated, journal);
      session.segmenterInstalled = installed;
      return session;
    } catch (err) {
      journal.close();
      throw err;
    }
  }

  slot(key: string): Slot {
    const slot = this.bySlot.get(key);
    if (!slot) throw new GsrError(`no label ${key} in this review`);
    return slot;
  }

  label(key: string): SlotLabel {
    return labelOf(this.slot(key), this.events.get(key) ?? []);
  }

  labels(): Map<string, SlotLabel> {
    return new Map(this.slots.map((s) => [s.key, this.label(s.key)]));
  }

  /** Records one edit (committed to the journal before returning) and returns the new label. */
  edit(key: string, edit: Edit, reviewer = this.options.reviewer): SlotLabel {
    const slot = this.slot(key);
    if (edit.kind === 'box') {
      const [x1, y1, x2, y2] = edit.box;
      if (!(x2 > x1 && y2 > y1)) throw new GsrError('a box needs x2 > x1 and y2 > y1');
      const { width, height } = slot.image;
      const clipped: [number, number, number, number] = [Math.max(0, x1), Math.max(0, y1), Math.min(width, x2), Math.min(height, y2)].map((v) => Math.round(v * 100) / 100) as [number, number, number, number];
      if (!(clipped[2] > clipped[0] && clipped[3] > clipped[1])) throw new GsrError('the box lies outside the image');
      edit = { kind: 'box', box: clipped };
    }
    if (edit.kind === 'undo' && this.label(key).depth === 0) throw new GsrError(`nothing to undo on ${key}`);
    const event = this.journal.append(key, reviewer, edit);
    (this.events.get(key) ?? this.events.set(key, []).get(key)!).push(event);
    return this.label(key);
  }

  /** Absolute real path of an item's image, inside its dataset root. */
  async imagePath(item: string): Promise<string> {
    const slot = this.slots.find((s) => s.item === item);
    if (!slot) throw new GsrError(`no item ${item} in this review`);
    const m = slot.manifest;
    const abs = resolveItemImage(m, this.options.manifest);
    return realInside(m.root ?? dirname(this.options.manifest), abs, `item ${item}: image`);
  }

  /** The current mask of a slot as a row-major 0/1 array, or null. */
  maskOf(key: string): { mask: Uint8Array; width: number; height: number } | null {
    const label = this.label(key);
    if (!label.mask) return null;
    const [height, width] = label.mask.rle.size;
    return { mask: rleDecode(label.mask.rle), width, height };
  }

  /** Whether a segmenter was configured (it may still fail to load). */
  get segmenterId(): string | null {
    return this.options.segmenter?.id ?? null;
  }

  /**
   * Re-segments a slot from its current box with the configured segmenter and records the mask.
   * Without a usable segmenter this throws a GsrError saying so; the box edit stays as it is.
   */
  resegment(key: string): Promise<SlotLabel> {
    const run = this.segmentQueue.then(() => this.resegmentNow(key));
    this.segmentQueue = run.catch(() => undefined);
    return run;
  }

  private async resegmentNow(key: string): Promise<SlotLabel> {
    const slot = this.slot(key);
    const label = this.label(key);
    if (!label.box) throw new GsrError(`${key} has no box to segment`);
    const choice = this.options.segmenter;
    if (!choice) throw new GsrError('no segmenter installed (start gsr review with --segmenter ID); the box edit is kept');
    if (!this.segmenter) {
      this.segmenter = (async () => {
        const { segmenters } = await import('../perception/registry.js');
        if (!segmenters.has(choice.id)) throw new GsrError(`unknown segmenter ${choice.id}`);
        return segmenters.get(choice.id)({ modelsDir: choice.modelsDir, device: 'cpu', files: choice.files });
      })();
    }
    let segmenter: Segmenter;
    try {
      segmenter = await this.segmenter;
    } catch (err) {
      this.segmenter = null;
      throw new GsrError(`segmenter ${choice.id} is not installed or does not load (${errorMessage(err)}); the box edit is kept`);
    }
    const imagePath = await this.imagePath(slot.item);
    if (this.segmentedImage !== imagePath) {
      const { loadImage } = await import('../perception/image.js');
      this.segmentedImage = null;
      await segmenter.setImage(await loadImage(imagePath));
      this.segmentedImage = imagePath;
    }
    const { mask, score } = await segmenter.segment(label.box);
    const rle = rleEncode(mask, slot.image.height, slot.image.width);
    return this.edit(key, { kind: 'mask', box: label.box, mask: { size: rle.size, counts: rle.counts as string }, score, segmenter: choice.id });
  }

  /** Depth statistics of changed labels from the depth PNGs, when the annotation file has them. */
  private async changedDepths(labels: Map<string, SlotLabel>): Promise<Map<string, ObjectDepth | null>> {
    const out = new Map<string, ObjectDepth | null>();
    const info = this.coco.info?.depth;
    if (!info) return out;
    const base = resolve(this.options.depth ?? dirname(this.options.annotations));
    for (const slot of this.slots) {
      const label = labels.get(slot.key)!;
      const changed = label.boxChanged || (label.mask && label.mask.source !== 'model');
      if (!changed || !label.box || !slot.image.depth_file) continue;
      const rel = normaliseRelativePath(slot.image.depth_file);
      if (rel === null) throw new GsrError(`${this.options.annotations}: image ${slot.image.id}: depth_file "${slot.image.depth_file}" is absolute or escapes its folder`);
      const path = await realInside(base, resolve(base, rel), `item ${slot.item}: depth`);
      const scale = info.scale_per_image ? slot.image.depth_scale : info.scale;
      if (!scale) continue;
      const depth = await decodeDepthPng(path, scale);
      const mask = label.mask ? rleDecode(label.mask.rle) : undefined;
      out.set(slot.key, regionDepthStats(depth.data, depth.width, depth.height, info.unit, { mask, box: label.box }));
    }
    return out;
  }

  /** Writes the reviewed COCO file (atomically) and returns its provenance counts. */
  async exportTo(out: string): Promise<ReturnType<typeof buildReviewedCoco>['counts']> {
    const labels = this.labels();
    const depths = await this.changedDepths(labels);
    const { coco, counts } = buildReviewedCoco({
      base: this.coco,
      slots: this.slots,
      labels,
      depths,
      meta: { base_file: this.options.annotations, base_sha256: this.sha256, journal: this.options.journal, exported_at: new Date().toISOString() },
    });
    await writeCocoFile(resolve(out), { info: coco.info ?? {}, images: coco.images, annotations: coco.annotations, categories: coco.categories ?? [] });
    return counts;
  }

  async close(): Promise<void> {
    this.journal.close();
    const seg = this.segmenter;
    this.segmenter = null;
    if (seg) await seg.then((s) => s.dispose()).catch(() => undefined);
  }
}
