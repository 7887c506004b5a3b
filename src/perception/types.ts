/**
 * Plug-in interfaces for perception models. Each port (one file in src/perception/models/) keeps its
 * pre-processing and post-processing together and registers a factory by name; the I/O contract of
 * each model id is in its manifest, models/<id>.json (docs/reference.md, "ONNX contracts").
 */
import type { DepthUnit } from '../formats/coco.js';

/** Decoded image: interleaved RGB, 8-bit, EXIF orientation applied. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A detected box in original-image pixels, xyxy. */
export interface Detection {
  box: [number, number, number, number];
  score: number;
  label: string;
  /** Open-vocabulary detectors: the prompt tokens above the text threshold, decoded (the reference's label). */
  textLabel?: string;
}

/**
 * What a plug-in may report about itself for the annotations' `info` (overrides what is derived
 * from its manifest): file hash, device, thresholds and named decoding settings in effect.
 */
export interface PluginProvenance {
  sha256?: string | null;
  device?: string;
  thresholds?: Record<string, number>;
  settings?: Record<string, string>;
}

/**
 * A detector plug-in. Calls on one instance are made one at a time (the ports keep the last image's
 * tensors between phrases); use one instance per concurrent caller.
 */
export interface Detector {
  readonly id: string;
  /** Where the model really runs (after `auto` chose); absent when the plug-in cannot say. */
  readonly device?: 'cpu' | 'cuda';
  /** Boxes for one phrase, best first; empty when nothing passes the thresholds. */
  detect(image: RgbImage, phrase: string): Promise<Detection[]>;
  /**
   * Optional pipelining: starts pre-processing `image` now (while another image's inference runs);
   * a later call for the same image uses it. The same contract on every plug-in kind.
   */
  prefetch?(image: RgbImage): void;
  /**
   * For closed-vocabulary detectors: whether the phrase maps to a class at all, so a miss can be
   * recorded as "not in the vocabulary" rather than "no box above threshold". Absent: always true.
   */
  canDetect?(phrase: string): boolean;
  readonly provenance?: PluginProvenance;
  dispose(): Promise<void>;
}

export interface SegmentResult {
  /** Row-major 0/1 mask at the original image size. */
  mask: Uint8Array;
  /** The segmenter's own predicted IoU for the chosen mask. */
  score: number;
}

export interface Segmenter {
  readonly id: string;
  /** Where the model really runs (after `auto` chose); absent when the plug-in cannot say. */
  readonly device?: 'cpu' | 'cuda';
  /** Prepares per-image state (e.g. SAM's image embedding) once; then `segment` per box. */
  setImage(image: RgbImage): Promise<void>;
  /** See {@link Detector.prefetch}. */
  prefetch?(image: RgbImage): void;
  segment(box: [number, number, number, number]): Promise<SegmentResult>;
  dispose(): Promise<void>;
}

export interface DepthMap {
  /** Row-major depth at the original image size. */
  data: Float32Array;
  width: number;
  height: number;
  unit: DepthUnit;
  /** Which way larger values point. */
  larger: 'farther' | 'nearer';
}

export interface DepthEstimator {
  readonly id: string;
  /** Where the model really runs (after `auto` chose); absent when the plug-in cannot say. */
  readonly device?: 'cpu' | 'cuda';
  estimate(image: RgbImage): Promise<DepthMap>;
  /** See {@link Detector.prefetch}. */
  prefetch?(image: RgbImage): void;
  readonly provenance?: PluginProvenance;
  dispose(): Promise<void>;
}

export type Device = 'auto' | 'cpu' | 'cuda';

/**
 * Which variant of a model's ONNX files to load: `fp32` (the manifest's files, the default) or
 * `int8` (`<stem>.int8.onnx` beside each, onnxruntime dynamic quantization; docs/perception.md).
 */
export type Precision = 'fp32' | 'int8';

/**
 * How alpha becomes RGB. `drop` (the default, as Transformers' `load_image`: PIL's `convert('RGB')`
 * keeps the colour stored under each pixel) or `white` (composited on white, rounding down).
 */
export const ALPHA_RULES = ['drop', 'white'] as const;
export type AlphaRule = (typeof ALPHA_RULES)[number];
/**
 * How 16-bit greyscale (PIL's mode I;16) becomes 8-bit. `clip` (the default, as PIL's
 * `convert('RGB')`: values above 255 become 255) or `high-byte` (each value's high byte).
 */
export const GREY16_RULES = ['clip', 'high-byte'] as const;
export type Grey16Rule = (typeof GREY16_RULES)[number];

/**
 * What an embedded ICC profile does. `ignore` (the default, as PIL's `convert('RGB')`: the stored
 * values are taken as they are, CMYK by PIL's formula) or `convert` (to sRGB through the profile).
 */
export const ICC_RULES = ['ignore', 'convert'] as const;
export type IccRule = (typeof ICC_RULES)[number];

/** Decoding rules; each absent one is the reference's (docs/perception.md, "Decoding"). */
export interface DecodeOptions {
  alpha?: AlphaRule;
  grey16?: Grey16Rule;
  icc?: IccRule;
}

/** onnxruntime session settings beyond device and threads (docs/perception.md, "Speed"). */
export interface SessionTuning {
  /** Graph optimisation level (default `all`). */
  graphOptimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** Threads running independent graph nodes in parallel; 0 or absent: onnxruntime's choice. */
  interOpThreads?: number;
  /** `parallel` runs independent nodes at once (uses interOpThreads); default `sequential`. */
  executionMode?: 'sequential' | 'parallel';
  /** onnxruntime's CPU memory arena (default on). */
  memoryArena?: boolean;
  /**
   * onnxruntime's memory patterns: one block planned for all of a run's tensors (default off; on the
   * real-size models it cost 1.3-1.7 GB more peak memory for no speed, docs/perception.md, "Memory").
   */
  memoryPattern?: boolean;
  /**
   * Flush denormal floats to zero on the CPU (default off: results as computed). On the real-size
   * random-weight models it was 25% faster end to end (docs/perception.md, "Speed at real model size").
   */
  denormalAsZero?: boolean;
}

/** Options every model factory receives. */
export interface ModelLoadOptions {
  /** Folder holding model subfolders (default `models/`). */
  modelsDir: string;
  device: Device;
  /** Intra-op threads; 0 lets onnxruntime choose. */
  threads?: number;
  /** Model file variant (default fp32). */
  precision?: Precision;
  /** onnxruntime session settings (defaults: full graph optimisation, arena on, patterns off). */
  session?: SessionTuning;
  /** Port-specific thresholds and settings from the CLI or pipeline file. */
  params?: Record<string, number | string>;
  /**
   * Explicit file paths by manifest file role (`model`, `encoder`, `decoder`, `tokenizer`),
   * overriding <modelsDir>/<id>/<file>. Lets tests and users point at files kept elsewhere.
   */
  files?: Record<string, string>;
}
