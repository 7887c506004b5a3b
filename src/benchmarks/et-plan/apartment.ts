/**
 * Procedural apartments in VirtualHome's graph format (docs/et-plan.md, "Apartments"). Pure: a seed
 * and an index give one graph, the same bytes every time. Rooms on a grid joined by doors in a tree;
 * furniture against walls, in the middle, beside tables or on other furniture, never overlapping;
 * small things on surfaces and in containers (closed ones hide them), class duplicates in different
 * places; INSIDE, ON, BETWEEN, CLOSE and FACING edges that agree with the boxes.
 */
import type { VhEdge, VhGraph, VhNode, VhProperty, VhState } from '../../formats/vh-graph.js';
import { Rng } from '../../util/random.js';
import { BASE_ROOMS, CLASSES, EXTRA_ROOMS, OBJECTS, ROOM_TYPES, STRUCTURE, type ClassSpec, type Placement } from './classes.js';

export interface ApartmentSettings {
  /** Rooms per apartment, drawn uniformly in [min, max] (at least 4: kitchen, living room, bedroom, bathroom). */
  rooms: readonly [number, number];
}

export const DEFAULT_APARTMENT_SETTINGS: ApartmentSettings = { rooms: [4, 6] };

type V3 = [number, number, number];
interface Box {
  c: V3;
  s: V3;
}

/** Two things are CLOSE when the gap between their boxes is at most this (metres; our choice). */
export const CLOSE_GAP = 0.5;
/** A seat FACES the nearest lookable piece of furniture in its room within this distance. */
export const FACING_RANGE = 5;
const ROOM_HEIGHT = 2.8;
const WALL = 0.1;
/** Room cells are drawn between these sizes (metres). */
const CELL = [4.5, 7] as const;

// Centres in millimetres, sizes in even millimetres: half a size is whole millimetres, so a thing
// set on a surface or a floor (centre = top + size / 2) has exactly the holder's top as its bottom.
const round = (v: number) => Math.round(v * 1000) / 1000;
const even = (v: number) => Math.round(v * 500) / 500;
const box = (c: V3, s: V3): Box => ({ c: [round(c[0]), round(c[1]), round(c[2])], s: [even(s[0]), even(s[1]), even(s[2])] });
const lo = (b: Box, k: number) => b.c[k] - b.s[k] / 2;
const hi = (b: Box, k: number) => b.c[k] + b.s[k] / 2;

/** True when the boxes overlap by more than -margin on every axis. */
function overlaps(a: Box, b: Box, margin = 0): boolean {
  for (let k = 0; k < 3; k++) if (Math.abs(a.c[k] - b.c[k]) >= (a.s[k] + b.s[k]) / 2 + margin) return false;
  return true;
}

/** Euclidean gap between two boxes (0 when they touch or overlap). */
export function boxGap(a: { center: readonly number[]; size: readonly number[] }, b: { center: readonly number[]; size: readonly number[] }): number {
  let sum = 0;
  for (let k = 0; k < 3; k++) {
    const g = Math.abs(a.center[k] - b.center[k]) - (a.size[k] + b.size[k]) / 2;
    if (g > 0) sum += g * g;
  }
  return Math.sqrt(sum);
}

type Kind = 'room' | 'structure' | 'door' | 'furniture' | 'object' | 'character';

interface Thing {
  id: number;
  spec: ClassSpec;
  className: string;
  kind: Kind;
  box: Box;
  room: number;
  parent?: { id: number; rel: 'ON' | 'INSIDE' };
  states: VhState[];
  /** Doors: the two rooms. */
  between?: [number, number];
  /** Depth below furniture (objects only): 1 on/in furniture, 2 on/in another object. */
  depth: number;
}

interface Cell {
  type: string;
  x0: number;
  x1: number;
  z0: number;
  z1: number;
}

class Builder {
  readonly things: Thing[] = [];
  readonly placedClasses = new Set<string>();

  constructor(readonly rng: Rng) {}

  add(spec: ClassSpec, kind: Kind, b: Box, room: number, extra: Partial<Thing> = {}): Thing {
    const t: Thing = { id: this.things.length + 1, spec, className: spec.name, kind, box: b, room, states: spec.states.map((g) => this.rng.pick(g)), depth: 0, ...extra };
    this.things.push(t);
    if (kind === 'object') this.placedClasses.add(spec.name);
    return t;
  }

