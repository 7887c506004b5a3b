/**
 * Task generation for every ET-Plan-Bench family (docs/et-plan.md, "Tasks"), on one apartment at a
 * time. Pure: a loaded graph, a family, a count and a seed give the same tasks every time.
 *
 * For each family, candidate class combinations are drawn from the scene graph (the paper's
 * "gathering environment information"), instances are chosen the way the released generators choose
 * them, and a candidate becomes a task only when its ground-truth plan and its oracle plan execute in
 * the engine and the completion monitor reports the criteria met (the paper's post-filtering).
 */
import { Rng } from '../../util/random.js';
import { EngineGraph, EngineState, REL, nodePosition, segmentLength, walkDistance, type RelCode, type Vec3 } from './engine/index.js';
import { CLASSES, classLabel, holdersOf } from './classes.js';
import { advanceCriteria, startProgress } from './monitor.js';
import { PlanBuilder, deepestInstance, runPlan, searchOracle, startState, walkTargets, type OracleOp, type PutRelation } from './plans.js';
import { ET_PLAN_FAMILIES, type Criterion, type EtPlanFamily, type EtPlanItem, type EtPlanSubset, type NodeRef } from './task.js';
import { RELATION_WORDS, TEMPLATES, fillTemplate } from './templates.js';
import { OCCLUSION, percentile } from './occlusion.js';

export { OCCLUSION, percentile };

/** Categories that are not things to find or move. */
const STRUCTURAL = new Set(['Rooms', 'Floor', 'Floors', 'Walls', 'Ceiling', 'Doors', 'Windows', 'Characters']);

/** Step caps of the released evaluation code (README of the VirtualHome material, section 5). */
export function stepCap(family: EtPlanFamily, rel: PutRelation | undefined): number {
  if (family === 'navigation' || family === 'navigation-spatial') return 20;
  if (family === 'manipulation' || family === 'manipulation-spatial') return 40;
  if (family === 'temporal') return 75;
  return rel === 'ON' ? 50 : 75;
}

type SpatialRelation = 'ON' | 'INSIDE' | 'CLOSE' | 'FACING';

/**
 * The task mix: `project` (ON, INSIDE and CLOSE constraints, any order; the object alone constrained)
 * or `released` (as the released task files: INSIDE a room, ON, FACING and INSIDE a thing in their
 * proportions, and manipulation-spatial tasks that constrain the destination too).
 */
export const TASK_MIXES = ['project', 'released'] as const;
export type TaskMix = (typeof TASK_MIXES)[number];

/** Kinds of constraint the released mix balances: INSIDE a room, ON, FACING, INSIDE a thing. */
type ConstraintKind = 'room' | 'ON' | 'FACING' | 'INSIDE';

/**
 * The released files' counts of each kind (navigation_tasks_with_spatial_constraint: 557 tasks;
 * navigation_and_manipulation_tasks_with_spatial_constraint: 199 tasks, object and destination).
 */
export const RELEASED_CONSTRAINT_MIX: Readonly<Record<'navigation' | 'object' | 'destination', Readonly<Record<ConstraintKind, number>>>> = {
  navigation: { room: 310, ON: 181, FACING: 46, INSIDE: 20 },
  object: { room: 105, ON: 61, FACING: 21, INSIDE: 12 },
  destination: { room: 128, ON: 50, FACING: 17, INSIDE: 4 },
};

/** What one apartment offers the generators. */
export class Scene {
  readonly start: EngineState;
  /** Ids of things to find or move, by class (ascending). */
  readonly byClass = new Map<string, number[]>();

  constructor(
    readonly graph: EngineGraph,
    /** The apartment's file, relative to the item set's folder. */
    readonly file: string,
    /** Its name in item ids. */
    readonly name: string,
  ) {
    this.start = EngineState.initial(graph);
    for (const id of graph.ids) {
      const n = graph.node(id)!;
      if (STRUCTURAL.has(n.category) || n.properties.has('BODY_PART')) continue;
      if (!this.byClass.has(n.className)) this.byClass.set(n.className, []);
      this.byClass.get(n.className)!.push(id);
    }
  }

