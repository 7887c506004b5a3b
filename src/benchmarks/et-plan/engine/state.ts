/**
 * Copy-on-write engine states. A state is the shared base graph plus an overlay: replaced neighbour
 * lists by (node, relation, direction), replaced node states, and the grab memory (what `putobjback`
 * puts back where). Deriving a state copies the overlay's top level and the parts it writes, never
 * the base graph, so search can keep thousands of states.
 */
import { VH_RELATIONS, type VhRelation } from '../../../formats/vh-graph.js';
import { EMPTY, EngineGraph, IN, OUT, REL, slot, lowerBound, sortedIndex, type EngineNode, type RelCode } from './graph.js';

/** Where `putobjback` returns a grabbed object: the node it was taken from and the relation. */
export type Anchor = readonly [id: number, relation: 'ON' | 'INSIDE' | 'CLOSE'];

/** Read access shared by states and drafts. */
export abstract class GraphView {
  constructor(readonly graph: EngineGraph) {}

  /** The neighbour list under an index key (see graph.ts `slot`). */
  protected abstract list(key: number): readonly number[];
  /** The node's states in this state. */
  abstract states(id: number): readonly string[];
  abstract anchorOf(id: number): Anchor | undefined;

  /** Targets of `id REL *`, ascending ids. */
  out(id: number, rel: RelCode): readonly number[] {
    return this.list(slot(id, rel, OUT));
  }

  /** Sources of `* REL id`, ascending ids. */
  in(id: number, rel: RelCode): readonly number[] {
    return this.list(slot(id, rel, IN));
  }

  has(from: number, rel: RelCode, to: number): boolean {
    return sortedIndex(this.list(slot(from, rel, OUT)), to) >= 0;
  }

  hasState(id: number, s: string): boolean {
    return this.states(id).includes(s);
  }

  node(id: number): EngineNode | undefined {
    return this.graph.nodes.get(id);
  }

  get characterId(): number {
    return this.graph.characterId;
  }
}

const EMPTY_ANCHORS: ReadonlyMap<number, Anchor> = new Map();

/**
 * Replaced neighbour lists, as a two-level table over index keys: chunks of CHUNK keys (8 nodes),
 * undefined where nothing changed. Deriving a state copies the top level and the chunks it writes.
 */
type Overlay = readonly (readonly (readonly number[] | undefined)[] | undefined)[];
const CHUNK_BITS = 7;
const CHUNK = 1 << CHUNK_BITS;

/** An immutable engine state. */
export class EngineState extends GraphView {
  /** @internal */
  constructor(
    graph: EngineGraph,
    /** @internal */ readonly adj: Overlay,
    /** @internal */ readonly nodeStates: ReadonlyMap<number, readonly string[]>,
    /** @internal */ readonly anchors: ReadonlyMap<number, Anchor>,
  ) {
    super(graph);
  }

  /** The state of a freshly loaded graph. */
  static initial(graph: EngineGraph): EngineState {
    return new EngineState(graph, new Array<undefined>((((graph.maxId + 1) * 16) >> CHUNK_BITS) + 1).fill(undefined), new Map(), EMPTY_ANCHORS);
  }

  protected list(key: number): readonly number[] {
    return this.adj[key >>> CHUNK_BITS]?.[key & (CHUNK - 1)] ?? this.graph.baseList(key);
  }

  states(id: number): readonly string[] {
    return this.nodeStates.get(id) ?? this.graph.nodes.get(id)?.states ?? [];
  }

  anchorOf(id: number): Anchor | undefined {
    return this.anchors.get(id);
  }

  /** A draft to derive the next state from. */
  edit(): Draft {
    return new Draft(this);
  }

  /** @internal The (key, list) pairs this state replaces, outgoing lists only, by key. */
  *changedLists(): Generator<[number, readonly number[]]> {
    for (let c = 0; c < this.adj.length; c++) {
      const chunk = this.adj[c];
      if (chunk === undefined) continue;
      for (let i = OUT; i < CHUNK; i += 2) {
        const l = chunk[i];
        if (l !== undefined) yield [(c << CHUNK_BITS) + i, l];
      }
    }
  }

  /** Every edge as [from, relation, to], in no particular order. */
  *edges(): Generator<[number, VhRelation, number]> {
    for (const [from, rel, to] of this.graph.edges()) {
      const key = slot(from, REL[rel], OUT);
      if (this.adj[key >>> CHUNK_BITS]?.[key & (CHUNK - 1)] === undefined) yield [from, rel, to];
    }
    for (const [key, l] of this.changedLists()) {
      const rel = VH_RELATIONS[(key % 16) >> 1];
      const from = Math.floor(key / 16);
      for (const to of l) yield [from, rel, to];
    }
  }

