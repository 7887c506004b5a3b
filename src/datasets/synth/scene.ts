/**
 * Samples one synthetic scene (pure): style, relation, camera, lighting, background and the placed
 * objects. Three styles mirror What'sUp: `furniture` (Subset A: an object on / under / left of /
 * right of furniture), `tabletop` (Subset B: an object in front of / behind / left of / right of
 * another on a table) and `one-object` (an object on the left / right / top / bottom of the image).
 */
import { captionFor } from '../caption.js';
import type { Relation } from '../../formats/manifest.js';
import { floorPointAt, makeCamera, type Camera, type Vec3 } from './camera.js';
import { FURNITURE, OBJECT_KINDS, TABLETOP_OBJECT_KINDS, hsv, randomColour, type ObjectKind } from './kinds.js';
import type { Part } from './primitives.js';
import type { Rng } from '../../util/random.js';

export type Style = 'furniture' | 'tabletop' | 'one-object';
export const STYLES: readonly Style[] = ['furniture', 'tabletop', 'one-object'];

/** Relations of each style, in the order their captions are listed (correct one moved first). */
export const STYLE_RELATIONS: Record<Style, readonly Relation[]> = {
  furniture: ['on', 'under', 'left', 'right'],
  tabletop: ['front', 'behind', 'left', 'right'],
  'one-object': ['left', 'right', 'top', 'bottom'],
};

const OPPOSITE: Partial<Record<Relation, Relation>> = { left: 'right', right: 'left', top: 'bottom', bottom: 'top' };

export interface Light {
  /** Unit vector towards the light. */
  dir: Vec3;
  ambient: number;
  diffuse: number;
  tint: Vec3;
}

export interface Surface {
  pattern: 'plain' | 'checker' | 'planks';
  a: Vec3;
  b: Vec3;
  /** Tile or plank width, metres. */
  tile: number;
}

export interface Wall {
  z: number;
  albedo: Vec3;
  /** Baseboard height (0 for none) and colour. */
  baseboard: number;
  baseboardAlbedo: Vec3;
}

/** A soft elliptic shadow on the floor plane. */
export interface Shadow {
  x: number;
  z: number;
  rx: number;
  rz: number;
  strength: number;
}

export interface Scene {
  style: Style;
  relation: Relation;
  camera: Camera;
  light: Light;
  floor: Surface;
  wall: Wall;
  parts: Part[];
  shadows: Shadow[];
  subject: string;
  object: string | null;
  /** Kind of each unnamed clutter object by its entity label (3+); it changes no draw or pixel. */
  clutter: Array<{ entity: number; kind: string }>;
  options: string[];
  answer: number;
}

const deg = (d: number) => (d * Math.PI) / 180;

function normalise(v: Vec3): Vec3 {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
}

function sampleLight(rng: Rng): Light {
  const warmth = rng.uniform(-0.12, 0.12);
  const exposure = rng.uniform(0.85, 1.15);
  return {
    dir: normalise([rng.uniform(-0.7, 0.7), rng.uniform(0.6, 1.2), rng.uniform(-0.7, 0.3)]),
    ambient: rng.uniform(0.3, 0.5) * exposure,
    diffuse: rng.uniform(0.45, 0.75) * exposure,
    tint: [1 + warmth, 1, 1 - warmth],
  };
}

function sampleSurface(rng: Rng, kind: 'room' | 'table'): Surface {
  const pattern = rng.pick(['plain', 'checker', 'planks'] as const);
  if (pattern === 'planks') {
    const a = hsv(rng.uniform(0.05, 0.11), rng.uniform(0.35, 0.7), rng.uniform(0.35, 0.8));
    return { pattern, a, b: a, tile: rng.uniform(0.08, 0.2) };
  }
  const a = hsv(rng.next(), rng.uniform(0, 0.5), rng.uniform(0.35, 0.9));
  const b = pattern === 'checker' ? hsv(rng.next(), rng.uniform(0, 0.4), rng.uniform(0.2, 0.95)) : a;
  return { pattern, a, b, tile: kind === 'room' ? rng.uniform(0.25, 0.6) : rng.uniform(0.04, 0.12) };
}

function sampleWall(rng: Rng, z: number, baseboard: boolean): Wall {
  return {
    z,
    albedo: hsv(rng.next(), rng.uniform(0.03, 0.35), rng.uniform(0.55, 0.95)),
    baseboard: baseboard ? rng.uniform(0.05, 0.12) : 0,
    baseboardAlbedo: rng.chance(0.5) ? hsv(0.1, 0.05, 0.92) : hsv(rng.uniform(0.05, 0.1), 0.5, 0.35),
  };
}

function colourOf(kind: ObjectKind, rng: Rng): Vec3 {
  return kind.albedo ? kind.albedo(rng) : randomColour(rng);
}

function captions(style: Style, subject: string, object: string | null, relation: Relation): string[] {
  if (object === null) return [relation, OPPOSITE[relation]!].map((r) => captionFor(subject, null, r));
  const order = [relation, ...STYLE_RELATIONS[style].filter((r) => r !== relation)];
  return order.map((r) => captionFor(subject, object, r));
}

