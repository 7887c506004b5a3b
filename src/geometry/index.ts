/**
 * Pure geometry: boxes and COCO RLE masks. No I/O.
 */
/** COCO RLE (pycocotools-compatible): encode/decode, area, bbox, IoU, union/intersection, string codec. */
export {
  type Rle,
  type RleRuns,
  rleEncode,
  rleDecode,
  rleArea,
  rleToBbox,
  rleMerge,
  rleIntersect,
  rleRuns,
  maskToRuns,
  runsToString,
  stringToRuns,
} from './rle.js';
/** Mask IoU: one pair, or a matrix that decodes each mask once (pycocotools `mask.iou`, with iscrowd). */
export { type DecodedMask, decodeMask, maskIou, rleIou, rleIouMatrix } from './mask-iou.js';
/** Box layouts (xyxy / xywh / cxcywh), normalisation, clipping, area and continuous IoU (no +1). */
export {
  type Box,
  type BoxLayout,
  xywhToXyxy,
  xyxyToXywh,
  cxcywhToXyxy,
  xyxyToCxcywh,
  convertBox,
  normalizeBox,
  denormalizeBox,
  orderCorners,
  clipBox,
  isFiniteBox,
  boxArea,
  boxIou,
} from './boxes.js';
/** Depth statistics (median, mean, p10, p90) inside a mask or box, and a box's pixel range. */
export { regionDepthStats, boxPixelRange, type RegionDepthStats } from './depth-stats.js';
