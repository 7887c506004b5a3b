/**
 * Loading the embedded WebAssembly kernels (wasm/, `npm run build:wasm`) and laying out their
 * inputs in a module's memory, which is kept and grown between calls.
 */

// The global WebAssembly API of Node 20 (this project's TypeScript libs do not declare it).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** A compiled kernel: its exported functions and its memory. */
export interface WasmKernel<F> {
  fns: F;
  memory: WasmMemory;
}

/** Instantiates a base64 module once, on first use. */
export function lazyKernel<F>(base64: string): () => WasmKernel<F> {
  let loaded: WasmKernel<F> | undefined;
  return () => {
    if (!loaded) {
      const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(base64, 'base64')), {});
      loaded = { fns: instance.exports as F, memory: instance.exports.memory as WasmMemory };
    }
    return loaded;
  };
}

/** 16-byte aligned blocks from offset 0 of a kernel's memory. */
export class WasmLayout {
  private end = 0;

  /** Reserves `bytes` and returns the block's offset. */
  block(bytes: number): number {
    const at = this.end;
    this.end = (this.end + bytes + 15) & ~15;
    return at;
  }

  /** Grows `memory` to hold every block; returns its buffer (valid until the next growth). */
  commit(memory: WasmMemory): ArrayBuffer {
    if (this.end > memory.buffer.byteLength) memory.grow(Math.ceil((this.end - memory.buffer.byteLength) / 65536));
    return memory.buffer;
  }
}