  ref(id: number): NodeRef {
    return { id, class: this.graph.node(id)!.className };
  }

  has(id: number, prop: string): boolean {
    return this.graph.node(id)!.properties.has(prop);
  }

  /** How a thing is put on or in `id` as a destination: CONTAINERS or RECIPIENT in, SURFACES on. */
  putRelation(id: number): PutRelation | null {
    if (this.has(id, 'CONTAINERS')) return 'INSIDE';
    if (this.has(id, 'SURFACES')) return 'ON';
    if (this.has(id, 'RECIPIENT')) return 'INSIDE';
    return null;
  }

  /** Instances of a class that `keep` accepts. */
  instances(cls: string, keep: (id: number) => boolean = () => true): number[] {
    return (this.byClass.get(cls) ?? []).filter(keep);
  }

  /** Whether `from REL to` holds at the start. */
  holds(from: number, rel: RelCode, to: number): boolean {
    return this.start.has(from, rel, to);
  }
}

/** A plausible destination for a class: one the class table lets it lie on or in; any for classes outside the table. */
function plausible(x: string, y: string): boolean {
  const h = holdersOf(x);
  return !CLASSES.has(x) || (h.on.length === 0 && h.in.length === 0) || h.on.includes(y) || h.in.includes(y);
}

const shuffle = <T>(rng: Rng, xs: T[]): T[] => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
};

function* mapIter<T, U>(xs: Iterable<T>, f: (x: T) => U): Generator<U> {
  for (const x of xs) yield f(x);
}

const REL_CODE: Record<SpatialRelation, RelCode> = { ON: REL.ON, INSIDE: REL.INSIDE, CLOSE: REL.CLOSE, FACING: REL.FACING };

/** A spatial constraint on a class: its instances that are REL some instance of the anchor class. */
interface Constraint {
  cls: string;
  rel: SpatialRelation;
  anchorCls: string;
  /** The constrained instances. */
  ids: number[];
  /** 0 when the class has several instances and the constraint picks some of them, else 1. */
  tier: number;
  /** Its kind in the released mix: INSIDE a room, ON, FACING or INSIDE a thing. */
  kind: ConstraintKind;
}

/**
 * Spatial constraints that hold at the start, for the classes `keep` accepts: ON, INSIDE (a container
 * or a room) and CLOSE (project mix), or ON, INSIDE and FACING (released mix: the released files use
 * no CLOSE constraint; FACING anchors are what a thing faces, a TV or a computer).
 */
function constraints(scene: Scene, keep: (id: number) => boolean, mix: TaskMix = 'project'): Constraint[] {
  const g = scene.graph;
  const byKey = new Map<string, Constraint>();
  for (const [cls, ids] of scene.byClass) {
    for (const x of ids) {
      if (!keep(x)) continue;
      const anchors: [SpatialRelation, number][] = [
        ...scene.start.out(x, REL.INSIDE).map((a) => ['INSIDE', a] as [SpatialRelation, number]),
        ...scene.start.out(x, REL.ON).map((a) => ['ON', a] as [SpatialRelation, number]),
        ...(mix === 'released'
          ? scene.start.out(x, REL.FACING).filter((a) => !g.isRoom(a)).map((a) => ['FACING', a] as [SpatialRelation, number])
          // "Next to" anchors are pieces of furniture, not other small things.
          : scene.start.out(x, REL.CLOSE).filter((a) => scene.byClass.has(g.node(a)!.className) && !scene.has(a, 'GRABBABLE')).map((a) => ['CLOSE', a] as [SpatialRelation, number])),
      ];
      for (const [rel, a] of anchors) {
        const anchorCls = g.node(a)!.className;
        if (anchorCls === cls) continue;
        const key = `${cls} ${rel} ${anchorCls}`;
        if (!byKey.has(key)) byKey.set(key, { cls, rel, anchorCls, ids: [], tier: 1, kind: rel === 'INSIDE' ? (g.isRoom(a) ? 'room' : 'INSIDE') : rel === 'CLOSE' ? 'ON' : rel });
        const c = byKey.get(key)!;
        if (!c.ids.includes(x)) c.ids.push(x);
      }
    }
  }
  const out = [...byKey.values()];
  for (const c of out) c.tier = scene.instances(c.cls, keep).length >= 2 && c.ids.length < scene.instances(c.cls, keep).length ? 0 : 1;
  return out;
}

