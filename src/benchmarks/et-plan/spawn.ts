/**
 * The `start: spawn` option (docs/et-plan.md, "Start"): where the character stands at step 1 when it
 * spawns in its start room instead of standing at the room's centre. The released runs add the
 * character to a room and Unity spawns it there; the engine has no spawn points, so the rule is ours.
 */
import { Rng } from '../../util/random.js';
import { EngineState, REL, nodePosition, type EngineGraph, type Vec3 } from './engine/index.js';

/** Kept free around the character, as the apartment generator keeps it (apartment.ts, placeCharacter). */
const WALL_MARGIN = 0.6;
const TRIES = 100;
const NOT_OBSTACLES = new Set(['Rooms', 'Floor', 'Floors', 'Walls', 'Ceiling', 'Characters']);

/**
 * A room's spawn point. In the room the graph puts the character in: the character's own position
 * (a graph records where the character spawned). Elsewhere: a free floor spot drawn with a stream
 * seeded by the room's id (the same spot for every task that starts there), at least 0.6 m from the
 * room box's sides and outside the footprint of every thing that stands in the room, at the
 * character's height; the room's centre when no spot is free after 100 draws or the room has no box.
 */
export function spawnPoint(graph: EngineGraph, room: number): Vec3 {
  const base = EngineState.initial(graph);
  const c = graph.characterId;
  if (base.out(c, REL.INSIDE).includes(room) && graph.node(c)?.center !== undefined) return nodePosition(graph, c);
  const centre = nodePosition(graph, room);
  const bb = graph.node(room)!.raw.bounding_box;
  if (bb == null) return centre;
  const y = graph.node(c)?.center?.[1] ?? centre[1];
  const obstacles = base.in(room, REL.INSIDE).flatMap((id) => {
    const n = graph.node(id)!;
    const b = n.raw.bounding_box;
    return NOT_OBSTACLES.has(n.category) || b == null ? [] : [b];
  });
  const rng = new Rng(room, 0x5a77);
  const [x0, x1] = [bb.center[0] - bb.size[0] / 2 + WALL_MARGIN, bb.center[0] + bb.size[0] / 2 - WALL_MARGIN];
  const [z0, z1] = [bb.center[2] - bb.size[2] / 2 + WALL_MARGIN, bb.center[2] + bb.size[2] / 2 - WALL_MARGIN];
  if (!(x0 < x1 && z0 < z1)) return centre;
  for (let i = 0; i < TRIES; i++) {
    const x = rng.uniform(x0, x1);
    const z = rng.uniform(z0, z1);
    const inside = (b: { center: number[]; size: number[] }) => Math.abs(x - b.center[0]) <= b.size[0] / 2 && Math.abs(z - b.center[2]) <= b.size[2] / 2;
    if (!obstacles.some(inside)) return [x, y, z];
  }
  return centre;
}
