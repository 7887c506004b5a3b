import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  absoluteFacing, absoluteLocation, ANGLES, BOARD, DIRECTIONS, initialWorld, MOVES, relativeLocation, relativeOrientation, run, step, tileNumber, tileOf, tilePosition,
  type Action, type World,
} from '../../../src/benchmarks/snorkel-spatial/world.js';

// Width 4, tiles in a zigzag:   1  2  3  4     (the north edge at the start: y from 3 to 4)
//                               8  7  6  5
//                               9 10 11 12
//                              16 15 14 13   (the south edge: y from 0 to 1)
describe('SnorkelSpatial world: hand-worked cases', () => {
  it('numbers tiles in a zigzag from the front-left tile', () => {
    expect([0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => tileNumber(4, r, c)))).toEqual([[1, 2, 3, 4], [8, 7, 6, 5], [9, 10, 11, 12], [16, 15, 14, 13]]);
    for (let t = 1; t <= 25; t++) expect(tileNumber(5, tilePosition(5, t).row, tilePosition(5, t).col)).toBe(t);
  });

  it('follows a particle and the board through a short sequence', () => {
    let w = initialWorld(4, [{ name: 'P1', at: [2.5, 2.5], facing: 'NORTH' }, { name: 'P2', at: [0.5, 3.5], facing: 'EAST' }]);
    expect(tileOf(w, 'P1')).toBe(6); // row 1, column 2 of a board whose south-west corner is at (0, 0)
    expect(tileOf(w, 'P2')).toBe(1);
    expect(absoluteLocation(w, 'P1')).toEqual([2.5, 2.5]);
    expect(absoluteLocation(w, BOARD)).toEqual([2, 2]); // the centroid
    w = step(w, { actor: 'P1', move: 'FORWARD' });
    expect(tileOf(w, 'P1')).toBe(3);
    w = step(w, { actor: 'P1', move: 'FORWARD' }); // over the front edge: back in on the far edge
    expect(tileOf(w, 'P1')).toBe(14);
    expect(absoluteLocation(w, 'P1')).toEqual([2.5, 0.5]);
    w = step(w, { actor: BOARD, rotate: 90 }); // the board turns about its centroid (2, 2) and carries P1
    expect(absoluteFacing(w, BOARD)).toBe('WEST');
    expect(tileOf(w, 'P1')).toBe(14);
    expect(absoluteLocation(w, 'P1')).toEqual([3.5, 2.5]);
    expect(absoluteLocation(w, BOARD)).toEqual([2, 2]);
    expect(absoluteFacing(w, 'P1')).toBe('WEST');
    expect(absoluteFacing(w, 'P2')).toBe('NORTH'); // EAST turned 90 degrees counter-clockwise
    w = step(w, { actor: 'P1', move: 'LEFT' }); // P1 faces WEST, so its left is SOUTH in the world
    expect(tileOf(w, 'P1')).toBe(15);
    expect(absoluteLocation(w, 'P1')).toEqual([3.5, 1.5]);
    w = step(w, { actor: BOARD, move: 'FORWARD' }); // the board faces WEST: everything moves one unit west
    expect(absoluteLocation(w, 'P1')).toEqual([2.5, 1.5]);
    expect(absoluteLocation(w, BOARD)).toEqual([1, 2]);
    expect(tileOf(w, 'P1')).toBe(15);
    expect(relativeLocation(w, 'P1', 'P2')).toEqual([-1, 3]); // one tile to P1's left, three ahead
    expect(relativeOrientation(w, 'P1', 'P2')).toBe(270);
    w = step(w, { actor: 'P1', rotate: 180 });
    expect(relativeLocation(w, 'P1', 'P2')).toEqual([1, -3]);
    expect(relativeOrientation(w, 'P1', 'P2')).toBe(90);
    expect(absoluteFacing(w, 'P1')).toBe('EAST');
  });
});

const WIDTH = 5;
const arbWorld: fc.Arbitrary<World> = fc.record({
  facing: fc.integer({ min: 0, max: 3 }), east: fc.integer({ min: -50, max: 50 }), north: fc.integer({ min: -50, max: 50 }),
  particles: fc.tuple(...[1, 2, 3].map(() => fc.record({ tile: fc.integer({ min: 1, max: WIDTH * WIDTH }), facing: fc.integer({ min: 0, max: 3 }) }))),
}).map(({ facing, east, north, particles }) => ({
  width: WIDTH, facing, east, north,
  particles: particles.map((p, i) => ({ name: `P${i + 1}`, ...tilePosition(WIDTH, p.tile), facing: p.facing })),
}));
const arbActor = fc.constantFrom(BOARD, 'P1', 'P2', 'P3');
const arbAction: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ actor: arbActor, move: fc.constantFrom(...MOVES) }),
  fc.record({ actor: arbActor, rotate: fc.constantFrom(...ANGLES) }),
);
const OPPOSITE = { FORWARD: 'BACKWARD', BACKWARD: 'FORWARD', LEFT: 'RIGHT', RIGHT: 'LEFT' } as const;