  /** A size near the class's typical size (±10%), rotated a quarter turn when `turn`. */
  size(spec: ClassSpec, turn: boolean): V3 {
    const j = () => this.rng.uniform(0.9, 1.1);
    const [w, h, d] = spec.size.map((v) => even(v * j()));
    return turn ? [d, h, w] : [w, h, d];
  }
}

/** The grid of room cells and the tree of doors between them. */
function layoutRooms(rng: Rng, settings: ApartmentSettings): { cells: Cell[]; links: [number, number][] } {
  const [min, max] = settings.rooms;
  const n = rng.int(min, max);
  const types: string[] = [...BASE_ROOMS];
  while (types.length < n) types.push(rng.pick(EXTRA_ROOMS));
  // Shuffle which cell each room takes.
  for (let i = types.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [types[i], types[j]] = [types[j], types[i]];
  }
  const cols = Math.ceil(n / 2);
  const rows = n > cols ? 2 : 1;
  const xs = [0];
  for (let c = 0; c < cols; c++) xs.push(even(xs[c] + rng.uniform(CELL[0], CELL[1])));
  const zs = [0];
  for (let r = 0; r < rows; r++) zs.push(even(zs[r] + rng.uniform(CELL[0], CELL[1])));
  const cells: Cell[] = types.map((type, i) => {
    const r = Math.floor(i / cols);
    const c = i % cols;
    return { type, x0: xs[c], x1: xs[c + 1], z0: zs[r], z1: zs[r + 1] };
  });
  // A random spanning tree over grid neighbours (randomised Prim): the rooms form a tree, as in VirtualHome.
  const neighbours = (i: number) => cells.flatMap((_, j) => {
    const ri = Math.floor(i / cols), ci = i % cols, rj = Math.floor(j / cols), cj = j % cols;
    return Math.abs(ri - rj) + Math.abs(ci - cj) === 1 ? [j] : [];
  });
  const inTree = new Set([rng.int(0, n - 1)]);
  const links: [number, number][] = [];
  while (inTree.size < n) {
    const frontier = [...inTree].sort((a, b) => a - b).flatMap((i) => neighbours(i).filter((j) => !inTree.has(j)).map((j) => [i, j] as [number, number]));
    const [i, j] = rng.pick(frontier);
    links.push([Math.min(i, j), Math.max(i, j)]);
    inTree.add(j);
  }
  return { cells, links };
}

/** A door's box on the wall two cells share. */
function doorBox(rng: Rng, a: Cell, b: Cell): Box {
  const w = STRUCTURE.door.size[0];
  if (a.x1 === b.x0 || b.x1 === a.x0) {
    const x = a.x1 === b.x0 ? a.x1 : a.x0;
    const z = rng.uniform(Math.max(a.z0, b.z0) + 0.9, Math.min(a.z1, b.z1) - 0.9);
    return box([x, 1.05, z], [0.08, 2.1, w]);
  }
  const z = a.z1 === b.z0 ? a.z1 : a.z0;
  const x = rng.uniform(Math.max(a.x0, b.x0) + 0.9, Math.min(a.x1, b.x1) - 0.9);
  return box([x, 1.05, z], [w, 2.1, 0.08]);
}

/** Space kept free in front of a door, on both sides. */
const clearance = (door: Box): Box => box([door.c[0], 1.1, door.c[2]], [1.5, 2.2, 1.5]);

const inside = (b: Box, cell: Cell) => lo(b, 0) >= cell.x0 + WALL && hi(b, 0) <= cell.x1 - WALL && lo(b, 2) >= cell.z0 + WALL && hi(b, 2) <= cell.z1 - WALL;

