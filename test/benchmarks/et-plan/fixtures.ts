/**
 * Replays the reference engine's fixture records (GSR_SHARED_VIRTUALHOME's fixtures folder, described
 * in its README) on the TypeScript engine and lists every field that differs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readVhGraph } from '../../../src/formats/vh-graph.js';
import {
  EngineGraph,
  EngineState,
  ScriptRun,
  diffStates,
  parseScriptLine,
  lineText,
  visibleNodes,
  walkDistance,
  nodePosition,
  roomOf,
  loopsBelow,
  REL,
  type GraphView,
} from '../../../src/benchmarks/et-plan/engine/index.js';

export const SCENES = [1, 2, 3, 4, 5, 6, 7].map((k) => `TestScene${k}`);

export interface StepFixture {
  i: number;
  line: string;
  ok: boolean;
  error: string | null;
  exception?: string;
  messages?: string[];
  anchor?: [number, string] | null;
  added: [number, string, number][];
  removed: [number, string, number][];
  states: Record<string, [string[], string[]]>;
  visible: number[];
  vis_loop: boolean;
}

export interface ScriptFixture {
  scene: string;
  script: number;
  length: number;
  completed: boolean;
  steps: StepFixture[];
}

export async function loadScene(root: string, scene: string): Promise<EngineGraph> {
  return new EngineGraph(await readVhGraph(join(root, 'graphs', `${scene}_graph.json`)));
}

export function readSteps(root: string, scene: string): ScriptFixture[] {
  const text = gunzipSync(readFileSync(join(root, 'fixtures', `steps.${scene}.jsonl.gz`))).toString('utf8');
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as ScriptFixture);
}

export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as T);
}

const j = (v: unknown) => JSON.stringify(v);

/** The engine's record of one step, in the fixtures' shape. */
export function stepRecord(run: ScriptRun, line: string): Record<string, unknown> {
  const before = run.state;
  const r = run.step(line);
  const diff = diffStates(before, r.state);
  const vis = visibleNodes(r.state);
  const rec: Record<string, unknown> = {
    ok: r.ok,
    error: r.error,
    messages: r.messages,
    added: diff.added,
    removed: diff.removed,
    states: Object.fromEntries([...diff.states].map(([id, v]) => [String(id), v])),
    visible: vis.ids,
    vis_loop: vis.loop,
  };
  if (r.exception !== undefined) rec.exception = r.exception;
  if (r.line?.action === 'GRAB') rec.anchor = r.anchor ?? null;
  return rec;
}

/** Fields of a step record that differ from the fixture. */
export function stepDiffs(fx: StepFixture, got: Record<string, unknown>): string[] {
  const want: Record<string, unknown> = {
    ok: fx.ok,
    error: fx.error,
    messages: fx.messages ?? [],
    added: fx.added,
    removed: fx.removed,
    states: fx.states,
    visible: fx.visible,
    vis_loop: fx.vis_loop,
  };
  if (fx.exception !== undefined) want.exception = fx.exception;
  if ('anchor' in fx) want.anchor = fx.anchor;
  const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
  return [...keys].filter((k) => j(want[k]) !== j(got[k])).map((k) => `${k}: want ${j(want[k])?.slice(0, 400)} got ${j(got[k])?.slice(0, 400)}`);
}

export interface ParseFixture {
  line: string;
  ok: boolean;
  action?: string;
  parameters?: [string, number][];
  str?: string;
  exception?: string;
  message?: string;
}

/** The engine's parse of a fixture line, in the fixture's shape. */
export function parseRecord(line: string): ParseFixture {
  const r = parseScriptLine(line, 1);
  if (!r.ok) return { line, ok: false, exception: r.exception, message: r.message };
  return { line, ok: true, action: r.line.action, parameters: r.line.params.map((p) => [p.name, p.id]), str: lineText(r.line) };
}

type Criterion = [string, number, number];
type Criteria = Criterion[] | Record<string, Criterion[]>;

export interface PlanFixture {
  task_id: string;
  criteria: Criteria;
  plan: string[];
  executed: boolean;
  failed_step: number | null;
  error: string | null;
  exception?: string;
  criteria_final: boolean[] | Record<string, boolean[]>;
  criteria_first_state: (number | null)[] | Record<string, (number | null)[]>;
  all_criteria_final: boolean;
  init_room: number;
  start_position: number[];
  walk_targets: number[];
  moving_distance: number;
}

const REL_CODE = { CLOSE: 3, INSIDE: 0, ON: 1 } as const;

function mapCriteria<T>(c: Criteria, f: (x: Criterion) => T): T[] | Record<string, T[]> {
  return Array.isArray(c) ? c.map(f) : Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v.map(f)]));
}

