/**
 * What synthetic scenes are built from: small objects (the captions' subjects, and the objects of
 * tabletop scenes) and furniture (the objects of furniture scenes), each a few solids.
 * Sizes are metres at scale 1; objects stand on the plane y = `base`.
 */
import type { Vec3 } from './camera.js';
import type { Part, Solid } from './primitives.js';
import type { Rng } from '../../util/random.js';

export interface Placed {
  parts: Part[];
  /** Radius of the footprint circle, for spacing objects apart. */
  radius: number;
  height: number;
}

export interface ObjectKind {
  name: string;
  /** Footprint radius and height at scale 1 (before any handle). */
  radius: number;
  height: number;
  build(x: number, base: number, z: number, scale: number, albedo: Vec3, entity: number, rng: Rng): Part[];
  /** Fixed colour family, when the kind has one. */
  albedo?: (rng: Rng) => Vec3;
}

const cyl = (x: number, z: number, r: number, y0: number, y1: number): Solid => ({ kind: 'cylinder', center: [x, 0, z], radius: r, y0, y1 });
const box = (x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): Solid => ({ kind: 'box', min: [x0, y0, z0], max: [x1, y1, z1] });
const part = (solid: Solid, albedo: Vec3, entity: number): Part => ({ solid, albedo, entity });
const shade = (c: Vec3, k: number): Vec3 => [c[0] * k, c[1] * k, c[2] * k];

/** A colour from hue, saturation and value (all 0..1), as linear RGB. */
export function hsv(h: number, s: number, v: number): Vec3 {
  const f = (n: number) => {
    const k = (n + h * 6) % 6;
    return v - v * s * Math.max(0, Math.min(k, 4 - k, 1));
  };
  const srgb: Vec3 = [f(5), f(3), f(1)];
  return srgb.map((c) => c ** 2.2) as Vec3;
}

export const randomColour = (rng: Rng): Vec3 => hsv(rng.next(), rng.uniform(0.45, 0.95), rng.uniform(0.45, 0.95));
const whiteish = (rng: Rng): Vec3 => hsv(rng.uniform(0.05, 0.6), rng.uniform(0, 0.12), rng.uniform(0.85, 0.97));
const woodColour = (rng: Rng): Vec3 => hsv(rng.uniform(0.05, 0.1), rng.uniform(0.45, 0.75), rng.uniform(0.3, 0.75));

export const OBJECT_KINDS: readonly ObjectKind[] = [
  {
    name: 'mug',
    radius: 0.045,
    height: 0.1,
    build(x, b, z, s, c, e, rng) {
      const r = 0.045 * s;
      const side = rng.chance(0.5) ? 1 : -1;
      const hx0 = side > 0 ? x + r * 0.9 : x - r * 0.9 - 0.028 * s;
      return [
        part(cyl(x, z, r, b, b + 0.1 * s), c, e),
        part(box(hx0, b + 0.022 * s, z - 0.008 * s, hx0 + 0.028 * s, b + 0.078 * s, z + 0.008 * s), c, e),
      ];
    },
  },
  { name: 'ball', radius: 0.065, height: 0.13, build: (x, b, z, s, c, e) => [part({ kind: 'sphere', center: [x, b + 0.065 * s, z], radius: 0.065 * s }, c, e)] },
  { name: 'box', radius: 0.08, height: 0.1, build: (x, b, z, s, c, e) => [part(box(x - 0.075 * s, b, z - 0.06 * s, x + 0.075 * s, b + 0.1 * s, z + 0.06 * s), c, e)] },
  { name: 'can', radius: 0.033, height: 0.12, build: (x, b, z, s, c, e) => [part(cyl(x, z, 0.033 * s, b, b + 0.12 * s), c, e)] },
  {
    name: 'bottle',
    radius: 0.036,
    height: 0.25,
    build(x, b, z, s, c, e) {
      return [
        part(cyl(x, z, 0.036 * s, b, b + 0.17 * s), c, e),
        part(cyl(x, z, 0.014 * s, b + 0.17 * s, b + 0.235 * s), c, e),
        part(cyl(x, z, 0.016 * s, b + 0.235 * s, b + 0.25 * s), shade(c, 0.4), e),
      ];
    },
  },
  { name: 'bowl', radius: 0.08, height: 0.06, build: (x, b, z, s, c, e) => [part(cyl(x, z, 0.08 * s, b, b + 0.06 * s), c, e)] },
  { name: 'plate', radius: 0.11, height: 0.02, albedo: whiteish, build: (x, b, z, s, c, e) => [part(cyl(x, z, 0.11 * s, b, b + 0.02 * s), c, e)] },
  { name: 'book', radius: 0.12, height: 0.035, build: (x, b, z, s, c, e) => [part(box(x - 0.08 * s, b, z - 0.11 * s, x + 0.08 * s, b + 0.035 * s, z + 0.11 * s), c, e)] },
  {
    name: 'vase',
    radius: 0.07,
    height: 0.24,
    build(x, b, z, s, c, e) {
      return [
        part({ kind: 'sphere', center: [x, b + 0.07 * s, z], radius: 0.07 * s }, c, e),
        part(cyl(x, z, 0.03 * s, b + 0.1 * s, b + 0.24 * s), c, e),
      ];
    },
  },
  {
    name: 'candle',
    radius: 0.03,
    height: 0.14,
    albedo: whiteish,
    build(x, b, z, s, c, e) {
      return [part(cyl(x, z, 0.03 * s, b, b + 0.13 * s), c, e), part(cyl(x, z, 0.004 * s, b + 0.13 * s, b + 0.145 * s), [0.02, 0.02, 0.02], e)];
    },
  },
  { name: 'block', radius: 0.045, height: 0.08, build: (x, b, z, s, c, e) => [part(box(x - 0.04 * s, b, z - 0.04 * s, x + 0.04 * s, b + 0.08 * s, z + 0.04 * s), c, e)] },
];

