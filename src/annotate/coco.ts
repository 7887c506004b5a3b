/**
 * Annotation files are real COCO JSON (DESIGN.md §3) with gsr-bench's extra fields.
 * Masks are compressed RLE; `area` is the mask area (box area when there is no mask).
 */

export interface CocoRle {
  size: [number, number];
  counts: string;
}

export type DepthUnit = 'm' | 'relative-inverse';

/** Depth statistics of one object, inside its mask (or its box when there is no mask). */
export interface ObjectDepth {
  median: number;
  mean: number;
  p10: number;
  p90: number;
  unit: DepthUnit;
  /** `mask` or `box`: the region the statistics were taken over. */
  region: 'mask' | 'box';
}

export interface CocoImage {
  id: number;
  file_name: string;
  width: number;
  height: number;
  /** Manifest item id. */
  item_id: string;
  split?: string;
  /** Path of the 16-bit depth PNG, relative to the annotation file's folder. */
  depth_file?: string;
  /** PNG value * depth_scale = depth in `info.depth.unit` (0 in the PNG = no value). */
  depth_scale?: number;
  /** Path of the inspection overlay PNG (`--overlays`), relative to the annotation file's folder. */
  overlay_file?: string;
  /** Synthetic scenes: the pinhole camera that rendered the image (pixels, metres, degrees). */
  camera?: { fx: number; fy: number; cx: number; cy: number; height_m: number; pitch_deg: number };
  /** Objects that were looked for and not found. */
  missing?: Array<{ role: 'subject' | 'object'; phrase: string; reason: string }>;
}

export interface CocoAnnotation {
  id: number;
  image_id: number;
  category_id: number;
  /** [x, y, w, h] in pixels. */
  bbox: [number, number, number, number];
  area: number;
  segmentation?: CocoRle;
  iscrowd: 0;
  role: 'subject' | 'object';
  phrase: string;
  /** Detector confidence (1 for exact synthetic ground truth). */
  score: number;
  mask_score?: number;
  depth?: ObjectDepth;
  /** Lower-scoring candidate boxes for the same phrase, xywh with scores. */
  runners_up?: Array<{ bbox: [number, number, number, number]; score: number }>;
}

export interface CocoCategory {
  id: number;
  name: string;
}

export interface AnnotationInfo {
  tool: string;
  version: string;
  date_created: string;
  /** `exact-synthetic` for rendered ground truth, else `auto`. */
  source: 'exact-synthetic' | 'auto';
  models?: Array<{
    id: string;
    task: string;
    sha256: string | null;
    /** Each file loaded, with its sha256 and whether that matches the model manifest. */
    files?: Array<{ role: string; path: string; sha256: string; matches_manifest: boolean | null }>;
  }>;
  thresholds?: Record<string, number>;
  device?: string;
  /** How to read the depth PNGs: value * scale = depth in `unit`; `larger` says which way is nearer. */
  depth?: {
    unit: DepthUnit;
    /** Millimetres for metric depth (0.001); 0 when each image has its own `depth_scale`. */
    scale: number;
    larger: 'farther' | 'nearer';
    /** True for relative depth: read each image's `depth_scale`. */
    scale_per_image?: boolean;
  };
  [key: string]: unknown;
}

export interface CocoFile {
  info: AnnotationInfo;
  images: CocoImage[];
  annotations: CocoAnnotation[];
  categories: CocoCategory[];
}
