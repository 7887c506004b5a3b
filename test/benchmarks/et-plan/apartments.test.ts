/**
 * Procedural apartments: valid VirtualHome graphs the engine loads, consistent relations and boxes
 * (checkApartment, itself shown to catch broken graphs), the variety the tasks need, and the same
 * bytes for the same seed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../helpers/temp.js';
import { parseVhGraph, readVhGraph, type VhGraph } from '../../../src/formats/vh-graph.js';
import { checkApartment, generateApartment } from '../../../src/benchmarks/et-plan/apartment.js';
import { BASE_ROOMS, CLASSES } from '../../../src/benchmarks/et-plan/classes.js';
import { EngineGraph, EngineState, doorsOf, visibleNodes } from '../../../src/benchmarks/et-plan/engine/index.js';
import { layoutMap } from '../../../src/benchmarks/et-plan/layout.js';
import { synthApartments } from '../../../src/benchmarks/et-plan/synth.js';

const temp = useTempDirs('gsr-apartments-');

// Seed 0, index 79 draws nothing into a closed container: the generator then hides something itself.
const APARTMENTS = [...Array.from({ length: 8 }, (_, i) => generateApartment(3, i)), generateApartment(0, 79)];

describe('procedural apartments', () => {
  it('are consistent graphs that the engine loads', () => {
    for (const g of APARTMENTS) {
      expect(checkApartment(g)).toEqual([]);
      const eg = new EngineGraph(parseVhGraph(JSON.parse(JSON.stringify(g)), 'apartment'));
      expect(eg.rooms.length).toBeGreaterThanOrEqual(4);
      expect(doorsOf(eg)).toHaveLength(eg.rooms.length - 1);
      expect(visibleNodes(EngineState.initial(eg)).loop).toBe(false);
      // Every node has a box; every class is the project's own table's (or a room).
      for (const n of g.nodes) {
        expect(n.bounding_box?.size.every((v) => v > 0)).toBe(true);
        expect(CLASSES.has(n.class_name) || n.category === 'Rooms').toBe(true);
      }
    }
  });

  it('have what the task families need: the base rooms, closed containers with things inside, duplicates in different places', () => {
    for (const g of APARTMENTS) {
      const names = (ids: number[]) => ids.map((id) => g.nodes[id - 1].class_name);
      const rooms = names(g.nodes.filter((n) => n.category === 'Rooms').map((n) => n.id));
      for (const r of BASE_ROOMS) expect(rooms).toContain(r);
      const hidden = g.edges.filter((e) => e.relation_type === 'INSIDE' && g.nodes[e.to_id - 1].states.includes('CLOSED') && g.nodes[e.from_id - 1].properties.includes('GRABBABLE'));
      expect(hidden.length).toBeGreaterThan(0);
      // A grabbable class with instances on or in different holder classes.
      const holders = new Map<string, Set<string>>();
      for (const e of g.edges) {
        const from = g.nodes[e.from_id - 1];
        const to = g.nodes[e.to_id - 1];
        if ((e.relation_type === 'ON' || (e.relation_type === 'INSIDE' && to.category !== 'Rooms')) && from.properties.includes('GRABBABLE')) {
          holders.set(from.class_name, (holders.get(from.class_name) ?? new Set()).add(`${e.relation_type} ${to.class_name}`));
        }
      }
      expect([...holders.values()].some((s) => s.size >= 2)).toBe(true);
      // Small and large grabbable things.
      const volumes = g.nodes.filter((n) => n.properties.includes('GRABBABLE')).map((n) => n.bounding_box!.size.reduce((a, b) => a * b, 1));
      expect(Math.min(...volumes)).toBeLessThan(1e-4);
      expect(Math.max(...volumes)).toBeGreaterThan(0.01);
    }
  });

  it('give a layout map of large furniture per room', () => {
    const eg = new EngineGraph(APARTMENTS[0]);
    const map = layoutMap(eg);
    expect(map.map((r) => r.room.id)).toEqual(eg.rooms);
    const all = map.flatMap((r) => r.furniture.map((f) => f.class));
    expect(all).toContain('fridge');
    expect(all).toContain('sofa');
    expect(all).not.toContain('apple');
    expect(all).not.toContain('microwave');
  });

  it('are seeded: same seed, same bytes; another seed or index, another apartment', async () => {
    const [a, b, c] = [await temp(), await temp(), await temp()];
    await synthApartments({ out: a, count: 2, seed: 9 });
    await synthApartments({ out: b, count: 2, seed: 9 });
    await synthApartments({ out: c, count: 2, seed: 10 });
    const read = (d: string, i: number) => readFile(join(d, 'apartments', `apartment-00${i}.json`), 'utf8');
    expect(await read(a, 0)).toBe(await read(b, 0));
    expect(await read(a, 1)).toBe(await read(b, 1));
    expect(await read(a, 0)).not.toBe(await read(c, 0));
    expect(await read(a, 0)).not.toBe(await read(a, 1));
    // The file is the generator's graph, as the graph reader reads it.
    expect(await readVhGraph(join(a, 'apartments', 'apartment-000.json'))).toEqual(generateApartment(9, 0));
  });

  it('honour the room range', () => {
    for (let i = 0; i < 5; i++) expect(generateApartment(1, i, { rooms: [7, 7] }).nodes.filter((n) => n.category === 'Rooms')).toHaveLength(7);
  });
});

describe('checkApartment', () => {
  const broken = (edit: (g: VhGraph) => void) => {
    const g = structuredClone(APARTMENTS[0]);
    edit(g);
    return checkApartment(g);
  };
  const find = (g: VhGraph, cls: string) => g.nodes.find((n) => n.class_name === cls)!;

  it('finds overlapping furniture, one-way CLOSE edges, things off their holders, missing doors and stateless openables', () => {
    expect(broken((g) => (find(g, 'sofa').bounding_box!.center = [...find(g, 'coffeetable').bounding_box!.center]))).toContainEqual(expect.stringMatching(/overlaps/));
    expect(broken((g) => g.edges.splice(g.edges.findIndex((e) => e.relation_type === 'CLOSE'), 1))).toContainEqual(expect.stringMatching(/one way only/));
    expect(
      broken((g) => {
        const e = g.edges.find((x) => x.relation_type === 'ON')!;
        g.nodes[e.from_id - 1].bounding_box!.center[1] += 0.5;
      }),
    ).toContainEqual(expect.stringMatching(/is not ON/));
    expect(broken((g) => (g.edges = g.edges.filter((e) => e.relation_type !== 'BETWEEN')))).toContainEqual(expect.stringMatching(/doors for/));
    expect(broken((g) => (find(g, 'fridge').states = []))).toContainEqual(expect.stringMatching(/neither OPEN nor CLOSED/));
    expect(broken((g) => g.edges.push({ from_id: find(g, 'fridge').id, relation_type: 'INSIDE', to_id: find(g, 'sofa').id }))).toContainEqual(expect.stringMatching(/no CONTAINERS|INSIDE 1 rooms|another room|not INSIDE/));
  });
});