function floorShadow(x: number, z: number, r: number, h: number, light: Light, strength: number): Shadow {
  const k = (0.35 * h) / light.dir[1];
  return { x: x - light.dir[0] * k, z: z - light.dir[2] * k, rx: r * 1.35, rz: r * 1.35, strength };
}

interface Footprint {
  x: number;
  z: number;
  r: number;
}

/** Adds 0-2 unnamed objects of other kinds where they touch nothing, as clutter. */
function addDistractors(rng: Rng, cam: Camera, taken: Footprint[], avoid: string[], scale: [number, number], light: Light, parts: Part[], shadows: Shadow[]): Scene['clutter'] {
  const clutter: Scene['clutter'] = [];
  const n = rng.int(0, 2);
  const kinds = OBJECT_KINDS.filter((k) => !avoid.includes(k.name));
  for (let i = 0; i < n; i++) {
    const kind = rng.pick(kinds);
    const s = rng.uniform(scale[0], scale[1]);
    for (let attempt = 0; attempt < 8; attempt++) {
      const p = floorPointAt(cam, rng.uniform(0.05, 0.95) * cam.width, rng.uniform(0.45, 0.95) * cam.height);
      if (p === null) continue;
      const r = kind.radius * s * 1.3;
      if (taken.some((f) => Math.hypot(f.x - p[0], f.z - p[2]) < f.r + r + 0.05)) continue;
      taken.push({ x: p[0], z: p[2], r });
      parts.push(...kind.build(p[0], 0, p[2], s, colourOf(kind, rng), 3 + i, rng));
      shadows.push(floorShadow(p[0], p[2], kind.radius * s, kind.height * s, light, 0.35));
      clutter.push({ entity: 3 + i, kind: kind.name });
      break;
    }
  }
  return clutter;
}

function furnitureScene(rng: Rng, width: number, height: number, relation: Relation): Scene {
  const camera = makeCamera(width, height, rng.uniform(0.8, 1.5), deg(rng.uniform(12, 28)));
  const light = sampleLight(rng);
  const fx = rng.uniform(-0.2, 0.2);
  const fz = rng.uniform(1.8, 2.5);
  const furnitureType = rng.pick(FURNITURE);
  const furniture = furnitureType.build(fx, fz, rng, 2);
  const kinds = OBJECT_KINDS.filter((k) => k.name !== 'plate');
  const kind = rng.pick(kinds);
  let s = rng.uniform(1.4, 2.2);
  const [x0, x1, z0, z1] = furniture.footprint;
  let x: number;
  let base = 0;
  let z: number;
  if (relation === 'on') {
    const [tx0, tx1, tz0, tz1] = furniture.top;
    s = Math.min(s, ((tx1 - tx0) / 2 - 0.01) / (kind.radius * 1.6), ((tz1 - tz0) / 2 - 0.01) / (kind.radius * 1.6));
    const r = kind.radius * s * 1.6;
    x = rng.uniform(tx0 + r, tx1 - r);
    z = rng.uniform(tz0 + r, Math.max(tz0 + r, tz1 - r));
    base = furniture.topY;
  } else if (relation === 'under') {
    const [ux0, ux1, uz0, uz1] = furniture.under;
    s = Math.min(s, (furniture.underClearance * 0.85) / kind.height, ((ux1 - ux0) / 2) / (kind.radius * 1.6), ((uz1 - uz0) / 2) / (kind.radius * 1.6));
    const r = kind.radius * s * 1.6;
    x = rng.uniform(ux0 + r, Math.max(ux0 + r, ux1 - r));
    z = rng.uniform(uz0 + r, Math.max(uz0 + r, uz1 - r));
  } else {
    const r = kind.radius * s * 1.6;
    const gap = rng.uniform(0.08, 0.35);
    x = relation === 'left' ? x0 - gap - r : x1 + gap + r;
    z = rng.uniform(z0 + r * 0.5, z1 - r * 0.5);
  }
  const parts: Part[] = [...kind.build(x, base, z, s, colourOf(kind, rng), 1, rng), ...furniture.parts];
  const shadows: Shadow[] = [{ x: (x0 + x1) / 2, z: (z0 + z1) / 2, rx: ((x1 - x0) / 2) * 1.05, rz: ((z1 - z0) / 2) * 1.1, strength: 0.3 }];
  if (base === 0) shadows.push(floorShadow(x, z, kind.radius * s, kind.height * s, light, 0.4));
  const taken: Footprint[] = [
    { x: (x0 + x1) / 2, z: (z0 + z1) / 2, r: Math.hypot(x1 - x0, z1 - z0) / 2 },
    { x, z, r: kind.radius * s * 1.6 },
  ];
  const clutter = addDistractors(rng, camera, taken, [kind.name], [1.2, 2], light, parts, shadows);
  const wall = sampleWall(rng, z1 + rng.uniform(0.3, 1.6), true);
  const options = captions('furniture', kind.name, furniture.name, relation);
  return { style: 'furniture', relation, camera, light, floor: sampleSurface(rng, 'room'), wall, parts, shadows, subject: kind.name, object: furniture.name, clutter, options, answer: 0 };
}