/** The smallest-id anchor instance (rooms included) that `x` is REL to. */
function anchorOf(scene: Scene, x: number, c: Constraint): number {
  const rel = REL_CODE[c.rel];
  return scene.graph.ids.find((a) => scene.graph.node(a)!.className === c.anchorCls && scene.holds(x, rel, a))!;
}

/** One task before its plans: the family's objects, criteria and wording. */
interface Draft {
  family: EtPlanFamily;
  level: string;
  /** Task objects: ground-truth instance and every instance that counts, in criterion order. */
  vars: { gt: number; domain: number[] }[];
  criteria: Criterion[][];
  targets: number[];
  constraint?: { relation: SpatialRelation; anchor: number };
  /** The destination's constraint (released mix, manipulation-spatial). */
  destinationConstraint?: { relation: SpatialRelation; anchor: number };
  /** The constraint kinds, tallied when the task is kept (released mix). */
  kinds?: { object?: ConstraintKind; destination?: ConstraintKind };
  arms: 1 | 2;
  stepCap: number;
  phrasings: string[];
  groundTruth: (b: PlanBuilder) => void;
  orders: OracleOp[][];
}

const crit = (scene: Scene, relation: Criterion['relation'], from: number | 'character', to: number): Criterion => ({
  relation,
  from: from === 'character' ? 'character' : scene.ref(from),
  to: scene.ref(to),
});

/** The templates of a family filled in. */
function phrase(family: EtPlanFamily, labels: Record<string, string>, rel?: SpatialRelation, to: Record<string, PutRelation> = {}): string[] {
  return TEMPLATES[family].map((t) => fillTemplate(t, labels, rel, to));
}

/** Every order of fetching objects 0..n-1 and putting each into `dest`, fetch before put, at most `arms` held. */
function carryOrders(n: number, dest: number, rel: PutRelation, arms: 1 | 2, openDest: boolean): OracleOp[][] {
  const out: OracleOp[][] = [];
  const rec = (seq: OracleOp[], fetched: number[], put: number[]) => {
    if (put.length === n) {
      out.push(seq);
      return;
    }
    for (let v = 0; v < n; v++) {
      if (!fetched.includes(v) && fetched.length - put.length < arms) rec([...seq, { kind: 'fetch', v }], [...fetched, v], put);
      if (fetched.includes(v) && !put.includes(v)) rec([...seq, { kind: 'put', v, to: dest, rel }], fetched, [...put, v]);
    }
  };
  rec([], [], []);
  if (!openDest) return out;
  // Opening the destination ahead of time (before the first put) can save a trip with full hands.
  const withOpen = out.flatMap((seq) => {
    const firstPut = seq.findIndex((o) => o.kind === 'put');
    return Array.from({ length: firstPut + 1 }, (_, i) => [...seq.slice(0, i), { kind: 'open', v: dest } as OracleOp, ...seq.slice(i)]);
  });
  return [...out, ...withOpen];
}

/** Constraint kinds of the tasks kept so far (the released mix balances against them). */
export interface KindTally {
  object: Map<ConstraintKind, number>;
  destination: Map<ConstraintKind, number>;
}

const KINDS: readonly ConstraintKind[] = ['room', 'ON', 'FACING', 'INSIDE'];

