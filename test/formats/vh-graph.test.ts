import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseVhGraph, readVhGraph, writeVhGraph } from '../../src/formats/vh-graph.js';
import { GsrError } from '../../src/util/errors.js';

const node = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  class_name: 'thing',
  category: 'Props',
  prefab_name: 'p',
  bounding_box: { center: [0, 0, 0], size: [1, 1, 1] },
  properties: [],
  states: [],
  ...extra,
});

describe('VirtualHome graph files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-vh-'));

  it('load as the reference engine loads them: duplicates dropped, names upper-cased, unknown fields kept', () => {
    const g = parseVhGraph(
      {
        nodes: [node(1, { properties: ['grabbable', 'Can_Open'], states: ['closed'], colour: 'red' }), node(2), node(1, { class_name: 'other' })],
        edges: [
          { from_id: 1, relation_type: 'inside', to_id: 2 },
          { from_id: 1, relation_type: 'INSIDE', to_id: 2, weight: 3 },
          { from_id: 2, relation_type: 'CLOSE', to_id: 1 },
        ],
        scene: 'x',
      },
      'g.json',
    );
    expect(g.nodes.map((n) => [n.id, n.class_name, n.properties, n.states])).toEqual([
      [1, 'thing', ['GRABBABLE', 'CAN_OPEN'], ['CLOSED']],
      [2, 'thing', [], []],
    ]);
    expect(g.nodes[0].colour).toBe('red');
    expect((g as Record<string, unknown>).scene).toBe('x');
    expect(g.edges.map((e) => [e.from_id, e.relation_type, e.to_id])).toEqual([
      [1, 'INSIDE', 2],
      [2, 'CLOSE', 1],
    ]);
  });

  it('missing properties/states default to none; a transform instead of a box is accepted', () => {
    const g = parseVhGraph({ nodes: [{ id: 3, class_name: 'a', category: 'Props', obj_transform: { position: [1, 2, 3], rotation: [0, 0, 0, 1], scale: [1, 1, 1] } }], edges: [] }, 'g');
    expect(g.nodes[0]).toMatchObject({ properties: [], states: [], obj_transform: { position: [1, 2, 3] } });
  });

  it('bad graphs are one-line errors naming the file and field', () => {
    expect(() => parseVhGraph({ nodes: [node(1, { properties: ['FLYING'] })], edges: [] }, 'g.json')).toThrow(/^g\.json: not a VirtualHome graph \(nodes\.0\.properties\.0: /);
    expect(() => parseVhGraph({ nodes: [node(1, { states: ['BROKEN'] })], edges: [] }, 'g.json')).toThrow(/nodes\.0\.states\.0/);
    expect(() => parseVhGraph({ nodes: [node(1)], edges: [{ from_id: 1, relation_type: 'NEAR', to_id: 1 }] }, 'g.json')).toThrow(/edges\.0\.relation_type/);
    expect(() => parseVhGraph({ nodes: [node(1)], edges: [{ from_id: 1, relation_type: 'ON', to_id: 9 }] }, 'g.json')).toThrow('g.json: edges.0 names node 9, which is not in the graph');
    expect(() => parseVhGraph({ nodes: [{ id: 'a' }], edges: [] }, 'g.json')).toThrow(GsrError);
    expect(() => parseVhGraph([], 'g.json')).toThrow(/root/);
  });

  it('write then read gives the same graph; the write is atomic (no temp file left)', async () => {
    const g = parseVhGraph({ nodes: [node(1, { extra: { a: 1 } }), node(2)], edges: [{ from_id: 1, relation_type: 'ON', to_id: 2 }], meta: 'kept' }, 'g');
    const path = join(dir, 'out', 'graph.json');
    await writeVhGraph(path, g);
    expect(await readVhGraph(path)).toEqual(g);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(g);
    expect(readdirSync(join(dir, 'out'))).toEqual(['graph.json']);
    await writeVhGraph(path, { nodes: [], edges: [] });
    expect(await readVhGraph(path)).toEqual({ nodes: [], edges: [] });
  });

  it('unreadable files are one-line errors', async () => {
    await expect(readVhGraph(join(dir, 'none.json'))).rejects.toThrow(`file not found: ${join(dir, 'none.json')}`);
    writeFileSync(join(dir, 'bad.json'), '{"nodes": [');
    await expect(readVhGraph(join(dir, 'bad.json'))).rejects.toThrow(/bad\.json: malformed JSON/);
  });
});
