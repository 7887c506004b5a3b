/**
 * VirtualHome scene graphs (`{"nodes": [...], "edges": [...]}`), the format of VirtualHome's released
 * apartments and of the apartments gsr-bench generates (docs/et-plan.md, "Graph files").
 *
 * Loading follows the reference engine: duplicate nodes (by id) and duplicate edges (by the triple)
 * are dropped, property, state and relation names are upper-cased and must be known names, unknown
 * fields are kept untouched (and ignored by the engine).
 */
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeAtomicStream } from '../util/fs.js';
import { readJsonFile } from '../util/jsonl.js';

/** Edge relations ("from REL to": `apple INSIDE fridge`). */
export const VH_RELATIONS = ['INSIDE', 'ON', 'BETWEEN', 'CLOSE', 'FACING', 'HOLDS_RH', 'HOLDS_LH', 'SITTING'] as const;
export type VhRelation = (typeof VH_RELATIONS)[number];

/** Node properties the engine knows. */
export const VH_PROPERTIES = [
  'SURFACES', 'GRABBABLE', 'SITTABLE', 'LIEABLE', 'HANGABLE', 'DRINKABLE', 'EATABLE', 'RECIPIENT', 'CUTTABLE', 'POURABLE',
  'CAN_OPEN', 'HAS_SWITCH', 'READABLE', 'LOOKABLE', 'CONTAINERS', 'CLOTHES', 'PERSON', 'BODY_PART', 'COVER_OBJECT',
  'HAS_PLUG', 'HAS_PAPER', 'MOVABLE', 'CREAM',
] as const;
export type VhProperty = (typeof VH_PROPERTIES)[number];

/** Node states the engine knows. */
export const VH_STATES = ['CLOSED', 'OPEN', 'ON', 'OFF', 'SITTING', 'DIRTY', 'CLEAN', 'LYING', 'PLUGGED_IN', 'PLUGGED_OUT'] as const;
export type VhState = (typeof VH_STATES)[number];

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
/** A name compared case-insensitively: upper-cased, then checked against the known names. */
const upperEnum = <T extends readonly [string, ...string[]]>(names: T) => z.string().transform((s) => s.toUpperCase()).pipe(z.enum(names));

export const VhBoundingBoxSchema = z.looseObject({ center: vec3, size: vec3 });
/** Unity v2.3 exports carry a transform; the engine ignores it except as a position fallback. */
export const VhTransformSchema = z.looseObject({ position: vec3, rotation: z.array(z.number()).optional(), scale: vec3.optional() });

export const VhNodeSchema = z.looseObject({
  id: z.number().int().nonnegative(),
  class_name: z.string(),
  category: z.string(),
  prefab_name: z.string().nullable().optional(),
  bounding_box: VhBoundingBoxSchema.nullable().optional(),
  obj_transform: VhTransformSchema.nullable().optional(),
  properties: z.array(upperEnum(VH_PROPERTIES)).default([]),
  states: z.array(upperEnum(VH_STATES)).default([]),
});
export type VhNode = z.infer<typeof VhNodeSchema>;

export const VhEdgeSchema = z.looseObject({
  from_id: z.number().int().nonnegative(),
  relation_type: upperEnum(VH_RELATIONS),
  to_id: z.number().int().nonnegative(),
});
export type VhEdge = z.infer<typeof VhEdgeSchema>;

export const VhGraphSchema = z.looseObject({ nodes: z.array(VhNodeSchema), edges: z.array(VhEdgeSchema) });
export type VhGraph = z.infer<typeof VhGraphSchema>;

/**
 * Checks a parsed JSON value as a scene graph and normalises it the way the reference engine loads
 * it: names upper-cased, duplicate nodes (the first of an id is kept) and duplicate edges dropped.
 * An edge that names a missing node, or a bad field, is a one-line GsrError naming `source`.
 */
export function parseVhGraph(value: unknown, source: string): VhGraph {
  const parsed = VhGraphSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GsrError(`${source}: not a VirtualHome graph (${issue.path.map(String).join('.') || 'root'}: ${issue.message})`);
  }
  const graph = parsed.data;
  const seen = new Set<number>();
  const nodes = graph.nodes.filter((n) => !seen.has(n.id) && seen.add(n.id));
  const triples = new Set<string>();
  const edges: VhEdge[] = [];
  for (const [i, e] of graph.edges.entries()) {
    for (const id of [e.from_id, e.to_id]) if (!seen.has(id)) throw new GsrError(`${source}: edges.${i} names node ${id}, which is not in the graph`);
    const key = `${e.from_id} ${e.relation_type} ${e.to_id}`;
    if (triples.has(key)) continue;
    triples.add(key);
    edges.push(e);
  }
  return { ...graph, nodes, edges };
}

/** Reads and normalises a scene-graph file (see parseVhGraph). */
export async function readVhGraph(path: string): Promise<VhGraph> {
  return parseVhGraph(await readJsonFile(path), path);
}

/** Writes a scene graph atomically, one node or edge a line. */
export function writeVhGraph(path: string, graph: VhGraph): Promise<void> {
  return writeAtomicStream(path, async (write) => {
    const { nodes, edges, ...rest } = graph;
    const head = JSON.stringify(rest);
    await write(`{${head.length > 2 ? `${head.slice(1, -1)},` : ''}\n"nodes": [`);
    for (const [i, n] of nodes.entries()) await write(`${i > 0 ? ',' : ''}\n${JSON.stringify(n)}`);
    await write('\n],\n"edges": [');
    for (const [i, e] of edges.entries()) await write(`${i > 0 ? ',' : ''}\n${JSON.stringify(e)}`);
    await write('\n]\n}\n');
  });
}