/** Kinds that make sense on a tabletop as the second object of Subset-B scenes. */
export const TABLETOP_OBJECT_KINDS = OBJECT_KINDS.filter((k) => ['plate', 'bowl', 'box', 'book', 'mug', 'can', 'bottle', 'vase'].includes(k.name));

export function objectKind(name: string): ObjectKind {
  const k = OBJECT_KINDS.find((o) => o.name === name);
  if (!k) throw new Error(`unknown synthetic object kind ${name}`);
  return k;
}

/** A piece of furniture: its parts, the surface objects can sit on, and the free space under it. */
export interface Furniture {
  name: string;
  parts: Part[];
  /** Top surface height and its rectangle (x0, x1, z0, z1) where objects may stand. */
  topY: number;
  top: [number, number, number, number];
  /** Free space under the top, between the legs: rectangle and clear height. */
  under: [number, number, number, number];
  underClearance: number;
  /** Whole footprint rectangle, for keeping other objects clear. */
  footprint: [number, number, number, number];
}

function legsAt(x0: number, x1: number, z0: number, z1: number, leg: number, h: number, c: Vec3, e: number): Part[] {
  return [
    [x0, z0],
    [x1 - leg, z0],
    [x0, z1 - leg],
    [x1 - leg, z1 - leg],
  ].map(([lx, lz]) => part(box(lx, 0, lz, lx + leg, h, lz + leg), c, e));
}

/** Builds furniture centred at (x, z) on the floor. */
export type FurnitureBuilder = (x: number, z: number, rng: Rng, entity: number) => Furniture;

function tableLike(name: string, w: [number, number], d: [number, number], h: [number, number], thick: number, leg: number): FurnitureBuilder {
  return (x, z, rng, e) => {
    const hw = rng.uniform(w[0], w[1]) / 2;
    const hd = rng.uniform(d[0], d[1]) / 2;
    const top = rng.uniform(h[0], h[1]);
    const c = rng.chance(0.7) ? woodColour(rng) : randomColour(rng);
    const legColour = rng.chance(0.5) ? c : shade(c, 0.6);
    const x0 = x - hw;
    const x1 = x + hw;
    const z0 = z - hd;
    const z1 = z + hd;
    const inset = leg * 0.6;
    const parts = [part(box(x0, top - thick, z0, x1, top, z1), c, e), ...legsAt(x0 + inset, x1 - inset, z0 + inset, z1 - inset, leg, top - thick, legColour, e)];
    const m = inset + leg + 0.02;
    return {
      name,
      parts,
      topY: top,
      top: [x0 + 0.03, x1 - 0.03, z0 + 0.03, z1 - 0.03],
      under: [x0 + m, x1 - m, z0 + m, z1 - m],
      underClearance: top - thick - 0.02,
      footprint: [x0, x1, z0, z1],
    };
  };
}

const chair: FurnitureBuilder = (x, z, rng, e) => {
  const seat = tableLike('chair', [0.42, 0.5], [0.42, 0.5], [0.43, 0.48], 0.04, 0.035)(x, z, rng, e);
  const [x0, x1, , z1] = seat.footprint;
  const back = rng.uniform(0.38, 0.5);
  const c = seat.parts[0].albedo;
  seat.parts.push(part(box(x0, seat.topY, z1 - 0.035, x1, seat.topY + back, z1), c, e));
  seat.top = [seat.top[0], seat.top[1], seat.top[2], z1 - 0.06];
  return seat;
};

export const FURNITURE: ReadonlyArray<{ name: string; build: FurnitureBuilder }> = [
  { name: 'table', build: tableLike('table', [0.9, 1.3], [0.55, 0.8], [0.62, 0.78], 0.045, 0.055) },
  { name: 'chair', build: chair },
  { name: 'bench', build: tableLike('bench', [1.0, 1.4], [0.34, 0.42], [0.42, 0.48], 0.05, 0.05) },
  { name: 'desk', build: tableLike('desk', [1.1, 1.5], [0.55, 0.7], [0.7, 0.78], 0.035, 0.045) },
];