/** Places one piece of furniture; null when no free spot was found. */
function placeFurniture(bd: Builder, spec: ClassSpec, place: Placement, cell: Cell, room: number, blocked: Box[]): Thing | null {
  const rng = bd.rng;
  const inRoom = bd.things.filter((t) => t.room === room && t.kind === 'furniture');
  for (let attempt = 0; attempt < 60; attempt++) {
    let b: Box;
    let parent: Thing['parent'];
    if (place.kind === 'wall' || place.kind === 'mounted') {
      const side = rng.int(0, 3);
      const [w, h, d] = bd.size(spec, side >= 2);
      const y = place.kind === 'mounted' ? place.height + h / 2 : h / 2;
      if (side === 0 || side === 1) {
        const x = rng.uniform(cell.x0 + WALL + w / 2, cell.x1 - WALL - w / 2);
        const z = side === 0 ? cell.z0 + WALL + d / 2 + 0.02 : cell.z1 - WALL - d / 2 - 0.02;
        b = box([x, y, z], [w, h, d]);
      } else {
        const z = rng.uniform(cell.z0 + WALL + d / 2, cell.z1 - WALL - d / 2);
        const x = side === 2 ? cell.x0 + WALL + w / 2 + 0.02 : cell.x1 - WALL - w / 2 - 0.02;
        b = box([x, y, z], [w, h, d]);
      }
    } else if (place.kind === 'center') {
      const [w, h, d] = bd.size(spec, rng.chance(0.5));
      const m = 0.9;
      b = box([rng.uniform(cell.x0 + m + w / 2, cell.x1 - m - w / 2), h / 2, rng.uniform(cell.z0 + m + d / 2, cell.z1 - m - d / 2)], [w, h, d]);
    } else {
      const bases = inRoom.filter((t) => place.of.includes(t.className));
      if (bases.length === 0) return null;
      const base = rng.pick(bases);
      const [w, h, d] = bd.size(spec, false);
      if (place.kind === 'beside') {
        const side = rng.int(0, 3);
        const gap = rng.uniform(0.08, 0.2);
        if (side < 2) {
          const x = rng.uniform(lo(base.box, 0) + w / 2, hi(base.box, 0) - w / 2);
          const z = side === 0 ? lo(base.box, 2) - gap - d / 2 : hi(base.box, 2) + gap + d / 2;
          b = box([x, h / 2, z], [w, h, d]);
        } else {
          const z = rng.uniform(lo(base.box, 2) + d / 2, hi(base.box, 2) - d / 2);
          const x = side === 2 ? lo(base.box, 0) - gap - d / 2 : hi(base.box, 0) + gap + d / 2;
          b = box([x, h / 2, z], [d, h, w]);
        }
      } else {
        const spot = onSurface(bd, [w, h, d], base);
        if (spot === null) continue;
        b = spot;
        parent = { id: base.id, rel: 'ON' };
      }
    }
    if (!inside(b, cell)) continue;
    if (parent === undefined && (inRoom.some((t) => t.parent === undefined && overlaps(t.box, b, 0.05)) || blocked.some((x) => overlaps(x, b)))) continue;
    return bd.add(spec, 'furniture', b, room, parent ? { parent } : {});
  }
  return null;
}

/** A spot for a thing of size `s` on `holder`'s top, clear of what already lies there; null if none. */
function onSurface(bd: Builder, s: V3, holder: Thing): Box | null {
  const rng = bd.rng;
  const hb = holder.box;
  for (let attempt = 0; attempt < 15; attempt++) {
    const [w, h, d] = attempt % 2 === 0 ? s : [s[2], s[1], s[0]];
    if (w > hb.s[0] - 0.02 || d > hb.s[2] - 0.02) continue;
    const b = box([rng.uniform(lo(hb, 0) + w / 2 + 0.01, hi(hb, 0) - w / 2 - 0.01), hi(hb, 1) + h / 2, rng.uniform(lo(hb, 2) + d / 2 + 0.01, hi(hb, 2) - d / 2 - 0.01)], [w, h, d]);
    if (!bd.things.some((t) => t.parent?.id === holder.id && t.parent.rel === 'ON' && overlaps(t.box, b))) return b;
  }
  return null;
}

/** A spot for a thing of size `s` at the bottom of `holder`, clear of its other contents; null if none. */
function inContainer(bd: Builder, s: V3, holder: Thing): Box | null {
  const rng = bd.rng;
  const hb = holder.box;
  const m = 0.03;
  for (let attempt = 0; attempt < 15; attempt++) {
    const [w, h, d] = attempt % 2 === 0 ? s : [s[2], s[1], s[0]];
    if (w > hb.s[0] - 2 * m - 0.01 || d > hb.s[2] - 2 * m - 0.01 || h > hb.s[1] - 2 * m - 0.01) continue;
    const b = box([rng.uniform(lo(hb, 0) + m + w / 2, hi(hb, 0) - m - w / 2), lo(hb, 1) + m + h / 2, rng.uniform(lo(hb, 2) + m + d / 2, hi(hb, 2) - m - d / 2)], [w, h, d]);
    if (!bd.things.some((t) => t.parent?.id === holder.id && t.parent.rel === 'INSIDE' && overlaps(t.box, b))) return b;
  }
  return null;
}

