/**
 * Overlays of an auto-annotator's labels beside the exact truth (synthetic scenes): for each of the
 * first images, the picture with each side's boxes (and masks, where there are) and its depth
 * heat-map, written as small JPEGs for the report (docs/pipeline.md, "Pseudo-labels on synthetic
 * scenes").
 */
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import type { CocoFile, CocoImage } from '../formats/coco.js';
import { decodeDepthPng } from '../formats/depth-png.js';
import { xywhToXyxy } from '../geometry/boxes.js';
import { rleDecode } from '../geometry/rle.js';
import { writeFileAtomic } from '../util/fs.js';
import { loadImage } from '../perception/image.js';
import type { DepthMap } from '../perception/types.js';
import { renderOverlayRaw, type OverlayObject } from './overlay.js';

/** One annotation file and the folder its relative paths (images, depth PNGs) start from. */
export interface LabelSet {
  coco: CocoFile;
  dir: string;
}

/** The overlay files of one image, relative to the output folder. */
export interface ComparisonOverlay {
  item: string;
  model: string;
  truth: string;
}

const safe = (id: string) => id.replace(/[^A-Za-z0-9._-]/g, '_');

async function depthOf(set: LabelSet, image: CocoImage): Promise<DepthMap | undefined> {
  const d = set.coco.info?.depth;
  if (!image.depth_file || !d) return undefined;
  const scale = image.depth_scale ?? d.scale;
  const map = await decodeDepthPng(resolve(set.dir, image.depth_file), scale);
  return { ...map, unit: d.unit, larger: d.larger };
}

function objectsOf(coco: CocoFile, image: CocoImage): OverlayObject[] {
  return coco.annotations
    .filter((a) => a.image_id === image.id)
    .map((a) => ({
      role: a.role,
      box: xywhToXyxy(a.bbox),
      mask: a.segmentation && a.segmentation.size[0] === image.height && a.segmentation.size[1] === image.width ? rleDecode(a.segmentation) : undefined,
    }));
}

/**
 * Writes `<out>/<item>.model.jpg` and `<out>/<item>.truth.jpg` for the first `limit` truth images
 * that the prediction also has; `imagesRoot` is where the truth's `file_name`s start.
 */
export async function writeComparisonOverlays(pred: LabelSet, truth: LabelSet, imagesRoot: string, out: string, limit: number, width = 640): Promise<ComparisonOverlay[]> {
  const predBy = new Map(pred.coco.images.map((i) => [i.item_id, i]));
  const pairs = truth.coco.images.flatMap((t) => (predBy.has(t.item_id) ? [{ t, p: predBy.get(t.item_id)! }] : [])).slice(0, limit);
  // The images at once: their decoding and encoding run on libuv's threads, side by side.
  return Promise.all(
    pairs.map(async ({ t, p }) => {
      const picture = await loadImage(resolve(imagesRoot, t.file_name));
      const entry = { item: t.item_id, model: `${safe(t.item_id)}.model.jpg`, truth: `${safe(t.item_id)}.truth.jpg` };
      for (const [set, image, file] of [[pred, p, entry.model], [truth, t, entry.truth]] as const) {
        // Raw pixels into the resize: the same JPEG as through renderOverlayPng's PNG, without encoding one.
        const { data, info } = await renderOverlayRaw(picture, objectsOf(set.coco, image), await depthOf(set, image));
        const jpeg = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).resize({ width }).jpeg({ quality: 80 }).toBuffer();
        await writeFileAtomic(join(out, file), jpeg);
      }
      return entry;
    }),
  );
}