/**
 * Kinds in the order to try next: those furthest below their share of the kept tasks first (weight
 * share times kept + 1, less kept of that kind), then in KINDS order.
 */
function kindOrder(weights: Readonly<Record<ConstraintKind, number>>, kept: ReadonlyMap<ConstraintKind, number>): ConstraintKind[] {
  const total = KINDS.reduce((n, k) => n + (kept.get(k) ?? 0), 0);
  const w = KINDS.reduce((n, k) => n + weights[k], 0);
  const gap = (k: ConstraintKind) => (weights[k] / w) * (total + 1) - (kept.get(k) ?? 0);
  return KINDS.filter((k) => weights[k] > 0).sort((a, b) => gap(b) - gap(a) || KINDS.indexOf(a) - KINDS.indexOf(b));
}

/** Constraints drawn kind by kind (kindOrder), each kind's in tiered order, until all are used. */
function* balanced(rng: Rng, cs: Constraint[], weights: Readonly<Record<ConstraintKind, number>>, kept: ReadonlyMap<ConstraintKind, number>): Generator<Constraint> {
  const queues = new Map(KINDS.map((k) => [k, tiered(rng, cs.filter((c) => c.kind === k))]));
  for (;;) {
    const k = kindOrder(weights, kept).find((kind) => queues.get(kind)!.length > 0);
    if (k === undefined) return;
    yield queues.get(k)!.shift()!;
  }
}