/** Object classes by the holder class they may lie on or in. */
const PLACEMENTS = (() => {
  const m = new Map<string, { ON: ClassSpec[]; INSIDE: ClassSpec[] }>();
  for (const o of OBJECTS) {
    for (const [rel, holders] of [['ON', o.on ?? []], ['INSIDE', o.in ?? []]] as const) {
      for (const h of holders) {
        if (!m.has(h)) m.set(h, { ON: [], INSIDE: [] });
        m.get(h)![rel].push(o);
      }
    }
  }
  return m;
})();

/** Fills a holder with small things (and their contents, one level further). */
function fillHolder(bd: Builder, holder: Thing): void {
  const rng = bd.rng;
  const allowed = PLACEMENTS.get(holder.className);
  if (!allowed) return;
  const props = holder.spec.properties;
  for (const rel of ['ON', 'INSIDE'] as const) {
    const classes = allowed[rel];
    if (classes.length === 0 || !props.includes(rel === 'ON' ? 'SURFACES' : 'CONTAINERS')) continue;
    const [w, h, d] = holder.box.s;
    let n: number;
    if (holder.kind === 'object') n = rng.int(0, 2);
    else if (rel === 'ON') n = rng.chance(0.85) ? rng.int(1, Math.min(5, Math.floor((w * d) / 0.2) + 1)) : 0;
    else n = rng.chance(0.85) ? rng.int(1, Math.min(4, Math.floor((w * h * d) / 0.15) + 1)) : 0;
    for (let k = 0; k < n; k++) {
      // Prefer classes already in the apartment, elsewhere: duplicates in different relations.
      const seen = classes.filter((c) => bd.placedClasses.has(c.name));
      const spec = seen.length > 0 && rng.chance(0.4) ? rng.pick(seen) : rng.pick(classes);
      const s = bd.size(spec, rng.chance(0.5));
      const b = rel === 'ON' ? onSurface(bd, s, holder) : inContainer(bd, s, holder);
      if (b === null) continue;
      const t = bd.add(spec, 'object', b, holder.room, { parent: { id: holder.id, rel }, depth: holder.depth + 1 });
      if (t.depth < 2) fillHolder(bd, t);
    }
  }
}

/**
 * Makes sure something grabbable is hidden in a closed container: closes an open container that holds
 * something, or else puts something in a closed one (the draws rarely leave none).
 */
function hideSomething(bd: Builder): void {
  const openable = bd.things.filter((t) => t.spec.properties.includes('CAN_OPEN') && t.kind !== 'door');
  const holding = (t: Thing) => bd.things.some((x) => x.parent?.id === t.id && x.parent.rel === 'INSIDE' && x.spec.properties.includes('GRABBABLE'));
  if (openable.some((t) => t.states.includes('CLOSED') && holding(t))) return;
  const full = openable.filter(holding);
  const close = (t: Thing): void => {
    t.states = t.states.map((st) => (st === 'OPEN' ? 'CLOSED' : st));
  };
  if (full.length > 0) return close(bd.rng.pick(full));
  for (const t of openable) {
    const spec = PLACEMENTS.get(t.className)?.INSIDE[0];
    const b = spec ? inContainer(bd, bd.size(spec, false), t) : null;
    if (spec && b) {
      bd.add(spec, 'object', b, t.room, { parent: { id: t.id, rel: 'INSIDE' }, depth: t.depth + 1 });
      return close(t);
    }
  }
}

/** A free floor spot for the character in a room (its centre if none is free). */
function placeCharacter(bd: Builder, cell: Cell, room: number, blocked: Box[]): Box {
  const [w, h, d] = STRUCTURE.character.size;
  const furniture = bd.things.filter((t) => t.room === room && t.kind === 'furniture');
  for (let attempt = 0; attempt < 100; attempt++) {
    const b = box([bd.rng.uniform(cell.x0 + 0.6, cell.x1 - 0.6), h / 2, bd.rng.uniform(cell.z0 + 0.6, cell.z1 - 0.6)], [w, h, d]);
    if (!furniture.some((t) => overlaps(t.box, b, 0.05)) && !blocked.some((x) => overlaps(x, b))) return b;
  }
  return box([(cell.x0 + cell.x1) / 2, h / 2, (cell.z0 + cell.z1) / 2], [w, h, d]);
}

