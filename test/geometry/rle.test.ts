import { describe, expect, it } from 'vitest';
import {
  rleArea,
  rleDecode,
  rleEncode,
  rleIntersect,
  rleIou,
  rleMerge,
  rleToBbox,
  runsToString,
  stringToRuns,
} from '../../src/geometry/index.js';
import { GsrError } from '../../src/util/errors.js';

/** Row-major mask from rows of '0'/'1'. */
function maskOf(rows: string[]): { mask: Uint8Array; h: number; w: number } {
  const h = rows.length;
  const w = rows[0]?.length ?? 0;
  const mask = new Uint8Array(h * w);
  rows.forEach((r, y) => [...r].forEach((c, x) => (mask[y * w + x] = c === '1' ? 1 : 0)));
  return { mask, h, w };
}

/**
 * Independent transcription of pycocotools maskApi.c (rleEncode + rleToString), kept close to the C:
 * explicit column-major flatten, then 32-bit arithmetic shifts as the C code does on `long`.
 */
function referenceCocoString(mask: Uint8Array, h: number, w: number): string {
  const fortran = new Uint8Array(h * w);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) fortran[x * h + y] = mask[y * w + x];
  const cnts: number[] = [];
  let p = 0;
  let c = 0;
  for (let j = 0; j < h * w; j++) {
    if (fortran[j] !== p) {
      cnts.push(c);
      c = 0;
      p = fortran[j];
    }
    c++;
  }
  cnts.push(c);
  let s = '';
  for (let i = 0; i < cnts.length; i++) {
    let x = cnts[i];
    if (i > 2) x -= cnts[i - 2];
    let more = 1;
    while (more) {
      let ch = x & 0x1f;
      x >>= 5;
      more = ch & 0x10 ? (x !== -1 ? 1 : 0) : x !== 0 ? 1 : 0;
      if (more) ch |= 0x20;
      s += String.fromCharCode(ch + 48);
    }
  }
  return s;
}