/** Candidate drafts of a family, best first, lazily. */
function* drafts(scene: Scene, family: EtPlanFamily, rng: Rng, mix: TaskMix = 'project', tally: KindTally = { object: new Map(), destination: new Map() }): Generator<Draft | null> {
  const grabbable = (id: number) => scene.has(id, 'GRABBABLE');
  const destination = (id: number) => !grabbable(id) && scene.putRelation(id) !== null;
  const vessel = (id: number) => grabbable(id) && scene.putRelation(id) !== null;
  const classes = (keep: (id: number) => boolean) => [...scene.byClass.keys()].filter((c) => scene.instances(c, keep).length > 0).sort();
  const label = classLabel;
  /** Destination instances of a class (it has some) put to like its deepest one. */
  const destDomain = (cls: string, keep: (id: number) => boolean): { gt: number; rel: PutRelation; domain: number[] } => {
    const all = scene.instances(cls, keep);
    const gt = deepestInstance(scene.start, all);
    const rel = scene.putRelation(gt)!;
    return { gt, rel, domain: all.filter((id) => scene.putRelation(id) === rel) };
  };
  /** Objects of a class not already REL any of `dests` (the task must not be done at the start). */
  const notDone = (ids: number[], rel: PutRelation, dests: number[]) => ids.filter((x) => !dests.some((y) => scene.holds(x, REL[rel], y)));

  if (family === 'navigation' || family === 'navigation-spatial') {
    const spatial = family === 'navigation-spatial';
    const options: Iterable<{ cls: string; c?: Constraint }> = !spatial
      ? shuffle(rng, classes(() => true)).map((cls) => ({ cls }))
      : mix === 'released'
        ? mapIter(balanced(rng, constraints(scene, () => true, mix), RELEASED_CONSTRAINT_MIX.navigation, tally.object), (c) => ({ cls: c.cls, c }))
        : tiered(rng, constraints(scene, () => true)).map((c) => ({ cls: c.cls, c }));
    for (const { cls, c } of options) {
      const domain = c ? c.ids : scene.instances(cls);
      const x = deepestInstance(scene.start, domain);
      const anchor = c ? anchorOf(scene, x, c) : undefined;
      const labels = { x: label(cls), ...(c ? { a: label(c.anchorCls) } : {}) };
      yield {
        family,
        level: c ? c.rel.toLowerCase() : '',
        vars: [{ gt: x, domain }],
        criteria: [[crit(scene, 'CLOSE', 'character', x)]],
        targets: anchor === undefined ? [x] : [x, anchor],
        ...(c && anchor !== undefined ? { constraint: { relation: c.rel, anchor } } : {}),
        ...(c ? { kinds: { object: c.kind } } : {}),
        arms: 1,
        stepCap: stepCap(family, undefined),
        phrasings: phrase(family, labels, c?.rel),
        // The released ground truth grabs a grabbable target even when only closeness is asked.
        groundTruth: (b) => {
          b.approach(x);
          if (grabbable(x)) b.grab(x);
        },
        orders: [[{ kind: 'reach', v: 0 }]],
      };
    }
    return;
  }

  if (family === 'manipulation' || family === 'manipulation-spatial') {
    const spatial = family === 'manipulation-spatial';
    const dests = classes(destination);
    const released = spatial && mix === 'released';
    const sources: Iterable<{ cls: string; c?: Constraint }> = !spatial
      ? shuffle(rng, classes(grabbable)).map((cls) => ({ cls }))
      : released
        ? mapIter(balanced(rng, constraints(scene, grabbable, mix), RELEASED_CONSTRAINT_MIX.object, tally.object), (c) => ({ cls: c.cls, c }))
        : tiered(rng, constraints(scene, grabbable)).map((c) => ({ cls: c.cls, c }));
    const destConstraints = released ? constraints(scene, destination, mix) : [];
    for (const { cls, c } of sources) {
      // Released mix: each destination comes with a constraint of the kind furthest below its share.
      const ys: { ycls: string; cy?: Constraint }[] = released
        ? kindOrder(RELEASED_CONSTRAINT_MIX.destination, tally.destination).flatMap((k) => shuffle(rng, destConstraints.filter((cy) => cy.kind === k && cy.cls !== cls && plausible(cls, cy.cls)))).map((cy) => ({ ycls: cy.cls, cy }))
        : shuffle(rng, dests.filter((y) => y !== cls && plausible(cls, y))).map((ycls) => ({ ycls }));
      for (const { ycls, cy } of ys.slice(0, 3)) {
        const d = destDomain(ycls, cy ? (id) => destination(id) && cy.ids.includes(id) : destination);
        const xs = notDone(c ? c.ids : scene.instances(cls, grabbable), d.rel, d.domain);
        if (xs.length === 0) {
          yield null;
          continue;
        }
        const x = deepestInstance(scene.start, xs);
        const anchor = c ? anchorOf(scene, x, c) : undefined;
        const yAnchor = cy ? anchorOf(scene, d.gt, cy) : undefined;
        const yLabel = cy ? `${label(ycls)} ${RELATION_WORDS.rel[cy.rel]} ${label(cy.anchorCls)}` : label(ycls);
        const labels = { x: label(cls), y: yLabel, ...(c ? { a: label(c.anchorCls) } : {}) };
        yield {
          family,
          level: c ? c.rel.toLowerCase() : d.rel.toLowerCase(),
          vars: [{ gt: x, domain: xs }, { gt: d.gt, domain: d.domain }],
          criteria: [[crit(scene, d.rel, x, d.gt), crit(scene, 'CLOSE', 'character', d.gt)]],
          targets: [x, d.gt, ...(anchor === undefined ? [] : [anchor]), ...(yAnchor === undefined ? [] : [yAnchor])],
          ...(c && anchor !== undefined ? { constraint: { relation: c.rel, anchor } } : {}),
          ...(cy && yAnchor !== undefined ? { destinationConstraint: { relation: cy.rel, anchor: yAnchor } } : {}),
          ...(c ? { kinds: { object: c.kind, ...(cy ? { destination: cy.kind } : {}) } } : {}),
          arms: 1,
          stepCap: stepCap(family, d.rel),
          phrasings: phrase(family, labels, c?.rel, { y: d.rel }),
          groundTruth: (b) => {
            b.approach(x);
            b.grab(x);
            b.approach(d.gt);
            b.deliver(x, d.gt, d.rel);
          },
          orders: [[{ kind: 'fetch', v: 0 }, { kind: 'put', v: 0, to: 1, rel: d.rel }]],
        };
      }
    }
    return;
  }

  if (family === 'temporal') {
    const dests = classes(destination);
    const vessels = classes(vessel);
    const triples: [string, string, string][] = [];
    for (const xcls of classes(grabbable)) {
      for (const bcls of vessels) {
        if (bcls === xcls || !plausible(xcls, bcls)) continue;
        for (const dcls of dests) if (plausible(bcls, dcls)) triples.push([xcls, bcls, dcls]);
      }
    }
    for (const [xcls, bcls, dcls] of shuffle(rng, triples)) {
      const bd = destDomain(bcls, vessel);
      const dd = destDomain(dcls, destination);
      const bs = notDone(bd.domain, dd.rel, dd.domain);
      const xs = notDone(scene.instances(xcls, grabbable), bd.rel, bs);
      if (bs.length === 0 || xs.length === 0) {
        yield null;
        continue;
      }
      const x = deepestInstance(scene.start, xs);
      const b = bs.includes(bd.gt) ? bd.gt : deepestInstance(scene.start, bs);
      const d = dd.gt;
      yield {
        family,
        level: dd.rel.toLowerCase(),
        vars: [{ gt: x, domain: xs }, { gt: b, domain: bs }, { gt: d, domain: dd.domain }],
        criteria: [
          [crit(scene, bd.rel, x, b), crit(scene, 'CLOSE', 'character', b)],
          [crit(scene, dd.rel, b, d), crit(scene, 'CLOSE', 'character', d)],
        ],
        targets: [x, b, d],
        arms: 1,
        stepCap: stepCap(family, dd.rel),
        phrasings: phrase(family, { x: label(xcls), b: label(bcls), d: label(dcls) }, undefined, { b: bd.rel, d: dd.rel }),
        groundTruth: (pb) => {
          pb.approach(x);
          pb.grab(x);
          pb.approach(b);
          pb.deliver(x, b, bd.rel);
          pb.grab(b);
          pb.approach(d);
          pb.deliver(b, d, dd.rel);
        },
        orders: [0, 1, 2].map((at) => {
          const base: OracleOp[] = [{ kind: 'fetch', v: 0 }, { kind: 'put', v: 0, to: 1, rel: bd.rel }, { kind: 'fetch', v: 1 }, { kind: 'put', v: 1, to: 2, rel: dd.rel }];
          // The vessel's closed container opened before, between or (at 2: when fetched) after the first put.
          return at === 2 ? base : [...base.slice(0, at), { kind: 'prep', v: 1 } as OracleOp, ...base.slice(at)];
        }),
      };
    }
    return;
  }

  // Two objects, one destination.
  const arms: 1 | 2 = family === 'multi-two-arm' ? 2 : 1;
  const dests = classes(destination);
  const things = classes(grabbable);
  const triples: [string, string, string][] = [];
  for (const ycls of dests) {
    const xs = things.filter((x) => x !== ycls && plausible(x, ycls));
    for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) triples.push([xs[i], xs[j], ycls]);
  }
  for (const [c1, c2, ycls] of shuffle(rng, triples)) {
    const [x1cls, x2cls] = rng.chance(0.5) ? [c1, c2] : [c2, c1];
    const d = destDomain(ycls, destination);
    const xs1 = notDone(scene.instances(x1cls, grabbable), d.rel, d.domain);
    const xs2 = notDone(scene.instances(x2cls, grabbable), d.rel, d.domain);
    if (xs1.length === 0 || xs2.length === 0) {
      yield null;
      continue;
    }
    const x1 = deepestInstance(scene.start, xs1);
    const x2 = deepestInstance(scene.start, xs2);
    const y = d.gt;
    yield {
      family,
      level: d.rel.toLowerCase(),
      vars: [{ gt: x1, domain: xs1 }, { gt: x2, domain: xs2 }, { gt: y, domain: d.domain }],
      criteria: [[crit(scene, d.rel, x1, y), crit(scene, d.rel, x2, y), crit(scene, 'CLOSE', 'character', y)]],
      targets: [x1, x2, y],
      arms,
      stepCap: stepCap(family, d.rel),
      phrasings: phrase(family, { x1: label(x1cls), x2: label(x2cls), y: label(ycls) }, undefined, { y: d.rel }),
      groundTruth:
        arms === 1
          ? (b) => {
              for (const x of [x1, x2]) {
                b.approach(x);
                b.grab(x);
                b.approach(y);
                b.deliver(x, y, d.rel);
              }
            }
          : (b) => {
              // Open the destination first (hands free), fetch both, walk back to it (the released plans skip this walk), put both.
              b.approach(y);
              const opened = d.rel === 'INSIDE' && b.openIfClosed(y);
              b.approach(x1);
              b.grab(x1);
              b.approach(x2);
              b.grab(x2);
              b.approach(y);
              b.do(d.rel === 'INSIDE' ? 'putin' : 'putback', x1, y);
              b.do(d.rel === 'INSIDE' ? 'putin' : 'putback', x2, y);
              if (opened) b.do('close', y);
            },
      orders: carryOrders(2, 2, d.rel, arms, d.rel === 'INSIDE'),
    };
  }
}