const ROOM_SPEC = (type: string): ClassSpec => ({ name: type, label: ROOM_TYPES[type].label, category: 'Rooms', properties: [], states: [], size: [1, 1, 1] });

/** Generates apartment `index` of `seed` (pure; same arguments, same graph). */
export function generateApartment(seed: number, index: number, settings: ApartmentSettings = DEFAULT_APARTMENT_SETTINGS): VhGraph {
  const rng = new Rng(seed, index, 0x0a9a);
  const bd = new Builder(rng);
  const { cells, links } = layoutRooms(rng, settings);
  const doors = links.map(([a, b]) => ({ a, b, box: doorBox(rng, cells[a], cells[b]), kind: rng.chance(0.7) ? STRUCTURE.door : STRUCTURE.doorjamb }));
  const roomIds: number[] = [];
  for (const [i, cell] of cells.entries()) {
    const cx = (cell.x0 + cell.x1) / 2;
    const cz = (cell.z0 + cell.z1) / 2;
    const W = cell.x1 - cell.x0;
    const D = cell.z1 - cell.z0;
    const room = bd.add(ROOM_SPEC(cell.type), 'room', box([cx, ROOM_HEIGHT / 2, cz], [W, ROOM_HEIGHT, D]), 0);
    room.room = room.id;
    roomIds.push(room.id);
    bd.add(STRUCTURE.floor, 'structure', box([cx, 0, cz], [W, 0.02, D]), room.id);
    for (const [c, s] of [[[cx, 1.4, cell.z0 + WALL / 2], [W, ROOM_HEIGHT, WALL]], [[cx, 1.4, cell.z1 - WALL / 2], [W, ROOM_HEIGHT, WALL]], [[cell.x0 + WALL / 2, 1.4, cz], [WALL, ROOM_HEIGHT, D]], [[cell.x1 - WALL / 2, 1.4, cz], [WALL, ROOM_HEIGHT, D]]] as [V3, V3][]) {
      bd.add(STRUCTURE.wall, 'structure', box(c, s), room.id);
    }
    bd.add(STRUCTURE.ceiling, 'structure', box([cx, ROOM_HEIGHT, cz], [W, 0.02, D]), room.id);
    bd.add(STRUCTURE.ceilinglamp, 'structure', box([cx, ROOM_HEIGHT - 0.15, cz], [...STRUCTURE.ceilinglamp.size]), room.id);
    // Doors belong to the first room they join (their BETWEEN edges name both).
    for (const dr of doors.filter((x) => x.a === i)) bd.add(dr.kind, 'door', dr.box, room.id, { between: [room.id, -1 - dr.b] });
    const blocked = doors.filter((x) => x.a === i || x.b === i).map((x) => clearance(x.box));
    for (const rule of ROOM_TYPES[cell.type].furniture) {
      const count = rng.int(rule.count[0], rule.count[1]);
      for (let k = 0; k < count; k++) placeFurniture(bd, CLASSES.get(rule.cls)!, rule.place, cell, room.id, blocked);
    }
    for (const t of bd.things.filter((x) => x.room === room.id && x.kind === 'furniture')) fillHolder(bd, t);
  }
  hideSomething(bd);
  // Doors name the second room by its cell until every room has an id.
  for (const t of bd.things) if (t.between && t.between[1] < 0) t.between[1] = roomIds[-1 - t.between[1]];
  const start = rng.int(0, cells.length - 1);
  const blocked = doors.filter((x) => x.a === start || x.b === start).map((x) => clearance(x.box));
  bd.add(STRUCTURE.character, 'character', placeCharacter(bd, cells[start], roomIds[start], blocked), roomIds[start]);
  return toGraph(bd.things);
}

const NOT_CLOSE: ReadonlySet<Kind> = new Set(['room', 'structure']);

