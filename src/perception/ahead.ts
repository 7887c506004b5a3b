/**
 * Pre-processing started ahead of its turn (pipelining): `gsr annotate` hands a port the next image
 * as soon as it is decoded, and the port prepares its input tensor while the current image's
 * inference runs (onnxruntime runs off the JavaScript thread). Holds at most two images.
 */
import type { RgbImage } from './types.js';

export class Ahead<T> {
  private readonly entries: Array<{ image: RgbImage; value: Promise<T> }> = [];

  /** `make` prepares one image; `drop` returns an unused result's buffers (e.g. to a pool). */
  constructor(
    private readonly make: (image: RgbImage) => Promise<T>,
    private readonly drop?: (value: T) => void,
  ) {}

  /** Starts preparing `image` now, unless it already is. */
  start(image: RgbImage): void {
    if (this.entries.some((e) => e.image === image)) return;
    const value = this.make(image);
    value.catch(() => undefined); // reported by take()
    this.entries.push({ image, value });
    if (this.entries.length > 2) this.release(this.entries.shift()!);
  }

  /** The prepared `image`: the result started ahead, or prepared now. */
  take(image: RgbImage): Promise<T> {
    const i = this.entries.findIndex((e) => e.image === image);
    if (i < 0) return this.make(image);
    return this.entries.splice(i, 1)[0]!.value;
  }

  /** Drops every result not taken. */
  clear(): void {
    for (const e of this.entries.splice(0)) this.release(e);
  }

  private release(e: { value: Promise<T> }): void {
    if (this.drop) e.value.then(this.drop, () => undefined);
  }
}