describe('SnorkelSpatial world: invariants', () => {
  it('a 0 or 360 degree rotation is the identity, for the board and for a particle', () => {
    fc.assert(fc.property(arbWorld, arbActor, fc.constantFrom(0 as const, 360 as const), (w, actor, angle) => {
      expect(step(w, { actor, rotate: angle })).toEqual(w);
    }));
  });

  it('four 90 degree turns are the identity; 90 then 270 too', () => {
    fc.assert(fc.property(arbWorld, arbActor, (w, actor) => {
      const quarter: Action = { actor, rotate: 90 };
      expect(run(w, [quarter, quarter, quarter, quarter])).toEqual(w);
      expect(run(w, [quarter, { actor, rotate: 270 }])).toEqual(w);
      expect(step(w, quarter)).not.toEqual(w);
    }));
  });

  it('a move then the opposite move restores the state (across the wrap too)', () => {
    fc.assert(fc.property(arbWorld, arbActor, fc.constantFrom(...MOVES), (w, actor, move) => {
      expect(run(w, [{ actor, move }, { actor, move: OPPOSITE[move] }])).toEqual(w);
    }));
  });

  it('wraps around: width moves in one direction bring a particle back; one move over the edge lands on the far edge', () => {
    fc.assert(fc.property(arbWorld, fc.constantFrom('P1', 'P2', 'P3'), fc.constantFrom(...MOVES), (w, actor, move) => {
      const back = run(w, Array.from({ length: WIDTH }, () => ({ actor, move })));
      expect(back).toEqual(w);
      const p = w.particles.find((q) => q.name === actor)!;
      const after = step(w, { actor, move }).particles.find((q) => q.name === actor)!;
      const moved = Math.abs(after.row - p.row) + Math.abs(after.col - p.col);
      expect([1, WIDTH - 1]).toContain(moved); // one tile, or across the board when it wrapped
    }));
  });

  it('the board carries its particles: tiles and relative answers never change under board actions', () => {
    fc.assert(fc.property(arbWorld, fc.array(fc.oneof(fc.record({ actor: fc.constant(BOARD), move: fc.constantFrom(...MOVES) }), fc.record({ actor: fc.constant(BOARD), rotate: fc.constantFrom(...ANGLES) })), { maxLength: 20 }), (w, actions) => {
      const after = run(w, actions as Action[]);
      for (const p of ['P1', 'P2', 'P3']) expect(tileOf(after, p)).toBe(tileOf(w, p));
      expect(relativeLocation(after, 'P1', 'P2')).toEqual(relativeLocation(w, 'P1', 'P2'));
      expect(relativeOrientation(after, 'P3', 'P1')).toBe(relativeOrientation(w, 'P3', 'P1'));
    }));
  });

  it('the board turns about its centroid and moves it one unit in the way it faces', () => {
    fc.assert(fc.property(arbWorld, fc.constantFrom(...ANGLES), fc.constantFrom(...MOVES), (w, angle, move) => {
      expect(absoluteLocation(step(w, { actor: BOARD, rotate: angle }), BOARD)).toEqual(absoluteLocation(w, BOARD));
      const [x0, y0] = absoluteLocation(w, BOARD);
      const [x1, y1] = absoluteLocation(step(w, { actor: BOARD, move }), BOARD);
      expect(Math.abs(x1 - x0) + Math.abs(y1 - y0)).toBe(1);
    }));
  });

  it('the board covers a width x width square around its centroid, one tile centre per unit cell', () => {
    fc.assert(fc.property(arbWorld, (w) => {
      const cells = new Set<string>();
      for (let t = 1; t <= WIDTH * WIDTH; t++) {
        const probe = { ...w, particles: [{ name: 'P1', ...tilePosition(WIDTH, t), facing: 0 }] };
        const [x, y] = absoluteLocation(probe, 'P1');
        const [cx, cy] = absoluteLocation(w, BOARD);
        // A tile centre is half a unit off the grid, within width / 2 of the centroid.
        expect(Math.abs(x - cx)).toBeLessThan(WIDTH / 2);
        expect(Math.abs(y - cy)).toBeLessThan(WIDTH / 2);
        expect((x % 1 + 1) % 1).toBe(0.5);
        expect((y % 1 + 1) % 1).toBe(0.5);
        cells.add(`${x},${y}`);
      }
      expect(cells.size).toBe(WIDTH * WIDTH);
    }));
  });

  it('any action sequence keeps particles on the board; relative offsets stay within one board width', () => {
    fc.assert(fc.property(arbWorld, fc.array(arbAction, { maxLength: 60 }), (w, actions) => {
      const after = run(w, actions);
      for (const p of ['P1', 'P2', 'P3']) {
        expect(tileOf(after, p)).toBeGreaterThanOrEqual(1);
        expect(tileOf(after, p)).toBeLessThanOrEqual(WIDTH * WIDTH);
      }
      const rel = relativeLocation(after, 'P1', 'P2');
      expect(Math.max(Math.abs(rel[0]), Math.abs(rel[1]))).toBeLessThan(WIDTH);
      expect(relativeOrientation(after, 'P2', 'P2')).toBe(0);
    }));
  });

  it('an absolute facing is the board\'s plus the particle\'s own', () => {
    fc.assert(fc.property(arbWorld, (w) => {
      for (const p of w.particles) expect(absoluteFacing(w, p.name)).toBe(DIRECTIONS[(w.facing + p.facing) % 4]);
    }));
  });
});
