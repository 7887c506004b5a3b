/**
 * Qwen2-VL / Qwen2.5-VL `smart_resize`: the size the processor resizes an image to before the model
 * sees it. Qwen2.5-VL answers boxes in pixels of that size, so scoring needs it.
 */
import { GsrError } from '../util/errors.js';

/** Defaults from Qwen2.5-VL's preprocessor config (patch 14 x merge 2 = factor 28). */
export const QWEN25_RESIZE_DEFAULTS = { factor: 28, minPixels: 3136, maxPixels: 12845056 } as const;

export interface SmartResizeOptions {
  factor?: number;
  minPixels?: number;
  maxPixels?: number;
}

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Resized [width, height] of a width x height image; null for sizes the processor rejects. */
export function qwenSmartResize(width: number, height: number, options: SmartResizeOptions = {}): [number, number] | null {
  const { factor, minPixels, maxPixels } = { ...QWEN25_RESIZE_DEFAULTS, ...options };
  if (!(width > 0 && height > 0) || Math.max(width, height) / Math.min(width, height) > 200) return null;
  let h = roundHalfEven(height / factor) * factor;
  let w = roundHalfEven(width / factor) * factor;
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.max(factor, Math.floor(height / beta / factor) * factor);
    w = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return [w, h];
}

/** Parses a `--image-size` value: `WxH` (fixed) or `smart-resize[:minPixels:maxPixels]`. */
export function parseInputSizeSpec(text: string): { kind: 'fixed'; width: number; height: number } | ({ kind: 'smart-resize' } & SmartResizeOptions) {
  const fixed = /^(\d+)x(\d+)$/.exec(text.trim());
  if (fixed && Number(fixed[1]) > 0 && Number(fixed[2]) > 0) return { kind: 'fixed', width: Number(fixed[1]), height: Number(fixed[2]) };
  const smart = /^smart-resize(?::(\d+):(\d+))?$/.exec(text.trim());
  if (smart) {
    if (smart[1] === undefined) return { kind: 'smart-resize' };
    const minPixels = Number(smart[1]);
    const maxPixels = Number(smart[2]);
    if (minPixels > 0 && maxPixels >= minPixels) return { kind: 'smart-resize', minPixels, maxPixels };
  }
  throw new GsrError(`--image-size must be WxH or smart-resize[:minPixels:maxPixels], got "${text}"`);
}