function tabletopScene(rng: Rng, width: number, height: number, relation: Relation): Scene {
  const camera = makeCamera(width, height, rng.uniform(0.3, 0.6), deg(rng.uniform(25, 45)));
  const light = sampleLight(rng);
  const subjectKind = rng.pick(OBJECT_KINDS.filter((k) => k.name !== 'plate' && k.name !== 'book'));
  const objectKind = rng.pick(TABLETOP_OBJECT_KINDS.filter((k) => k.name !== subjectKind.name));
  const ss = rng.uniform(0.9, 1.3);
  const os = rng.uniform(0.9, 1.3);
  const rs = subjectKind.radius * ss * 1.5;
  const ro = objectKind.radius * os * 1.5;
  const cz = camera.heightM / Math.tan(camera.pitch) + rng.uniform(-0.05, 0.05);
  const cx = rng.uniform(-0.05, 0.05);
  const gap = rng.uniform(0.03, 0.12);
  let sub: [number, number];
  let obj: [number, number];
  if (relation === 'left' || relation === 'right') {
    const sign = relation === 'left' ? -1 : 1;
    const dz = rng.uniform(-0.03, 0.03);
    sub = [cx + sign * (rs + gap / 2), cz + dz];
    obj = [cx - sign * (ro + gap / 2), cz - dz];
  } else {
    const sign = relation === 'front' ? -1 : 1;
    const dx = rng.uniform(-0.3, 0.3) * Math.min(rs, ro);
    sub = [cx + dx, cz + sign * (rs + gap / 2)];
    obj = [cx - dx, cz - sign * (ro + gap / 2)];
  }
  const parts: Part[] = [
    ...subjectKind.build(sub[0], 0, sub[1], ss, colourOf(subjectKind, rng), 1, rng),
    ...objectKind.build(obj[0], 0, obj[1], os, colourOf(objectKind, rng), 2, rng),
  ];
  const shadows = [
    floorShadow(sub[0], sub[1], subjectKind.radius * ss, subjectKind.height * ss, light, 0.4),
    floorShadow(obj[0], obj[1], objectKind.radius * os, objectKind.height * os, light, 0.4),
  ];
  const taken: Footprint[] = [
    { x: sub[0], z: sub[1], r: rs },
    { x: obj[0], z: obj[1], r: ro },
  ];
  const clutter = addDistractors(rng, camera, taken, [subjectKind.name, objectKind.name], [0.9, 1.2], light, parts, shadows);
  const wall = sampleWall(rng, cz + rng.uniform(0.4, 0.9), false);
  const options = captions('tabletop', subjectKind.name, objectKind.name, relation);
  return { style: 'tabletop', relation, camera, light, floor: sampleSurface(rng, 'table'), wall, parts, shadows, subject: subjectKind.name, object: objectKind.name, clutter, options, answer: 0 };
}

// Where the object's resting point is aimed, as fractions of the image: [x0, x1, y0, y1].
const ONE_OBJECT_TARGETS: Record<string, [number, number, number, number]> = {
  left: [0.12, 0.3, 0.45, 0.7],
  right: [0.7, 0.88, 0.45, 0.7],
  top: [0.35, 0.65, 0.2, 0.32],
  bottom: [0.35, 0.65, 0.72, 0.88],
};

function oneObjectScene(rng: Rng, width: number, height: number, relation: Relation): Scene {
  const camera = makeCamera(width, height, rng.uniform(0.7, 1.3), deg(rng.uniform(50, 75)));
  const light = sampleLight(rng);
  const kind = rng.pick(OBJECT_KINDS);
  const s = rng.uniform(1.2, 1.9);
  const [tx0, tx1, ty0, ty1] = ONE_OBJECT_TARGETS[relation];
  const p = floorPointAt(camera, rng.uniform(tx0, tx1) * width, rng.uniform(ty0, ty1) * height)!;
  const parts = kind.build(p[0], 0, p[2], s, colourOf(kind, rng), 1, rng);
  const shadows = [floorShadow(p[0], p[2], kind.radius * s, kind.height * s, light, 0.4)];
  const wall = sampleWall(rng, 50, false);
  const options = captions('one-object', kind.name, null, relation);
  return { style: 'one-object', relation, camera, light, floor: sampleSurface(rng, rng.chance(0.5) ? 'room' : 'table'), wall, parts, shadows, subject: kind.name, object: null, clutter: [], options, answer: 0 };
}

/** Samples a scene of the given style and relation, drawing everything from `rng`. */
export function sampleScene(rng: Rng, style: Style, relation: Relation, width: number, height: number): Scene {
  switch (style) {
    case 'furniture':
      return furnitureScene(rng, width, height, relation);
    case 'tabletop':
      return tabletopScene(rng, width, height, relation);
    case 'one-object':
      return oneObjectScene(rng, width, height, relation);
  }
}