/** Constraints that decide first (several instances, some excluded), each tier shuffled. */
function tiered(rng: Rng, cs: Constraint[]): Constraint[] {
  const sorted = [...cs].sort((a, b) => (a.cls + a.rel + a.anchorCls < b.cls + b.rel + b.anchorCls ? -1 : 1));
  return [...shuffle(rng, sorted.filter((c) => c.tier === 0)), ...shuffle(rng, sorted.filter((c) => c.tier === 1))];
}

/** Why a generated candidate was dropped by the executability filter. */
export type DropReason = 'ground-truth-fails' | 'ground-truth-unmet' | 'met-at-start' | 'no-oracle';

export interface FamilyResult {
  items: EtPlanItem[];
  /** Candidates built and checked; generated = kept + dropped. */
  generated: number;
  dropped: Partial<Record<DropReason, number>>;
  /** Class combinations skipped before building: every instance already where the task would put it. */
  skipped: number;
}

/** Distinct candidate tries per family and apartment before giving up (bounds the work on sparse scenes). */
export const MAX_TRIES_PER_TASK = 8;

/**
 * Up to `count` tasks of one family on one apartment. `seed` fixes the candidate order, start rooms
 * and wording. Items carry no subsets yet (occlusionSubsets, over a whole run).
 */
export function generateFamily(
  scene: Scene,
  family: EtPlanFamily,
  count: number,
  seed: number,
  apartmentIndex: number,
  mix: TaskMix = 'project',
  /** The released mix's kinds kept so far, shared by a family's calls over a run's apartments so the run follows the shares. */
  tally: KindTally = { object: new Map(), destination: new Map() },
): FamilyResult {
  // The project mix keeps its stream; the released one draws from its own.
  const rng = mix === 'project' ? new Rng(seed, apartmentIndex, ET_PLAN_FAMILIES.indexOf(family), 0x7a5c) : new Rng(seed, apartmentIndex, ET_PLAN_FAMILIES.indexOf(family), 0x7a5c, 1);
  const out: FamilyResult = { items: [], generated: 0, dropped: {}, skipped: 0 };
  const drop = (r: DropReason) => (out.dropped[r] = (out.dropped[r] ?? 0) + 1);
  const g = scene.graph;
  let tries = 0;
  for (const draft of drafts(scene, family, rng, mix, tally)) {
    if (out.items.length >= count || tries >= count * MAX_TRIES_PER_TASK) break;
    tries++;
    if (draft === null) {
      out.skipped++;
      continue;
    }
    out.generated++;
    const room = rng.pick(g.rooms);
    const start = startState(g, room);
    const startPos: Vec3 = nodePosition(g, room);
    const candidates: Record<string, number[]> = {};
    for (const v of draft.vars) if (v.domain.length > 1 || v.domain[0] !== v.gt) candidates[String(v.gt)] = [...v.domain].sort((a, b) => a - b);
    const task = { criteria: draft.criteria, candidates, arms: draft.arms };
    if (advanceCriteria(task, start, startProgress(task)).met > 0) {
      drop('met-at-start');
      continue;
    }
    const builder = new PlanBuilder(g, start);
    draft.groundTruth(builder);
    const gt = runPlan(task, start, builder.lines);
    if (!gt.ok) {
      drop('ground-truth-fails');
      continue;
    }
    if (!gt.progress.done) {
      drop('ground-truth-unmet');
      continue;
    }
    const oracle = searchOracle(task, g, start, startPos, draft.vars.map((v) => v.domain), draft.orders);
    if (oracle === null) {
      drop('no-oracle');
      continue;
    }
    const target = g.node(draft.targets[0])!;
    const size = target.raw.bounding_box?.size;
    const phrasings = draft.phrasings;
    for (const side of ['object', 'destination'] as const) {
      const k = draft.kinds?.[side];
      if (k !== undefined) tally[side].set(k, (tally[side].get(k) ?? 0) + 1);
    }
    out.items.push({
      id: `${scene.name}/${family}/${String(out.items.length).padStart(3, '0')}`,
      benchmark: 'et-plan',
      task: family,
      level: draft.level,
      apartment: scene.file,
      start_room: scene.ref(room),
      instruction: phrasings[rng.int(0, phrasings.length - 1)],
      phrasings,
      criteria: draft.criteria,
      ...(Object.keys(candidates).length > 0 ? { candidates } : {}),
      targets: draft.targets.map((id) => scene.ref(id)),
      ...(draft.constraint ? { constraint: { relation: draft.constraint.relation, anchor: scene.ref(draft.constraint.anchor) } } : {}),
      ...(draft.destinationConstraint ? { destination_constraint: { relation: draft.destinationConstraint.relation, anchor: scene.ref(draft.destinationConstraint.anchor) } } : {}),
      arms: draft.arms,
      ground_truth: builder.lines,
      oracle: oracle.lines,
      step_cap: draft.stepCap,
      subsets: [],
      figures: {
        target_size: size ? size[0] * size[1] * size[2] : 0,
        start_distance: segmentLength(startPos, nodePosition(g, target.id)),
        ground_truth_distance: walkDistance(g, walkTargets(builder.lines), { start: startPos }),
        oracle_distance: walkDistance(g, oracle.walks, { start: startPos }),
      },
    });
  }
  return out;
}

/**
 * Tags occlusion subsets in place, with percentiles over each family's tasks of the run (a released
 * task file is one family; docs/et-plan.md). Returns the thresholds per family.
 */
export function occlusionSubsets(items: EtPlanItem[]): Partial<Record<EtPlanFamily, { size: number; distance: number }>> {
  const out: Partial<Record<EtPlanFamily, { size: number; distance: number }>> = {};
  for (const family of ET_PLAN_FAMILIES) {
    const group = items.filter((i) => i.task === family);
    if (group.length === 0) continue;
    const size = percentile(group.map((i) => i.figures.target_size), OCCLUSION.size);
    const distance = percentile(group.map((i) => i.figures.start_distance), OCCLUSION.distance);
    out[family] = { size, distance };
    for (const i of group) {
      const subsets: EtPlanSubset[] = [];
      if (i.figures.target_size < size) subsets.push('occlusion-size');
      if (i.figures.start_distance > distance) subsets.push('occlusion-distance');
      i.subsets = subsets;
    }
  }
  return out;
}
