/**
 * The base graph an engine state overlays: nodes by id and edge indexes by (node, relation,
 * direction), each a list of neighbour ids in ascending order (docs/et-plan.md, "Engine").
 */
import { GsrError } from '../../../util/errors.js';
import { VH_RELATIONS, parseVhGraph, type VhGraph, type VhNode, type VhRelation } from '../../../formats/vh-graph.js';

export type Vec3 = readonly [number, number, number];

/** Relation codes, in VH_RELATIONS order. */
export const REL = { INSIDE: 0, ON: 1, BETWEEN: 2, CLOSE: 3, FACING: 4, HOLDS_RH: 5, HOLDS_LH: 6, SITTING: 7 } as const satisfies Record<VhRelation, number>;
export type RelCode = (typeof REL)[keyof typeof REL];
export const OUT = 0;
export const IN = 1;
export type Dir = typeof OUT | typeof IN;

/**
 * Ids must be below this: per-state overlays and per-graph tables are sized by the largest id
 * (VirtualHome's graphs number their nodes 1..N).
 */
export const MAX_NODE_ID = 2 ** 20;

/** Index key of (node, relation, direction). */
export const slot = (id: number, rel: RelCode, dir: Dir): number => id * 16 + rel * 2 + dir;

export interface EngineNode {
  readonly id: number;
  readonly className: string;
  readonly category: string;
  readonly properties: ReadonlySet<string>;
  /** States in the base graph (a state may replace them). */
  readonly states: readonly string[];
  readonly isRoom: boolean;
  /** `bounding_box.center`, else `obj_transform.position`, else undefined. */
  readonly center: Vec3 | undefined;
  /** The node as read. */
  readonly raw: VhNode;
}

/** The shared empty neighbour list. */
export const EMPTY: readonly number[] = Object.freeze([]);

/** First position in an ascending list whose value is not below `v`. */
export function lowerBound(list: readonly number[], v: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Position of `v` in an ascending list, or -1. */
export function sortedIndex(list: readonly number[], v: number): number {
  const i = lowerBound(list, v);
  return list[i] === v ? i : -1;
}

/** A loaded, indexed, immutable scene graph. */
export class EngineGraph {
  /** Nodes by id. */
  readonly nodes: ReadonlyMap<number, EngineNode>;
  /** Node ids, ascending. */
  readonly ids: readonly number[];
  /** Room ids (category `Rooms`), ascending. */
  readonly rooms: readonly number[];
  /** The character: the smallest-id node of class `character`. */
  readonly characterId: number;
  /** Nodes with the BODY_PART property (a walk makes the character close to them). */
  readonly bodyParts: readonly number[];
  readonly edgeCount: number;
  /** The largest node id. */
  readonly maxId: number;
  /** 1 at the ids of rooms. */
  private readonly roomFlags: Uint8Array;
  /** The graph as read (normalised). */
  readonly source: VhGraph;
  private readonly index: Map<number, readonly number[]>;

  constructor(graph: VhGraph) {
    this.source = graph;
    const nodes = new Map<number, EngineNode>();
    for (const n of graph.nodes) {
      if (n.id >= MAX_NODE_ID) throw new GsrError(`graph node id ${n.id} is too large (the engine takes ids below ${MAX_NODE_ID})`);
      const center = n.bounding_box?.center ?? n.obj_transform?.position;
      nodes.set(n.id, {
        id: n.id,
        className: n.class_name,
        category: n.category,
        properties: new Set(n.properties),
        states: Object.freeze([...n.states]),
        isRoom: n.category === 'Rooms',
        center: center === undefined ? undefined : [center[0], center[1], center[2]],
        raw: n,
      });
    }
    this.nodes = nodes;
    this.ids = [...nodes.keys()].sort((a, b) => a - b);
    this.maxId = this.ids.length > 0 ? this.ids[this.ids.length - 1] : 0;
    this.rooms = this.ids.filter((id) => nodes.get(id)!.isRoom);
    this.roomFlags = new Uint8Array(this.maxId + 1);
    for (const r of this.rooms) this.roomFlags[r] = 1;
    const characters = this.ids.filter((id) => nodes.get(id)!.className === 'character');
    if (characters.length === 0) throw new GsrError('graph has no node of class "character"');
    this.characterId = characters[0];
    this.bodyParts = this.ids.filter((id) => nodes.get(id)!.properties.has('BODY_PART'));
    const lists = new Map<number, number[]>();
    const push = (key: number, v: number) => {
      const l = lists.get(key);
      if (l === undefined) lists.set(key, [v]);
      else l.push(v);
    };
    for (const e of graph.edges) {
      if (!nodes.has(e.from_id) || !nodes.has(e.to_id)) throw new GsrError(`graph edge ${e.from_id} ${e.relation_type} ${e.to_id} names a missing node`);
      const rel = REL[e.relation_type];
      push(slot(e.from_id, rel, OUT), e.to_id);
      push(slot(e.to_id, rel, IN), e.from_id);
    }
    this.index = new Map();
    let count = 0;
    for (const [key, l] of lists) {
      const sorted = [...new Set(l)].sort((a, b) => a - b);
      if ((key & 1) === OUT) count += sorted.length;
      this.index.set(key, sorted);
    }
    this.edgeCount = count;
  }

  /** Loads a graph from parsed JSON (checked and normalised as formats/vh-graph.ts reads files). */
  static fromJson(value: unknown, source = 'graph'): EngineGraph {
    return new EngineGraph(parseVhGraph(value, source));
  }

  node(id: number): EngineNode | undefined {
    return this.nodes.get(id);
  }

  /** True for a room (category `Rooms`). */
  isRoom(id: number): boolean {
    return this.roomFlags[id] === 1;
  }

  /** Base-graph neighbours of `id` along `rel` in direction `dir`, ascending. */
  baseList(key: number): readonly number[] {
    return this.index.get(key) ?? EMPTY;
  }

  /** Every base edge as [from, relation, to]. */
  *edges(): Generator<[number, VhRelation, number]> {
    for (const [key, l] of this.index) {
      if ((key & 1) !== OUT) continue;
      const from = Math.floor(key / 16);
      const rel = VH_RELATIONS[(key % 16) >> 1];
      for (const to of l) yield [from, rel, to];
    }
  }
}
