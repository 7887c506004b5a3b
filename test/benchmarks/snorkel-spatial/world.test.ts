import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oracleAnswer, type SnorkelItem } from '../../../src/benchmarks/snorkel-spatial/item.js';
import {
  absoluteFacing, absoluteLocation, ANGLES, BOARD, DIRECTIONS, initialWorld, MOVES, relativeLocation, relativeOrientation, run, step, tileNumber, tileOf, tilePosition,
  type Action, type World,
} from '../../../src/benchmarks/snorkel-spatial/world.js';

// Width 4, tiles in a zigzag:   1  2  3  4
//                               8  7  6  5
//                               9 10 11 12
//                              16 15 14 13
describe('SnorkelSpatial world: hand-worked cases', () => {
  it('numbers tiles in a zigzag from the front-left tile', () => {
    expect([0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => tileNumber(4, r, c)))).toEqual([[1, 2, 3, 4], [8, 7, 6, 5], [9, 10, 11, 12], [16, 15, 14, 13]]);
    for (let t = 1; t <= 25; t++) expect(tileNumber(5, tilePosition(5, t).row, tilePosition(5, t).col)).toBe(t);
  });

  it('follows a particle and the board through a short sequence', () => {
    let w = initialWorld(4, [{ name: 'P1', tile: 6, facing: 'NORTH' }, { name: 'P2', tile: 1, facing: 'EAST' }]);
    expect(absoluteLocation(w, 'P1')).toEqual([2, 2]); // row 1, column 2 of a board whose south-west tile is (0, 0)
    w = step(w, { actor: 'P1', move: 'FORWARD' });
    expect(tileOf(w, 'P1')).toBe(3);
    w = step(w, { actor: 'P1', move: 'FORWARD' }); // over the front edge: back in on the far edge
    expect(tileOf(w, 'P1')).toBe(14);
    expect(absoluteLocation(w, 'P1')).toEqual([2, 0]);
    w = step(w, { actor: BOARD, rotate: 90 }); // the board turns about its centre (1.5, 1.5) and carries P1
    expect(absoluteFacing(w, BOARD)).toBe('WEST');
    expect(tileOf(w, 'P1')).toBe(14);
    expect(absoluteLocation(w, 'P1')).toEqual([3, 2]);
    expect(absoluteFacing(w, 'P1')).toBe('WEST');
    expect(absoluteFacing(w, 'P2')).toBe('NORTH'); // EAST turned 90 degrees counter-clockwise
    w = step(w, { actor: 'P1', move: 'LEFT' }); // P1 faces WEST, so its left is SOUTH in the world
    expect(tileOf(w, 'P1')).toBe(15);
    expect(absoluteLocation(w, 'P1')).toEqual([3, 1]);
    w = step(w, { actor: BOARD, move: 'FORWARD' }); // the board faces WEST: everything moves one cell west
    expect(absoluteLocation(w, 'P1')).toEqual([2, 1]);
    expect(tileOf(w, 'P1')).toBe(15);
    expect(relativeLocation(w, 'P1', 'P2')).toEqual({ front: 3, right: -1 });
    expect(relativeOrientation(w, 'P1', 'P2')).toBe(270);
    w = step(w, { actor: 'P1', rotate: 180 });
    expect(relativeLocation(w, 'P1', 'P2')).toEqual({ front: -3, right: 1 });
    expect(relativeOrientation(w, 'P1', 'P2')).toBe(90);
    expect(absoluteFacing(w, 'P1')).toBe('EAST');
  });

  it('answers a sample in the published form: P1 ends facing NORTH', () => {
    // A stand-in written for these tests (docs/snorkel-spatial.md says why): the same kind of problem
    // and query, whose answer, worked by hand, is NORTH.
    const item: Pick<SnorkelItem, 'task' | 'width' | 'particles' | 'actions' | 'query'> = {
      task: 'absolute-orientation', width: 5,
      particles: [{ name: 'P1', tile: 7, facing: 'EAST' }, { name: 'P2', tile: 19, facing: 'SOUTH' }],
      actions: [
        { actor: 'P1', rotate: 90 },     // P1: EAST -> NORTH
        { actor: BOARD, rotate: 270 },   // board NORTH -> EAST; P1 NORTH -> EAST
        { actor: 'P1', move: 'FORWARD' }, // moving turns nothing
        { actor: BOARD, move: 'LEFT' },
        { actor: 'P2', rotate: 180 },    // only P2
        { actor: BOARD, rotate: 360 },   // a full turn
        { actor: 'P1', rotate: 180 },    // P1: EAST -> WEST
        { actor: BOARD, rotate: 270 },   // board EAST -> SOUTH; P1 WEST -> NORTH (270 counter-clockwise = 90 clockwise)
        { actor: 'P1', move: 'BACKWARD' },
        { actor: BOARD, rotate: 360 },   // a full turn again
      ],
      query: { subject: 'P1' },
    };
    expect(oracleAnswer(item)).toEqual({ orientation: 'NORTH' });
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

  it('the board covers a width x width block of world cells, one tile per cell', () => {
    fc.assert(fc.property(arbWorld, (w) => {
      const cells = new Set<string>();
      for (let t = 1; t <= WIDTH * WIDTH; t++) {
        const probe = { ...w, particles: [{ name: 'P1', ...tilePosition(WIDTH, t), facing: 0 }] };
        const [x, y] = absoluteLocation(probe, 'P1');
        expect(x - w.east).toBeGreaterThanOrEqual(0);
        expect(x - w.east).toBeLessThan(WIDTH);
        expect(y - w.north).toBeGreaterThanOrEqual(0);
        expect(y - w.north).toBeLessThan(WIDTH);
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
      expect(Math.max(Math.abs(rel.front), Math.abs(rel.right))).toBeLessThan(WIDTH);
      expect(relativeOrientation(after, 'P2', 'P2')).toBe(0);
    }));
  });

  it('an absolute facing is the board\'s plus the particle\'s own', () => {
    fc.assert(fc.property(arbWorld, (w) => {
      for (const p of w.particles) expect(absoluteFacing(w, p.name)).toBe(DIRECTIONS[(w.facing + p.facing) % 4]);
    }));
  });
});