  /**
   * A string equal for two states of one graph exactly when their edges, node states and grab
   * memory are equal (for visited sets in search).
   */
  fingerprint(): string {
    const parts: string[] = [];
    for (const [key, l] of this.changedLists()) parts.push(`${key}:${l.join(',')}`);
    parts.push('|');
    for (const id of [...this.nodeStates.keys()].sort((a, b) => a - b)) parts.push(`${id}:${[...this.nodeStates.get(id)!].sort().join(',')}`);
    parts.push('|');
    for (const id of [...this.anchors.keys()].sort((a, b) => a - b)) parts.push(`${id}:${this.anchors.get(id)!.join(',')}`);
    return parts.join(';');
  }
}

const RELS_BY_NAME = [...VH_RELATIONS].sort();

const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((v, i) => v === b[i]);
const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v) => b.includes(v));

/** A state being derived: writes go to copies of the overlay's top level and of the chunks written, made on first write. */
export class Draft extends GraphView {
  private adj: (readonly number[] | undefined)[][] | undefined;
  private nodeStates: Map<number, readonly string[]> | undefined;
  private anchors: Map<number, Anchor> | undefined;
  /** Chunks this draft copied. */
  private readonly ownedChunks = new Set<number>();
  /** Keys whose list this draft copied (and may change in place). */
  private readonly owned = new Set<number>();
  /** Keys this draft emptied. */
  private readonly cleared = new Set<number>();

  constructor(readonly from: EngineState) {
    super(from.graph);
  }

  protected list(key: number): readonly number[] {
    return (this.adj ?? this.from.adj)[key >>> CHUNK_BITS]?.[key & (CHUNK - 1)] ?? this.graph.baseList(key);
  }

  states(id: number): readonly string[] {
    return (this.nodeStates ?? this.from.nodeStates).get(id) ?? this.graph.nodes.get(id)?.states ?? [];
  }

  anchorOf(id: number): Anchor | undefined {
    return (this.anchors ?? this.from.anchors).get(id);
  }

  /** Sets the list under `key` in this draft's own copy of the overlay. */
  private setList(key: number, l: readonly number[] | undefined): void {
    const adj = (this.adj ??= this.from.adj.slice() as (readonly number[] | undefined)[][]);
    const c = key >>> CHUNK_BITS;
    if (!this.ownedChunks.has(c)) {
      adj[c] = adj[c]?.slice() ?? new Array<undefined>(CHUNK).fill(undefined);
      this.ownedChunks.add(c);
    }
    adj[c][key & (CHUNK - 1)] = l;
  }

  /** The list under `key` as an array this draft owns (copied on first write). */
  private mutable(key: number): number[] {
    const l = this.list(key);
    if (this.owned.has(key)) return l as number[];
    const copy = l.slice();
    this.setList(key, copy);
    this.owned.add(key);
    return copy;
  }

  private insert(key: number, v: number): boolean {
    const l = this.list(key);
    const i = lowerBound(l, v);
    if (l[i] === v) return false;
    this.mutable(key).splice(i, 0, v);
    return true;
  }

  private delete(key: number, v: number): boolean {
    const i = sortedIndex(this.list(key), v);
    if (i < 0) return false;
    this.mutable(key).splice(i, 1);
    return true;
  }

  private clear(key: number): void {
    if (this.list(key).length === 0) return;
    this.setList(key, EMPTY);
    this.owned.delete(key);
    this.cleared.add(key);
  }

  /** Adds `from REL to` (nothing when it exists). */
  add(from: number, rel: RelCode, to: number): void {
    if (this.insert(slot(from, rel, OUT), to)) this.insert(slot(to, rel, IN), from);
  }

  /** Adds `a REL b` and `b REL a`. */
  addBoth(a: number, rel: RelCode, b: number): void {
    this.add(a, rel, b);
    this.add(b, rel, a);
  }

  /** Removes `from REL to` (nothing when it is absent). */
  remove(from: number, rel: RelCode, to: number): void {
    if (this.delete(slot(from, rel, OUT), to)) this.delete(slot(to, rel, IN), from);
  }

