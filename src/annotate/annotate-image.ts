/**
 * Annotates one decoded image: one detector pass per phrase (top box kept, runners-up recorded),
 * one segmenter image embedding and a box prompt per found object, one depth map with per-object
 * statistics, the 16-bit depth PNG and, on request, the overlay. Holds only this image's data.
 */
import { join } from 'node:path';
import { boxArea, boxIou, clipBox, orderCorners, type Box } from '../geometry/boxes.js';
import { rleEncode } from '../geometry/rle.js';
import type { DepthEstimator, DepthMap, Detection, Detector, RgbImage, Segmenter } from '../perception/types.js';
import { writeFileAtomic } from '../util/fs.js';
import { timeStage, timeStageAsync } from '../util/stage-clock.js';
import type { CocoAnnotation, CocoImage } from '../formats/coco.js';
import { encodeDepthPng } from '../formats/depth-png.js';
import { regionDepthStats } from '../geometry/depth-stats.js';
import type { JournalDone } from './journal.js';
import { renderOverlayPng, type OverlayObject } from './overlay.js';
import { fileStemForId, type AnnotateTarget } from './targets.js';

export interface PerceptionModels {
  detector: Detector;
  segmenter?: Segmenter;
  depth?: DepthEstimator;
}

export interface ImageOutputOptions {
  /** Output folder; depth PNGs go to `depth/`, overlays to `overlays/`. */
  outDir: string;
  overlays: boolean;
  /** How many lower-scoring boxes to record per object. */
  maxRunnersUp: number;
}

export const NO_BOX_REASON = 'no box above threshold';
export const SAME_PHRASE_REASON = 'only one instance of the phrase found';
/** Another phrase's box took every box found for this one (a detector giving two nouns one box). */
export const overlapReason = (role: string, phrase: string) => `every box found is the ${role}'s box ("${phrase}"), IoU >= 0.5`;

const round2 = (v: number) => Math.round(v * 100) / 100;

function toXywh(box: Box): [number, number, number, number] {
  return [round2(box[0]), round2(box[1]), round2(box[2] - box[0]), round2(box[3] - box[1])];
}

function checkDepth(map: DepthMap, image: RgbImage, id: string): void {
  if (map.width !== image.width || map.height !== image.height || map.data.length !== image.width * image.height) {
    throw new Error(`depth model ${id} returned ${map.width}x${map.height}, expected the image size ${image.width}x${image.height}`);
  }
}

/** One object's detection pick: the chosen box (null when none), the others, and why none. */
export interface DetectionPick {
  role: 'subject' | 'object';
  phrase: string;
  chosen: Detection | null;
  others: Detection[];
  reason?: string;
}

/** A found object's mask from the segmenter. */
export interface ObjectMask {
  mask: Uint8Array;
  score: number;
}

/**
 * Picks each role's detection. A phrase is detected once per image; when subject and object share
 * a phrase, the object takes the best box that is not the subject's (IoU < 0.5 with it).
 */
export async function chooseDetections(image: RgbImage, target: AnnotateTarget, detector: Detector): Promise<DetectionPick[]> {
  const byPhrase = new Map<string, Detection[]>();
  const taken: Array<{ det: Detection; role: string; phrase: string }> = [];
  const out: DetectionPick[] = [];
  for (const { role, phrase } of target.objects) {
    let dets = byPhrase.get(phrase);
    if (!dets) {
      dets = [...(await detector.detect(image, phrase))].sort((a, b) => b.score - a.score);
      byPhrase.set(phrase, dets);
    }
    const takenBy = (d: Detection) => taken.find((t) => t.det === d || boxIou(t.det.box, d.box) >= 0.5);
    const chosen = dets.find((d) => takenBy(d) === undefined) ?? null;
    if (chosen) taken.push({ det: chosen, role, phrase });
    const other = chosen || dets.length === 0 ? undefined : dets.map(takenBy).find((t) => t!.phrase !== phrase);
    const reason = chosen ? undefined : dets.length === 0 ? NO_BOX_REASON : other ? overlapReason(other.role, other.phrase) : SAME_PHRASE_REASON;
    out.push({ role, phrase, chosen, others: dets.filter((d) => d !== chosen), reason });
  }
  return out;
}

/** The depth map of `image`, checked to be the image's size. */
export async function estimateDepth(image: RgbImage, model: DepthEstimator): Promise<DepthMap> {
  const depth = await model.estimate(image);
  checkDepth(depth, image, model.id);
  return depth;
}

const pickBox = (pick: DetectionPick, image: RgbImage) => clipBox(orderCorners(pick.chosen!.box), image.width, image.height) as Box;

