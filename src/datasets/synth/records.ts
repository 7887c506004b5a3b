/**
 * Turns a rendered scene into its records (pure): the manifest item, the COCO image entry and one
 * annotation per named object, with masks as compressed RLE of the visible pixels, boxes and areas
 * from those masks, and depth statistics inside them.
 */
import { regionDepthStats } from '../../geometry/depth-stats.js';
import type { CocoAnnotation, CocoCategory, CocoImage } from '../../formats/coco.js';
import { rleArea, rleEncode, rleToBbox } from '../../geometry/rle.js';
import type { ManifestItem } from '../../formats/manifest.js';
import { FURNITURE, OBJECT_KINDS } from './kinds.js';
import type { Rendered } from './render.js';
import type { Scene } from './scene.js';

/** One category per object and furniture kind, ids in name order (the same in every synthetic set). */
export const SYNTH_CATEGORIES: readonly CocoCategory[] = [...OBJECT_KINDS.map((k) => k.name), ...FURNITURE.map((f) => f.name)]
  .sort()
  .map((name, i) => ({ id: i + 1, name }));

export interface SceneRecords {
  item: ManifestItem;
  image: CocoImage;
  /** Annotations with `id` 0; the writer numbers them in scene order. */
  annotations: CocoAnnotation[];
}

const round = (v: number, digits: number) => Number(v.toFixed(digits));

/** Scene id of index `i` in a set of `count`: `synth-00042` (at least five digits). */
export function sceneId(i: number, count: number): string {
  return `synth-${String(i).padStart(Math.max(5, String(count - 1).length), '0')}`;
}

/** Pixel bounds (inclusive) of each named entity, to keep per-object work inside its box. */
export type EntityBounds = ReadonlyArray<{ x0: number; x1: number; y0: number; y1: number }>;

/**
 * Builds the records of scene `imageId` (1-based). `depth` holds the stored depth values and
 * `depthScale` turns them into metres, so the statistics agree with the PNG. `bounds[e]` must
 * cover every pixel labelled e (entity 1 subject, 2 object).
 */
export function sceneRecords(
  id: string,
  imageId: number,
  scene: Scene,
  r: Rendered,
  depth: Uint16Array,
  depthScale: number,
  bounds: EntityBounds,
  imageFile: string,
  depthFile: string,
): SceneRecords {
  const { width: w, height: h } = r;
  const cam = scene.camera;
  const item: ManifestItem = {
    id,
    split: 'synthetic',
    image: imageFile,
    subject: scene.subject,
    object: scene.object,
    relation: scene.relation,
    options: scene.options,
    answer: scene.answer,
    style: scene.style,
    width: w,
    height: h,
  };
  const image: CocoImage = {
    id: imageId,
    file_name: imageFile,
    width: w,
    height: h,
    item_id: id,
    split: 'synthetic',
    depth_file: depthFile,
    camera: { fx: round(cam.fx, 4), fy: round(cam.fy, 4), cx: cam.cx, cy: cam.cy, height_m: round(cam.heightM, 4), pitch_deg: round((cam.pitch * 180) / Math.PI, 4) },
  };
  const roles: Array<['subject' | 'object', string | null]> = [
    ['subject', scene.subject],
    ['object', scene.object],
  ];
  const annotations: CocoAnnotation[] = [];
  roles.forEach(([role, phrase], k) => {
    if (phrase === null) return;
    const entity = k + 1;
    const { x0, x1, y0, y1 } = bounds[entity];
    const cw = x1 - x0 + 1;
    const ch = y1 - y0 + 1;
    // The full mask for the RLE; a crop of mask and depth for the statistics.
    const mask = new Uint8Array(w * h);
    const cropMask = new Uint8Array(cw * ch);
    const cropDepth = new Float32Array(cw * ch);
    for (let y = y0, c = 0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++, c++) {
        const i = y * w + x;
        if (r.label[i] !== entity) continue;
        mask[i] = 1;
        cropMask[c] = 1;
        cropDepth[c] = depth[i] * depthScale;
      }
    }
    const segmentation = rleEncode(mask, h, w);
    const bbox = rleToBbox(segmentation);
    const stats = regionDepthStats(cropDepth, cw, ch, 'm', { mask: cropMask, box: [0, 0, cw, ch] });
    annotations.push({
      id: 0,
      image_id: imageId,
      category_id: SYNTH_CATEGORIES.find((c) => c.name === phrase)!.id,
      bbox,
      area: rleArea(segmentation),
      segmentation,
      iscrowd: 0,
      role,
      phrase,
      score: 1,
      mask_score: 1,
      ...(stats && { depth: { ...stats, median: round(stats.median, 4), mean: round(stats.mean, 4), p10: round(stats.p10, 4), p90: round(stats.p90, 4) } }),
    });
  });
  return { item, image, annotations };
}
