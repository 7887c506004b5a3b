/**
 * Positions and moving distances (docs/et-plan.md, "Distances"). Nothing moves a node's box, so the
 * character stands at its own box centre until it walks, then at the walk target's centre.
 * `straight` sums straight segments exactly as the fixtures do (bit for bit); `doors` routes each
 * segment that changes room through door centres (rooms joined by BETWEEN edges), shortest first.
 */
import { GsrError } from '../../../util/errors.js';
import { OUT, REL, slot, type EngineGraph, type Vec3 } from './graph.js';
import { roomOf } from './execute.js';
import { EngineState } from './state.js';

export type Route = 'straight' | 'doors';

/** A node's position: its bounding-box centre (else its transform's position). */
export function nodePosition(graph: EngineGraph, id: number): Vec3 {
  const p = graph.node(id)?.center;
  if (p === undefined) throw new GsrError(`node ${id} has no position (no bounding_box or obj_transform)`);
  return p;
}

/** Euclidean length of one segment, computed as the fixtures compute it. */
export function segmentLength(a: Vec3, b: Vec3): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const dz = b[2] - a[2];
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

export interface Door {
  id: number;
  rooms: readonly [number, number];
  center: Vec3;
}

/** The doors of a graph: door or doorjamb nodes with BETWEEN edges to exactly two rooms. */
export function doorsOf(graph: EngineGraph): Door[] {
  const out: Door[] = [];
  for (const id of graph.ids) {
    const rooms = graph.baseList(slot(id, REL.BETWEEN, OUT)).filter((r) => graph.isRoom(r));
    const center = graph.node(id)!.center;
    if (rooms.length === 2 && center !== undefined) out.push({ id, rooms: [rooms[0], rooms[1]], center });
  }
  return out;
}

/** Length of the shortest path from `a` (in room `ra`) to `b` (in room `rb`) through door centres. */
export function doorRouteLength(doors: readonly Door[], a: Vec3, ra: number | null, b: Vec3, rb: number | null): number {
  if (ra === null || rb === null || ra === rb) return segmentLength(a, b);
  // Dijkstra over the doors; few doors, so a linear scan for the nearest open one.
  const dist = doors.map((d) => (d.rooms.includes(ra) ? segmentLength(a, d.center) : Infinity));
  const done = doors.map(() => false);
  let best = Infinity;
  for (;;) {
    let k = -1;
    for (let i = 0; i < doors.length; i++) if (!done[i] && dist[i] < Infinity && (k < 0 || dist[i] < dist[k])) k = i;
    if (k < 0 || dist[k] >= best) break;
    done[k] = true;
    const dk = doors[k];
    if (dk.rooms.includes(rb)) best = Math.min(best, dist[k] + segmentLength(dk.center, b));
    for (let i = 0; i < doors.length; i++) {
      if (done[i] || !doors[i].rooms.some((r) => dk.rooms.includes(r))) continue;
      dist[i] = Math.min(dist[i], dist[k] + segmentLength(dk.center, doors[i].center));
    }
  }
  // Rooms no door joins: the straight line.
  return best < Infinity ? best : segmentLength(a, b);
}

export interface DistanceOptions {
  route?: Route;
  /** Where the walk starts: a position; the character's box centre by default. */
  start?: Vec3;
}

/**
 * Moving distance of a sequence of walk targets, from the character (or `start`) to each target's
 * centre in order, summed left to right from 0. Rooms for the `doors` route come from the base graph.
 */
export function walkDistance(graph: EngineGraph, targets: readonly number[], options: DistanceOptions = {}): number {
  const route = options.route ?? 'straight';
  const base = EngineState.initial(graph);
  const doors = route === 'doors' ? doorsOf(graph) : [];
  let at = options.start ?? nodePosition(graph, graph.characterId);
  let room = roomOf(base, graph.characterId);
  let total = 0;
  for (const t of targets) {
    const p = nodePosition(graph, t);
    const r = roomOf(base, t);
    total += route === 'straight' ? segmentLength(at, p) : doorRouteLength(doors, at, room, p, r);
    at = p;
    room = r;
  }
  return total;
}
