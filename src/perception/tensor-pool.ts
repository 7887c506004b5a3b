/**
 * Reusable float32 buffers for model inputs. A fresh multi-megabyte array per image is slow to get
 * (the OS maps and zeroes new pages): measured here, writing a 518x690 Depth Anything tensor took
 * about 4 ms into a new array and under 1 ms into a reused one. A buffer is lent until given back,
 * so concurrent calls never share one.
 */
export class Float32Pool {
  private readonly free: ArrayBuffer[] = [];

  /** @param keep most idle buffers held between calls */
  constructor(private readonly keep = 2) {}

  /** A zero-offset array of exactly `length` values; contents are undefined (the caller overwrites). */
  take(length: number): Float32Array {
    const bytes = length * 4;
    const at = this.free.findIndex((b) => b.byteLength >= bytes);
    if (at >= 0) return new Float32Array(this.free.splice(at, 1)[0]!, 0, length);
    return new Float32Array(length);
  }

  /** Returns an array from {@link take} for reuse. */
  give(array: Float32Array): void {
    const buffer = array.buffer as ArrayBuffer;
    if (this.free.includes(buffer)) return;
    this.free.push(buffer);
    // Keep the largest: they fit every later request.
    if (this.free.length > this.keep) this.free.sort((a, b) => b.byteLength - a.byteLength).length = this.keep;
  }
}