/** One image embedding, then one mask per found object (in `picks` order, found ones only). */
export async function segmentPicks(image: RgbImage, picks: DetectionPick[], segmenter: Segmenter): Promise<ObjectMask[]> {
  const found = picks.filter((p) => p.chosen !== null);
  if (found.length === 0) return [];
  await segmenter.setImage(image);
  const masks: ObjectMask[] = [];
  for (const pick of found) {
    const seg = await segmenter.segment(pickBox(pick, image));
    if (seg.mask.length !== image.width * image.height) {
      throw new Error(`segmenter ${segmenter.id} returned a mask of ${seg.mask.length} pixels, expected ${image.width}x${image.height}`);
    }
    masks.push({ mask: seg.mask, score: seg.score });
  }
  return masks;
}

/** Annotates `image` for `target`, writing its depth PNG (and overlay); returns its journal record. */
export async function annotateImage(
  image: RgbImage,
  target: AnnotateTarget,
  models: PerceptionModels,
  options: ImageOutputOptions,
): Promise<JournalDone> {
  return assembleImage(image, target, await runModels(image, target, models), options);
}

/** The models' outputs for `image`: each role's detection, the depth map, the found objects' masks. */
export async function runModels(image: RgbImage, target: AnnotateTarget, models: PerceptionModels): Promise<{ picks: DetectionPick[]; depth?: DepthMap; masks?: ObjectMask[] }> {
  const picks = await chooseDetections(image, target, models.detector);
  const depth = models.depth ? await estimateDepth(image, models.depth) : undefined;
  const masks = models.segmenter ? await segmentPicks(image, picks, models.segmenter) : undefined;
  return { picks, depth, masks };
}

/**
 * An image's record from its models' outputs (`masks`: one per found pick, absent without a
 * segmenter); writes its depth PNG (and overlay).
 */
export async function assembleImage(
  image: RgbImage,
  target: AnnotateTarget,
  outputs: { picks: DetectionPick[]; depth?: DepthMap; masks?: ObjectMask[] },
  options: ImageOutputOptions,
): Promise<JournalDone> {
  const { width, height } = image;
  const { picks, depth, masks } = outputs;
  const stem = fileStemForId(target.itemId);
  const found = picks.filter((p) => p.chosen !== null);
  const annotations: JournalDone['annotations'] = [];
  const overlayObjects: OverlayObject[] = [];
  found.forEach((pick, i) => {
    const box = pickBox(pick, image);
    const ann: Omit<CocoAnnotation, 'id' | 'image_id' | 'category_id'> = {
      bbox: toXywh(box),
      area: round2(boxArea(box)),
      iscrowd: 0,
      role: pick.role,
      phrase: pick.phrase,
      score: pick.chosen!.score,
    };
    const seg = masks?.[i];
    const mask = seg?.mask;
    if (seg) {
      const m = seg.mask;
      timeStage('post:annotate', () => {
        ann.segmentation = rleEncode(m, height, width);
        let area = 0;
        for (let j = 0; j < m.length; j++) if (m[j]) area++;
        ann.area = area;
      });
      ann.mask_score = seg.score;
    }
    if (depth) {
      const d = depth;
      const stats = timeStage('post:annotate', () => regionDepthStats(d.data, width, height, d.unit, { mask, box }));
      if (stats) ann.depth = stats;
    }
    if (pick.others.length > 0) {
      ann.runners_up = pick.others
        .slice(0, options.maxRunnersUp)
        .map((d) => ({ bbox: toXywh(clipBox(orderCorners(d.box), width, height) as Box), score: d.score }));
    }
    annotations.push(ann);
    overlayObjects.push({ role: pick.role, box, mask });
  });

  const imageRecord: Omit<CocoImage, 'id'> = { file_name: target.fileName, width, height, item_id: target.itemId };
  if (target.split !== undefined) imageRecord.split = target.split;
  const missing = picks.filter((p) => p.chosen === null).map((p) => ({ role: p.role, phrase: p.phrase, reason: p.reason! }));
  if (missing.length > 0) imageRecord.missing = missing;
  await timeStageAsync('write', async () => {
    if (depth) {
      const { png, scale } = await encodeDepthPng(depth);
      imageRecord.depth_file = `depth/${stem}.png`;
      imageRecord.depth_scale = scale;
      await writeFileAtomic(join(options.outDir, imageRecord.depth_file), png);
    }
    if (options.overlays) {
      imageRecord.overlay_file = `overlays/${stem}.png`;
      await writeFileAtomic(join(options.outDir, imageRecord.overlay_file), await renderOverlayPng(image, overlayObjects, depth));
    }
  });
  return {
    type: 'done',
    item_id: target.itemId,
    image: imageRecord,
    annotations,
    ...(depth ? { depth: { unit: depth.unit, larger: depth.larger } } : {}),
  };
}