/** Transcription of pycocotools rleToBbox, for canonical runs. */
function referenceBbox(cnts: number[], h: number, w: number): number[] {
  const m = cnts.length - (cnts.length % 2);
  if (m === 0) return [0, 0, 0, 0];
  let [xs, ys, xe, ye, xp, cc] = [w, h, 0, 0, 0, 0];
  for (let j = 0; j < m; j++) {
    cc += cnts[j];
    const t = cc - (j % 2);
    const y = t % h;
    const x = (t - y) / h;
    if (j % 2 === 0) xp = x;
    else if (xp < x) {
      ys = 0;
      ye = h - 1;
    }
    xs = Math.min(xs, x);
    xe = Math.max(xe, x);
    ys = Math.min(ys, y);
    ye = Math.max(ye, y);
  }
  return [xs, ys, xe - xs + 1, ye - ys + 1];
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('rleEncode: known pycocotools strings', () => {
  // Each expectation is derived by hand from maskApi.c; the derivation is in the comment.
  it('4x4 with the centre 2x2 on is "52203"', () => {
    // Column-major runs 5,2,2,2,5; index 3 stores 2-2=0, index 4 stores 5-2=3.
    const { mask, h, w } = maskOf(['0000', '0110', '0110', '0000']);
    expect(rleEncode(mask, h, w)).toEqual({ size: [4, 4], counts: '52203' });
  });
  it('empty 4x4 is "`0"', () => {
    // One run of 16 = 0b10000: the low group has the sign bit, so a second (zero) group follows.
    expect(rleEncode(new Uint8Array(16), 4, 4).counts).toBe('`0');
  });
  it('full 4x4 is "0`0"', () => {
    expect(rleEncode(new Uint8Array(16).fill(1), 4, 4).counts).toBe('0`0');
  });
  it('1x1 masks', () => {
    expect(rleEncode(Uint8Array.of(1), 1, 1).counts).toBe('01');
    expect(rleEncode(Uint8Array.of(0), 1, 1).counts).toBe('1');
  });
  it('2x2 [[0,1],[1,1]] is "13" with bbox [0,0,2,2]', () => {
    const { mask, h, w } = maskOf(['01', '11']);
    const rle = rleEncode(mask, h, w);
    expect(rle.counts).toBe('13');
    expect(rleToBbox(rle)).toEqual([0, 0, 2, 2]);
  });
  it('one-pixel-wide stripes', () => {
    // Vertical stripe: runs 3,3,3 (no deltas needed).
    expect(rleEncode(maskOf(['010', '010', '010']).mask, 3, 3).counts).toBe('333');
    // Horizontal stripe: runs 1,1,2,1,2,1,1 -> 1,1,2,0,0,0,-1; -1 is the single group 31 -> 'O'.
    expect(rleEncode(maskOf(['000', '111', '000']).mask, 3, 3).counts).toBe('112000O');
  });
  it('a run of 100 takes two groups: "T3"', () => {
    // 100 = 3*32 + 4: group 4 with the continue bit (4|32)+48 = 'T', then 3 -> '3'.
    expect(rleEncode(new Uint8Array(100), 10, 10).counts).toBe('T3');
  });
  it('treats any non-zero value as set', () => {
    const { mask } = maskOf(['0000', '0110', '0110', '0000']);
    expect(rleEncode(mask.map((v) => v * 255), 4, 4).counts).toBe('52203');
  });
});

describe('rleEncode agrees with the C transcription', () => {
  it('random masks of many shapes and densities', () => {
    const rnd = seeded(7);
    for (let t = 0; t < 300; t++) {
      const h = 1 + Math.floor(rnd() * 40);
      const w = 1 + Math.floor(rnd() * 40);
      const density = rnd();
      const mask = new Uint8Array(h * w).map(() => (rnd() < density ? 1 : 0));
      const rle = rleEncode(mask, h, w);
      expect(rle.counts).toBe(referenceCocoString(mask, h, w));
      expect(rleDecode(rle)).toEqual(mask);
      expect(rleArea(rle)).toBe(mask.reduce((a, v) => a + v, 0));
      expect(rleToBbox(rle)).toEqual(referenceBbox(stringToRuns(rle.counts), h, w));
    }
  });
  it('large masks with thousands of runs and long runs', () => {
    const h = 480;
    const w = 640;
    const mask = new Uint8Array(h * w);
    // A big disc (long runs, counts needing 3+ groups) plus speckle (thousands of short runs).
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if ((x - 300) ** 2 + (y - 200) ** 2 < 150 ** 2) mask[y * w + x] = 1;
    const rnd = seeded(11);
    for (let i = 0; i < 5000; i++) mask[Math.floor(rnd() * h * w)] ^= 1;
    const rle = rleEncode(mask, h, w);
    expect(stringToRuns(rle.counts).length).toBeGreaterThan(5000);
    expect(rle.counts).toBe(referenceCocoString(mask, h, w));
    expect(Buffer.from(rleDecode(rle)).equals(Buffer.from(mask))).toBe(true);
  });
  it('same strings for every input layout: aligned and unaligned bytes, odd widths, other arrays', () => {
    const rnd = seeded(13);
    for (let t = 0; t < 200; t++) {
      const h = 1 + Math.floor(rnd() * 12);
      const w = 1 + Math.floor(rnd() * 12) * (t % 2 === 0 ? 4 : 1);
      const density = rnd();
      // Values 1, 2 and 255: words that differ as bytes while every pixel is set.
      const values = new Uint8Array(h * w).map(() => (rnd() < density ? [1, 2, 255][Math.floor(rnd() * 3)] : 0));
      const binary = values.map((v) => (v !== 0 ? 1 : 0));
      const expected = referenceCocoString(binary, h, w);
      const offset = new Uint8Array(h * w + 1);
      offset.set(values, 1);
      const layouts: ArrayLike<number>[] = [values, offset.subarray(1), Uint8ClampedArray.from(values), Float32Array.from(values), Array.from(values)];
      for (const mask of layouts) expect(rleEncode(mask, h, w).counts).toBe(expected);
    }
  });
  it('round-trips counts needing many groups, negative deltas included', () => {
    const runs = [0, 1_000_000, 3, 70_000, 2, 123_456_789];
    expect(stringToRuns(runsToString(runs))).toEqual(runs);
  });
});

describe('strings are parsed into one reused buffer', () => {
  it('results stay apart, and a string longer than the buffer decodes as well', () => {
    // Noise at density 1/2: about one run per two pixels, so well over 65,536 chars.
    const rnd = seeded(17);
    const [h, w] = [400, 400];
    const noise = new Uint8Array(h * w).map(() => (rnd() < 0.5 ? 1 : 0));
    const long = rleEncode(noise, h, w);
    expect(long.counts.length).toBeGreaterThan(65536);
    const { mask: small } = maskOf(['0110', '1001']);
    const short = rleEncode(small, 2, 4);
    const shortRuns = stringToRuns(short.counts);
    expect(stringToRuns(rleEncode(new Uint8Array(8).fill(1), 2, 4).counts)).toEqual([0, 8]);
    expect(shortRuns).toEqual([1, 2, 1, 1, 2, 1]);
    const longRuns = stringToRuns(long.counts);
    expect(runsToString(longRuns)).toBe(long.counts);
    expect(rleDecode(long)).toEqual(noise);
    expect(rleDecode(short)).toEqual(small);
    expect(rleArea(long)).toBe(noise.reduce((a, v) => a + v, 0));
    expect(rleDecode(rleMerge([short, short]))).toEqual(small);
  });
});

describe('rleToBbox', () => {
  it('box of a blob, xywh', () => {
    const { mask, h, w } = maskOf(['00000', '00110', '00100', '00000']);
    expect(rleToBbox(rleEncode(mask, h, w))).toEqual([2, 1, 2, 2]);
  });
  it('a run wrapping columns covers all rows (pycocotools rule)', () => {
    // Column 0 rows 2..3 and column 1 rows 0..1 form one run: bbox spans rows 0..3.
    const { mask, h, w } = maskOf(['01', '01', '10', '10']);
    expect(rleToBbox(rleEncode(mask, h, w))).toEqual([0, 0, 2, 4]);
  });
  it('an empty run of ones in hand-made RLE is not a pixel', () => {
    // Runs: 2 zeros, 0 ones, 3 zeros, 2 ones (column-major indices 5, 6 of a 4x4: column 1, rows 1-2).
    expect(rleToBbox({ size: [4, 4], counts: [2, 0, 3, 2, 9] })).toEqual([1, 1, 1, 2]);
  });
  it('empty mask gives zeros', () => {
    expect(rleToBbox(rleEncode(new Uint8Array(12), 3, 4))).toEqual([0, 0, 0, 0]);
    expect(rleToBbox({ size: [3, 4], counts: [5, 0, 7] })).toEqual([0, 0, 0, 0]);
  });
  it('matches a brute-force box on random masks', () => {
    const rnd = seeded(3);
    for (let t = 0; t < 200; t++) {
      const h = 1 + Math.floor(rnd() * 20);
      const w = 1 + Math.floor(rnd() * 20);
      const cx = rnd() * w;
      const cy = rnd() * h;
      const r = rnd() * 6;
      const mask = new Uint8Array(h * w);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) mask[y * w + x] = 1;
      let [x0, y0, x1, y1] = [w, h, -1, -1];
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++)
          if (mask[y * w + x]) [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
      const expected = x1 < 0 ? [0, 0, 0, 0] : [x0, y0, x1 - x0 + 1, y1 - y0 + 1];
      // Convex blobs never wrap columns in a way that widens the pycocotools box.
      expect(rleToBbox(rleEncode(mask, h, w))).toEqual(expected);
    }
  });
});

