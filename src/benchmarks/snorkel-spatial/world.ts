/**
 * The SnorkelSpatial world and its oracle: a square board `B1` of `width` x `width` unit tiles in an
 * unbounded world, particles on its tiles, and the actions that move and rotate both. Pure: the
 * generator, the oracle answerer and the tests share it. The rules and the choices made where the
 * published page is silent are in docs/snorkel-spatial.md.
 *
 * World coordinates are the published ones: x east, y north, in tile units; the board starts with
 * its south-west corner at (0, 0), so its centroid is at (width / 2, width / 2) and tile centres
 * are at half-units. Directions are quarter turns counter-clockwise from NORTH (0 NORTH, 1 WEST,
 * 2 SOUTH, 3 EAST), so a counter-clockwise rotation by k quarter turns adds k. A particle's facing
 * is kept relative to the board (its absolute facing is the board's plus its own), which is what
 * "the board rotates its particles" means; its tile is a (row, column) on the board, row 0 being
 * the board's front edge.
 */

export const DIRECTIONS = ['NORTH', 'WEST', 'SOUTH', 'EAST'] as const;
export type Direction = (typeof DIRECTIONS)[number];
export const MOVES = ['FORWARD', 'LEFT', 'BACKWARD', 'RIGHT'] as const;
export type MoveName = (typeof MOVES)[number];
export const ANGLES = [0, 90, 180, 270, 360] as const;
export type Angle = (typeof ANGLES)[number];
/** The board's name, as the published sample calls it. */
export const BOARD = 'B1';

export type Action = { actor: string; move: MoveName } | { actor: string; rotate: Angle };

export interface Particle {
  name: string;
  row: number;
  col: number;
  /** Quarter turns counter-clockwise from the board's front. */
  facing: number;
}

export interface World {
  width: number;
  /** The board's facing (quarter turns counter-clockwise from NORTH). */
  facing: number;
  /** How far the board has moved east and north, in tiles. */
  east: number;
  north: number;
  particles: Particle[];
}

const mod = (a: number, n: number) => ((a % n) + n) % n;

/** A unit step for a direction index: [east, north] (also [right, front] in a board's own frame). */
const STEP: ReadonlyArray<readonly [number, number]> = [[0, 1], [-1, 0], [0, -1], [1, 0]];

/** Rotates [x, y] by k quarter turns counter-clockwise. */
export function rotate([x, y]: readonly [number, number], k: number): [number, number] {
  let p: [number, number] = [x, y];
  for (let i = 0; i < mod(k, 4); i++) p = [-p[1], p[0]];
  return p;
}

/** Tile number of (row, col): 1-based, row 0 left to right, row 1 right to left, and so on (zigzag). */
export function tileNumber(width: number, row: number, col: number): number {
  return row * width + (row % 2 === 0 ? col + 1 : width - col);
}

/** (row, col) of a tile number (inverse of `tileNumber`). */
export function tilePosition(width: number, tile: number): { row: number; col: number } {
  const row = Math.floor((tile - 1) / width);
  const k = (tile - 1) % width;
  return { row, col: row % 2 === 0 ? k : width - 1 - k };
}

/** A point (x, y) in world coordinates. */
export type Point = [number, number];

/**
 * (row, col) of the tile whose centre is `at` on the board in its start pose (facing NORTH, south-west
 * corner at (0, 0)), or null when `at` is not a tile centre of the board.
 */
export function startTile(width: number, [x, y]: readonly [number, number]): { row: number; col: number } | null {
  const col = x - 0.5;
  const row = width - 0.5 - y;
  const onBoard = (v: number) => Number.isInteger(v) && v >= 0 && v < width;
  return onBoard(col) && onBoard(row) ? { row, col } : null;
}

/** The board in its start pose (facing NORTH, south-west corner at (0, 0)), particles at tile centres. */
export function initialWorld(width: number, particles: ReadonlyArray<{ name: string; at: readonly [number, number]; facing: Direction }>): World {
  return {
    width, facing: 0, east: 0, north: 0,
    particles: particles.map((p) => {
      const tile = startTile(width, p.at);
      if (tile === null) throw new RangeError(`${p.name} at (${p.at.join(', ')}) is not the centre of a tile of the board`);
      return { name: p.name, ...tile, facing: DIRECTIONS.indexOf(p.facing) };
    }),
  };
}

function particle(w: World, name: string): Particle {
  const p = w.particles.find((q) => q.name === name);
  if (p === undefined) throw new Error(`no particle ${name}`);
  return p;
}

/** The world after one action (a new object; `w` is left as it was). */
export function step(w: World, a: Action): World {
  const turn = 'rotate' in a ? a.rotate / 90 : 0;
  if (a.actor === BOARD) {
    if ('rotate' in a) return { ...w, facing: mod(w.facing + turn, 4) };
    const [de, dn] = STEP[mod(w.facing + MOVES.indexOf(a.move), 4)];
    return { ...w, east: w.east + de, north: w.north + dn };
  }
  const particles = w.particles.map((p) => {
    if (p.name !== a.actor) return p;
    if ('rotate' in a) return { ...p, facing: mod(p.facing + turn, 4) };
    const [right, front] = STEP[mod(p.facing + MOVES.indexOf(a.move), 4)];
    // Wrap-around: leaving the board over one edge re-enters it over the opposite edge.
    return { ...p, row: mod(p.row - front, w.width), col: mod(p.col + right, w.width) };
  });
  if (!w.particles.some((p) => p.name === a.actor)) throw new Error(`no particle ${a.actor}`);
  return { ...w, particles };
}

export function run(w: World, actions: readonly Action[]): World {
  return actions.reduce(step, w);
}

/** Absolute facing of the board or a particle. */
export function absoluteFacing(w: World, who: string): Direction {
  return DIRECTIONS[who === BOARD ? w.facing : mod(w.facing + particle(w, who).facing, 4)];
}

/**
 * World location (x, y) of the board (its centroid) or of a particle (the centre of its tile). The
 * board turns about its centroid, so a tile's offset from it turns with the board; the offsets are
 * doubled to stay integer while turning. Every value is a multiple of 0.5, exact in floating point.
 */
export function absoluteLocation(w: World, who: string): Point {
  const c = w.width / 2;
  if (who === BOARD) return [c + w.east, c + w.north];
  const p = particle(w, who);
  const n = w.width - 1;
  const [dx, dy] = rotate([2 * p.col - n, n - 2 * p.row], w.facing);
  return [c + dx / 2 + w.east, c + dy / 2 + w.north];
}

export function tileOf(w: World, who: string): number {
  const p = particle(w, who);
  return tileNumber(w.width, p.row, p.col);
}

/**
 * Where `other` is as `self` sees it: the point (x, y) in `self`'s own frame, x to its right and y
 * ahead of it (negative: left, behind), in tiles. The plain offset on the board (not the shorter way
 * round the wrap), turned into `self`'s frame.
 */
export function relativeLocation(w: World, self: string, other: string): Point {
  const a = particle(w, self);
  const b = particle(w, other);
  const [right, front] = rotate([b.col - a.col, a.row - b.row], -a.facing);
  return [right + 0, front + 0]; // + 0 turns -0 into 0
}

/** Counter-clockwise angle from `self`'s facing to `other`'s: 0, 90, 180 or 270. */
export function relativeOrientation(w: World, self: string, other: string): number {
  return mod(particle(w, other).facing - particle(w, self).facing, 4) * 90;
}
