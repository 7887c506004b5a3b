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
  rleIou,
  rleMerge,
  rleIntersect,
  rleRuns,
  maskToRuns,
  runsToString,
  stringToRuns,
} from './rle.js';
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