describe('merge, intersect, IoU', () => {
  it('agree with pixel-wise OR / AND on random masks', () => {
    const rnd = seeded(5);
    for (let t = 0; t < 100; t++) {
      const h = 1 + Math.floor(rnd() * 15);
      const w = 1 + Math.floor(rnd() * 15);
      const a = new Uint8Array(h * w).map(() => (rnd() < 0.4 ? 1 : 0));
      const b = new Uint8Array(h * w).map(() => (rnd() < 0.6 ? 1 : 0));
      const or = a.map((v, i) => v | b[i]);
      const and = a.map((v, i) => v & b[i]);
      const ra = rleEncode(a, h, w);
      const rb = rleEncode(b, h, w);
      expect(rleMerge([ra, rb]).counts).toBe(rleEncode(or, h, w).counts);
      expect(rleIntersect([ra, rb]).counts).toBe(rleEncode(and, h, w).counts);
      const union = or.reduce((s, v) => s + v, 0);
      const inter = and.reduce((s, v) => s + v, 0);
      expect(rleIou(ra, rb)).toBeCloseTo(union ? inter / union : 0, 12);
    }
  });
  it('merges three masks', () => {
    const a = maskOf(['100', '000']);
    const b = maskOf(['010', '000']);
    const c = maskOf(['000', '001']);
    const merged = rleMerge([a, b, c].map((m) => rleEncode(m.mask, 2, 3)));
    expect(rleDecode(merged)).toEqual(maskOf(['110', '001']).mask);
  });
  it('IoU of two empty masks is 0, not NaN', () => {
    const e = rleEncode(new Uint8Array(9), 3, 3);
    expect(rleIou(e, e)).toBe(0);
  });
});

describe('bad input is a GsrError', () => {
  it('wrong mask length, bad size, bad strings, size mismatch', () => {
    expect(() => rleEncode(new Uint8Array(5), 2, 3)).toThrow(GsrError);
    expect(() => rleEncode(new Uint8Array(0), -1, 0)).toThrow(GsrError);
    expect(() => rleDecode({ size: [4, 4], counts: '52' })).toThrow(/runs sum to 7/);
    expect(() => rleDecode({ size: [4, 4], counts: '5\u00ff' })).toThrow(/bad char/);
    expect(() => rleDecode({ size: [4, 4], counts: 'T' })).toThrow(/truncated/);
    expect(() => rleIou(rleEncode(new Uint8Array(4), 2, 2), rleEncode(new Uint8Array(6), 2, 3))).toThrow(/sizes differ/);
    expect(() => rleMerge([])).toThrow(GsrError);
  });
  it('decodes uncompressed RLE counts too', () => {
    expect(rleDecode({ size: [4, 4], counts: [5, 2, 2, 2, 5] })).toEqual(maskOf(['0000', '0110', '0110', '0000']).mask);
  });
});