  /** Removes every `id REL *` and `* REL id` edge. */
  detach(id: number, rel: RelCode): void {
    this.removeOut(id, rel);
    const key = slot(id, rel, IN);
    for (const from of this.list(key)) this.delete(slot(from, rel, OUT), id);
    this.clear(key);
  }

  /** Removes every `id REL *` edge. */
  removeOut(id: number, rel: RelCode): void {
    const key = slot(id, rel, OUT);
    for (const to of this.list(key)) this.delete(slot(to, rel, IN), id);
    this.clear(key);
  }

  /** Replaces a node's states (as a set: the order is kept, duplicates dropped). */
  setStates(id: number, states: readonly string[]): void {
    this.nodeStates ??= new Map(this.from.nodeStates);
    this.nodeStates.set(id, [...new Set(states)]);
  }

  /** Removes `drop` from a node's states and adds `add`. */
  changeStates(id: number, drop: readonly string[], add: readonly string[]): void {
    const now = this.states(id);
    this.setStates(id, [...now.filter((s) => !drop.includes(s)), ...add]);
  }

  setAnchor(id: number, anchor: Anchor | undefined): void {
    const cur = this.anchors ?? this.from.anchors;
    if (anchor === undefined && !cur.has(id)) return;
    this.anchors ??= new Map(this.from.anchors);
    if (anchor === undefined) this.anchors.delete(id);
    else this.anchors.set(id, anchor);
  }

  /** The derived state. Lists and node states equal to the base graph are dropped, so equal states share one fingerprint. */
  finish(): EngineState {
    const adj = this.adj;
    if (adj !== undefined) {
      for (const keys of [this.owned, this.cleared]) {
        for (const key of keys) {
          const chunk = adj[key >>> CHUNK_BITS];
          const l = chunk[key & (CHUNK - 1)];
          if (l !== undefined && sameList(l, this.graph.baseList(key))) chunk[key & (CHUNK - 1)] = undefined;
        }
      }
    }
    const ns = this.nodeStates;
    if (ns !== undefined) {
      for (const [id, s] of ns) if (sameSet(s, this.graph.nodes.get(id)?.states ?? [])) ns.delete(id);
    }
    return new EngineState(this.graph, adj ?? this.from.adj, ns ?? this.from.nodeStates, this.anchors ?? this.from.anchors);
  }
}

/** Edge and state changes from `a` to `b` (two states of one graph). */
export interface StateDiff {
  /** Edges in `b` and not in `a`, as [from, relation, to], sorted by from, relation name, to. */
  added: [number, VhRelation, number][];
  removed: [number, VhRelation, number][];
  /** Nodes whose states differ: id → [before, after], each sorted. */
  states: Map<number, [string[], string[]]>;
}

/** What changed between two states (cost: the size of their overlays). */
export function diffStates(a: EngineState, b: EngineState): StateDiff {
  const added: [number, VhRelation, number][] = [];
  const removed: [number, VhRelation, number][] = [];
  // Chunks and lists the two states share are skipped by identity; keys are visited by node, then
  // relation name, so the lists come out sorted.
  const chunks = Math.max(a.adj.length, b.adj.length);
  for (let c = 0; c < chunks; c++) {
    const ca = a.adj[c];
    const cb = b.adj[c];
    if (ca === cb) continue;
    for (let n = 0; n < CHUNK; n += 16) {
      for (const rel of RELS_BY_NAME) {
        const j = n + REL[rel] * 2 + OUT;
        const la = ca?.[j];
        const lb = cb?.[j];
        if (la === lb) continue;
        const key = (c << CHUNK_BITS) + j;
        const from = ((c << CHUNK_BITS) + n) / 16;
        const xa = la ?? a.graph.baseList(key);
        const xb = lb ?? b.graph.baseList(key);
        // Both lists ascend: one merge pass.
        let i = 0;
        let k = 0;
        while (i < xa.length || k < xb.length) {
          if (k === xb.length || xa[i] < xb[k]) removed.push([from, rel, xa[i++]]);
          else if (i === xa.length || xb[k] < xa[i]) added.push([from, rel, xb[k++]]);
          else {
            i++;
            k++;
          }
        }
      }
    }
  }
  const states = new Map<number, [string[], string[]]>();
  const ids = a.nodeStates === b.nodeStates ? [] : new Set([...a.nodeStates.keys(), ...b.nodeStates.keys()]);
  for (const id of ids) {
    const sa = [...a.states(id)].sort();
    const sb = [...b.states(id)].sort();
    if (!sameList(sa, sb)) states.set(id, [sa, sb]);
  }
  return { added, removed, states };
}