function toGraph(things: readonly Thing[]): VhGraph {
  const nodes: VhNode[] = things.map((t) => ({
    id: t.id,
    class_name: t.className,
    category: t.spec.category,
    prefab_name: `gsr_${t.className}`,
    bounding_box: { center: t.box.c, size: t.box.s },
    properties: [...t.spec.properties] as VhProperty[],
    states: t.states,
  }));
  const out = new Map<number, VhEdge[]>();
  const edge = (from: number, rel: VhEdge['relation_type'], to: number) => {
    if (!out.has(from)) out.set(from, []);
    out.get(from)!.push({ from_id: from, relation_type: rel, to_id: to });
  };
  for (const t of things) {
    if (t.kind !== 'room') edge(t.id, 'INSIDE', t.room);
    if (t.parent) edge(t.id, t.parent.rel, t.parent.id);
    if (t.between) for (const r of t.between) edge(t.id, 'BETWEEN', r);
  }
  const byRoom = new Map<number, Thing[]>();
  for (const t of things) if (!NOT_CLOSE.has(t.kind)) byRoom.set(t.room, [...(byRoom.get(t.room) ?? []), t]);
  const closeTo = new Map<number, number[]>();
  for (const group of byRoom.values()) {
    for (const a of group) {
      for (const b of group) {
        if (a.id !== b.id && boxGap({ center: a.box.c, size: a.box.s }, { center: b.box.c, size: b.box.s }) <= CLOSE_GAP) closeTo.set(a.id, [...(closeTo.get(a.id) ?? []), b.id]);
      }
    }
  }
  for (const t of things) for (const b of closeTo.get(t.id) ?? []) edge(t.id, 'CLOSE', b);
  for (const group of byRoom.values()) {
    const screens = group.filter((t) => t.kind === 'furniture' && t.spec.properties.includes('LOOKABLE'));
    for (const seat of group.filter((t) => t.spec.properties.includes('SITTABLE'))) {
      let best: Thing | undefined;
      let bestD = FACING_RANGE;
      for (const s of screens) {
        const d = Math.hypot(s.box.c[0] - seat.box.c[0], s.box.c[2] - seat.box.c[2]);
        if (d <= bestD) [best, bestD] = [s, d];
      }
      if (best) edge(seat.id, 'FACING', best.id);
    }
  }
  return { nodes, edges: things.flatMap((t) => out.get(t.id) ?? []) };
}

/**
 * What an apartment promises, checked on any graph: dense ids, each non-room node INSIDE exactly one
 * room, ON targets with SURFACES and INSIDE non-room targets with CONTAINERS, no INSIDE cycle, floor
 * furniture not overlapping, things within their room and on or in their holders, CLOSE edges both
 * ways and within CLOSE_GAP, doors joining the rooms in a tree, every CAN_OPEN node OPEN or CLOSED.
 * Returns the problems found (empty when none).
 */