/** The engine's execution record of a fixture plan, in the fixture's shape. */
export function planRecord(graph: EngineGraph, fx: PlanFixture): Record<string, unknown> {
  const run = new ScriptRun(EngineState.initial(graph));
  const states = [run.state];
  let failed: number | null = null;
  let error: string | null = null;
  let exception: string | undefined;
  for (const [i, line] of fx.plan.entries()) {
    const r = run.step(line);
    if (!r.ok) {
      failed = i;
      error = r.error;
      exception = r.exception;
      break;
    }
    states.push(r.state);
  }
  const holds = (s: EngineState, [rel, a, b]: Criterion) => s.has(a, REL_CODE[rel as keyof typeof REL_CODE], b);
  const final = mapCriteria(fx.criteria, (c) => holds(run.state, c));
  const first = mapCriteria(fx.criteria, (c) => {
    const k = states.findIndex((s) => holds(s, c));
    return k < 0 ? null : k;
  });
  const walkTargets = fx.plan.map((l) => parseScriptLine(l)).flatMap((r) => (r.ok && r.line.action === 'WALK' ? [r.line.params[0].id] : []));
  const rec: Record<string, unknown> = {
    executed: failed === null,
    failed_step: failed,
    error,
    criteria_final: final,
    criteria_first_state: first,
    all_criteria_final: (Array.isArray(final) ? final : Object.values(final).flat()).every(Boolean),
    init_room: roomOf(EngineState.initial(graph), graph.characterId),
    start_position: nodePosition(graph, graph.characterId),
    walk_targets: walkTargets,
    moving_distance: walkDistance(graph, walkTargets),
  };
  if (exception !== undefined) rec.exception = exception;
  return rec;
}

/** Fields of a plan record that differ from the fixture. */
export function planDiffs(fx: PlanFixture, got: Record<string, unknown>): string[] {
  const keys = Object.keys(got).filter((k) => k !== 'exception');
  const out = keys.filter((k) => j((fx as unknown as Record<string, unknown>)[k]) !== j(got[k])).map((k) => `${k}: want ${j((fx as unknown as Record<string, unknown>)[k])} got ${j(got[k])}`);
  if (j(fx.exception) !== j(got.exception)) out.push(`exception: want ${j(fx.exception)} got ${j(got.exception)}`);
  return out;
}

/** Counts of names over nodes, keys sorted. */
function countOf(names: Iterable<string>): Record<string, number> {
  const m = new Map<string, number>();
  for (const n of names) m.set(n, (m.get(n) ?? 0) + 1);
  return Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The load facts of initial.json for one scene, computed by the engine. */
export function initialRecord(root: string, scene: string, graph: EngineGraph): Record<string, unknown> {
  const file = `${scene}_graph.json`;
  const bytes = readFileSync(join(root, 'graphs', file));
  const s = EngineState.initial(graph);
  const c = graph.characterId;
  const node = (id: number) => graph.node(id)!;
  const inside = (id: number) => s.out(id, REL.INSIDE);
  const room = roomOf(s, c)!;
  const nodes = graph.ids.map(node);
  const pick = ['GRABBABLE', 'CAN_OPEN', 'CONTAINERS', 'SURFACES'];
  // The reference helper fed the file's own edge order: a node's parent is its last INSIDE edge there.
  const fileParent = new Map<number, number>();
  for (const e of graph.source.edges) if (e.relation_type === 'INSIDE') fileParent.set(e.from_id, e.to_id);
  const vis = visibleNodes(s);
  const visFile = visibleNodes(s, (_v: GraphView, id: number) => fileParent.get(id));
  return {
    file,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    node_count: graph.ids.length,
    edge_count: graph.edgeCount,
    edges_per_relation: countOf([...graph.edges()].map((e) => e[1])),
    max_node_id: graph.ids[graph.ids.length - 1],
    character: { id: c, room, room_class: node(room).className, bbox_center: node(c).center },
    rooms: graph.rooms.map((id) => ({ id, class_name: node(id).className, bbox_center: node(id).center })),
    doors_between: graph.ids
      .filter((id) => s.out(id, REL.BETWEEN).length > 0)
      .map((id) => ({ id, class_name: node(id).className, rooms: s.out(id, REL.BETWEEN), states: node(id).states })),
    property_counts: Object.fromEntries(pick.map((p) => [p, nodes.filter((n) => n.properties.has(p)).length])),
    property_counts_all: countOf(nodes.flatMap((n) => [...n.properties])),
    state_counts: countOf(nodes.flatMap((n) => n.states)),
    category_counts: countOf(nodes.map((n) => n.category)),
    nodes_with_several_inside: nodes.filter((n) => inside(n.id).length > 1).length,
    inside_2cycles: graph.ids.flatMap((a) => inside(a).filter((b) => a < b && s.has(b, REL.INSIDE, a)).map((b) => [a, b])),
    rooms_where_upstream_visible_loops: graph.rooms.filter((r) => loopsBelow(s, r)),
    grabbables_anchor_from_close: nodes.filter((n) => n.properties.has('GRABBABLE') && s.out(n.id, REL.ON).length === 0 && inside(n.id).every((p) => node(p).isRoom)).length,
    visible_start: vis.ids,
    visible_start_upstream_terminates: !vis.loop,
    visible_start_file_order_equal: vis.loop ? null : j(visFile.ids) === j(vis.ids),
  };
}

/** JSON with object keys sorted, for comparing records whatever their key order. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));
}
