/**
 * Seeded randomness, one generator for the whole project: sfc32 seeded through splitmix32. The same
 * seeds give the same stream on every platform, which makes synthetic scenes, bootstrap intervals and
 * Monte-Carlo studies reproducible bit for bit. For draws that must not depend on the order they are
 * made in (answers of the random baseline), {@link keyedUniform} hashes the seed with a key instead.
 */
import { createHash } from 'node:crypto';

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** The sfc32 stream of `seeds` as 32-bit unsigned integers. */
function sfc32(seeds: readonly number[]): () => number {
  let mix = 0x6a09e667;
  for (const s of seeds) mix = splitmix32((mix ^ (s >>> 0)) >>> 0)();
  const init = splitmix32(mix);
  // The state as int32 in a typed array: the same bits as unsigned arithmetic mod 2^32, but never
  // boxed. Closure variables holding values of 2^30 and more were heap numbers, allocated on every
  // draw (about 4x slower; object fields were slower still).
  const state = Int32Array.of(init(), init(), init(), init());
  const next = () => {
    const a = state[0];
    const b = state[1];
    const c = state[2];
    const d = state[3];
    const t = (a + b + d) | 0;
    state[0] = b ^ (b >>> 9);
    state[1] = (c + (c << 3)) | 0;
    state[2] = (((c << 21) | (c >>> 11)) + t) | 0;
    state[3] = (d + 1) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/**
 * The 32-bit integers behind {@link seededRandom} with the same seeds: draw `u` there is `u / 2^32`
 * here, for hot loops that skip the division's wrapper.
 */
export function seededUint32(...seeds: number[]): () => number {
  return sfc32(seeds);
}

/** Uniform numbers in [0, 1) from `seeds`; each list of seeds gives its own independent stream. */
export function seededRandom(...seeds: number[]): () => number {
  const next = sfc32(seeds);
  return () => next() / 4294967296;
}

/** The seeded generator with the draws scene synthesis needs. */
export class Rng {
  private readonly u32: () => number;

  constructor(...seeds: number[]) {
    this.u32 = sfc32(seeds);
  }

  nextUint32(): number {
    return this.u32();
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A uniform number in [0, 1) that depends only on the seed and the key parts (not on call order). */
export function keyedUniform(seed: number, ...parts: string[]): number {
  return createHash('sha256').update([String(seed), ...parts].join('\0')).digest().readUInt32BE(0) / 2 ** 32;
}

/** A fast integer hash of a pixel index, for per-pixel sensor noise without a generator call per pixel. */
export function hash32(x: number, seed: number): number {
  let h = Math.imul((x ^ seed) >>> 0, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca77);
  h ^= h >>> 13;
  return h >>> 0;
}