export function checkApartment(graph: VhGraph): string[] {
  const problems: string[] = [];
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  graph.nodes.forEach((n, i) => n.id !== i + 1 && problems.push(`node ${i} has id ${n.id}, expected ${i + 1}`));
  const isRoom = (id: number) => nodes.get(id)?.category === 'Rooms';
  const byRel = new Map<string, VhEdge[]>();
  for (const e of graph.edges) byRel.set(e.relation_type, [...(byRel.get(e.relation_type) ?? []), e]);
  const rel = (r: string) => byRel.get(r) ?? [];
  const bb = (id: number) => nodes.get(id)!.bounding_box!;
  const within = (a: number, b: number, eps = 1e-6) => [0, 1, 2].every((k) => bb(a).center[k] - bb(a).size[k] / 2 >= bb(b).center[k] - bb(b).size[k] / 2 - eps && bb(a).center[k] + bb(a).size[k] / 2 <= bb(b).center[k] + bb(b).size[k] / 2 + eps);
  const roomOf = new Map<number, number>();
  const roomEdges = new Map<number, number[]>();
  for (const e of rel('INSIDE')) if (isRoom(e.to_id)) roomEdges.set(e.from_id, [...(roomEdges.get(e.from_id) ?? []), e.to_id]);
  for (const n of graph.nodes) {
    if (isRoom(n.id)) continue;
    const rooms = roomEdges.get(n.id) ?? [];
    if (rooms.length !== 1) problems.push(`${n.class_name} ${n.id} is INSIDE ${rooms.length} rooms`);
    else roomOf.set(n.id, rooms[0]);
  }
  for (const e of rel('ON')) if (!nodes.get(e.to_id)!.properties.includes('SURFACES')) problems.push(`${e.from_id} ON ${e.to_id}, which has no SURFACES`);
  for (const e of rel('INSIDE')) if (!isRoom(e.to_id) && !nodes.get(e.to_id)!.properties.includes('CONTAINERS')) problems.push(`${e.from_id} INSIDE ${e.to_id}, which has no CONTAINERS`);
  for (const e of [...rel('ON'), ...rel('INSIDE')]) {
    if (isRoom(e.to_id)) continue;
    if (roomOf.get(e.from_id) !== roomOf.get(e.to_id)) problems.push(`${e.from_id} ${e.relation_type} ${e.to_id} in another room`);
    const a = bb(e.from_id);
    const b = bb(e.to_id);
    const inFoot = [0, 2].every((k) => a.center[k] - a.size[k] / 2 >= b.center[k] - b.size[k] / 2 - 1e-6 && a.center[k] + a.size[k] / 2 <= b.center[k] + b.size[k] / 2 + 1e-6);
    if (e.relation_type === 'INSIDE' ? !within(e.from_id, e.to_id) : !inFoot || Math.abs(a.center[1] - a.size[1] / 2 - (b.center[1] + b.size[1] / 2)) > 2e-3) problems.push(`${e.from_id} is not ${e.relation_type} ${e.to_id} by its box`);
  }
  const parents = new Map<number, number[]>();
  for (const e of rel('INSIDE')) if (!isRoom(e.to_id)) parents.set(e.from_id, [...(parents.get(e.from_id) ?? []), e.to_id]);
  for (const start of parents.keys()) {
    const seen = new Set<number>();
    for (let cur: number | undefined = start; cur !== undefined; cur = parents.get(cur)?.[0]) {
      if (seen.has(cur)) {
        problems.push(`INSIDE cycle through ${start}`);
        break;
      }
      seen.add(cur);
    }
  }
  for (const n of graph.nodes) {
    if (isRoom(n.id) || n.category === 'Floor' || n.category === 'Walls' || n.category === 'Ceiling' || n.category === 'Doors') continue;
    if (!within(n.id, roomOf.get(n.id) ?? n.id)) problems.push(`${n.class_name} ${n.id} is outside its room`);
  }
  const onSomething = new Set(rel('ON').map((e) => e.from_id));
  const standing = graph.nodes.filter((n) => (n.category === 'Furniture' || n.category === 'Appliances' || n.category === 'Lamps' || n.category === 'Electronics') && !n.properties.includes('GRABBABLE') && !onSomething.has(n.id) && n.class_name !== 'ceilinglamp');
  for (const [i, a] of standing.entries()) {
    for (const b of standing.slice(i + 1)) {
      if (roomOf.get(a.id) === roomOf.get(b.id) && overlaps(toBox(a), toBox(b))) problems.push(`${a.class_name} ${a.id} overlaps ${b.class_name} ${b.id}`);
    }
  }
  const close = new Set(rel('CLOSE').map((e) => `${e.from_id} ${e.to_id}`));
  for (const e of rel('CLOSE')) {
    if (!close.has(`${e.to_id} ${e.from_id}`)) problems.push(`CLOSE ${e.from_id} ${e.to_id} one way only`);
    if (boxGap(bb(e.from_id), bb(e.to_id)) > CLOSE_GAP + 1e-9) problems.push(`CLOSE ${e.from_id} ${e.to_id} farther than ${CLOSE_GAP}`);
  }
  const rooms = graph.nodes.filter((n) => isRoom(n.id)).map((n) => n.id);
  const doorLinks = new Map<number, number[]>();
  for (const e of rel('BETWEEN')) doorLinks.set(e.from_id, [...(doorLinks.get(e.from_id) ?? []), e.to_id]);
  if (doorLinks.size !== rooms.length - 1) problems.push(`${doorLinks.size} doors for ${rooms.length} rooms (a tree has ${rooms.length - 1})`);
  const reached = new Set([rooms[0]]);
  for (let size = 0; size !== reached.size; ) {
    size = reached.size;
    for (const [a, b] of doorLinks.values()) if (reached.has(a) || reached.has(b)) reached.add(a).add(b);
  }
  if (reached.size !== rooms.length) problems.push('the doors do not join every room');
  for (const n of graph.nodes) if (n.properties.includes('CAN_OPEN') && !n.states.includes('OPEN') && !n.states.includes('CLOSED')) problems.push(`${n.class_name} ${n.id} can open but is neither OPEN nor CLOSED`);
  return problems;
}

const toBox = (n: VhNode): Box => ({ c: [...n.bounding_box!.center] as V3, s: [...n.bounding_box!.size] as V3 });
