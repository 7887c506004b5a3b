/**
 * `gsr dataset synth apartments` and `gsr dataset synth et-plan` (docs/et-plan.md, "Apartments" and
 * "Tasks"): the file side of the pure generators in apartment.ts and generate.ts. Apartments are
 * written under OUT/apartments/ with the atomic graph writer; the task items come back as an item set
 * for the shared writer (items.jsonl and context.json, written last).
 */
import { readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { parseVhGraph, writeVhGraph, type VhGraph } from '../../formats/vh-graph.js';
import { readConfined, confinedRealPath } from '../../util/confined.js';
import { GsrError } from '../../util/errors.js';
import type { ItemSet } from '../types.js';
import { DEFAULT_APARTMENT_SETTINGS, checkApartment, generateApartment } from './apartment.js';
import { EngineGraph } from './engine/index.js';
import { OCCLUSION, Scene, TASK_MIXES, generateFamily, occlusionSubsets, type FamilyResult, type KindTally } from './generate.js';
import { ET_PLAN_FAMILIES, type EtPlanFamily, type EtPlanItem } from './task.js';
import { TEMPLATES } from './templates.js';

/** Apartments go in this folder of the output; items name them relative to the item set's folder. */
export const APARTMENTS_DIR = 'apartments';

const RoomsSchema = z
  .tuple([z.number().int(), z.number().int()])
  .refine(([a, b]) => a >= 4 && a <= b && b <= 8, 'rooms must be MIN-MAX with 4 <= MIN <= MAX <= 8');

export const ApartmentsSynthSchema = z.strictObject({
  out: z.string().min(1),
  count: z.number().int().min(1).max(100_000),
  seed: z.number().int().min(0).max(0xffffffff).default(0),
  rooms: RoomsSchema.default([...DEFAULT_APARTMENT_SETTINGS.rooms]),
});

export const EtPlanGenerateSchema = z.strictObject({
  out: z.string().min(1),
  /** Apartments to generate (ignored with `graphs`). */
  apartments: z.number().int().min(1).max(100_000).default(3),
  /** Tasks kept per family and apartment, at most. */
  count: z.number().int().min(1).max(10_000).default(10),
  families: z.array(z.enum(ET_PLAN_FAMILIES)).min(1).default([...ET_PLAN_FAMILIES]),
  seed: z.number().int().min(0).max(0xffffffff).default(0),
  rooms: RoomsSchema.default([...DEFAULT_APARTMENT_SETTINGS.rooms]),
  /** A folder of VirtualHome graph files (*.json) to use instead of generated apartments. */
  graphs: z.string().min(1).optional(),
  /** The task mix (generate.ts, TASK_MIXES): the project's, or the released files' constraints. */
  mix: z.enum(TASK_MIXES).default('project'),
  /**
   * Tasks wanted per family over all apartments (replaces `count`): `released` (the released files'
   * counts), `paper` (the paper's dataset sizes, SIZE_PRESETS) or a count per family.
   */
  sizes: z.union([z.enum(['released', 'paper']), z.partialRecord(z.enum(ET_PLAN_FAMILIES), z.number().int().min(0).max(1_000_000))]).optional(),
});
export type EtPlanGenerateSettings = z.input<typeof EtPlanGenerateSchema>;

/**
 * Task counts per family. `released`: the 7 released files (2,023 tasks). `paper`: the dataset sizes of
 * the repository's images/data_stats.png where a family matches one: navigation 834, navigation with a
 * spatial relation 674, navigation and manipulation 1,968, with spatial understanding 5,601, temporal
 * or causal dependency 401, and the 862 multi-object tasks split evenly between one arm and two (our
 * choice: the figure does not split them).
 */
export const SIZE_PRESETS: Readonly<Record<'released' | 'paper', Readonly<Record<EtPlanFamily, number>>>> = {
  released: { navigation: 714, 'navigation-spatial': 557, manipulation: 186, 'manipulation-spatial': 199, temporal: 85, 'multi-one-arm': 136, 'multi-two-arm': 146 },
  paper: { navigation: 834, 'navigation-spatial': 674, manipulation: 1968, 'manipulation-spatial': 5601, temporal: 401, 'multi-one-arm': 431, 'multi-two-arm': 431 },
};

/** A family's share of `total` on apartment `index` of `n`: equal shares, the remainder to the first ones. */
export function shareOf(total: number, index: number, n: number): number {
  return Math.floor(total / n) + (index < total % n ? 1 : 0);
}

function parseSettings<T extends z.ZodType>(schema: T, raw: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`${what} settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

/** Generates and checks one apartment (a failed check is a bug here, reported as such). */
export function buildApartment(seed: number, index: number, rooms: readonly [number, number]): { graph: VhGraph; engine: EngineGraph } {
  const graph = generateApartment(seed, index, { rooms });
  const problems = checkApartment(graph);
  if (problems.length > 0) throw new GsrError(`apartment ${index} of seed ${seed} is inconsistent: ${problems[0]} (${problems.length} problems; please report)`);
  return { graph, engine: new EngineGraph(parseVhGraph(JSON.parse(JSON.stringify(graph)), `apartment ${index}`)) };
}

export const apartmentFile = (index: number) => `${APARTMENTS_DIR}/apartment-${String(index).padStart(3, '0')}.json`;

export interface ApartmentsSummary {
  out: string;
  files: string[];
  nodes: number;
  edges: number;
}

/** Writes `count` apartments of `seed` under OUT/apartments/ (same settings, same bytes). */
export async function synthApartments(raw: z.input<typeof ApartmentsSynthSchema>, onProgress?: (done: number, total: number) => void): Promise<ApartmentsSummary> {
  const s = parseSettings(ApartmentsSynthSchema, raw, 'apartments');
  const out = resolve(s.out);
  const summary: ApartmentsSummary = { out, files: [], nodes: 0, edges: 0 };
  for (let i = 0; i < s.count; i++) {
    const { graph } = buildApartment(s.seed, i, s.rooms);
    await writeVhGraph(join(out, apartmentFile(i)), graph);
    summary.files.push(apartmentFile(i));
    summary.nodes += graph.nodes.length;
    summary.edges += graph.edges.length;
    onProgress?.(i + 1, s.count);
  }
  return summary;
}

/** Reads every *.json graph of a folder (sorted by name), never following a link out of it. */
async function readGraphFolder(dir: string): Promise<{ name: string; graph: VhGraph }[]> {
  let root: string;
  try {
    root = await confinedRealPath(resolve(dir), resolve(dir));
  } catch {
    throw new GsrError(`graphs: ${dir} does not exist`);
  }
  const files = (await readdir(root, { withFileTypes: true })).filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith('.json')).map((e) => e.name).sort();
  if (files.length === 0) throw new GsrError(`graphs: no *.json graph files in ${dir}`);
  const out = [];
  for (const f of files) {
    const path = join(root, f);
    let value: unknown;
    try {
      value = JSON.parse((await readConfined(path, root)).toString('utf8'));
    } catch (err) {
      throw new GsrError(`graphs: ${path}: ${err instanceof GsrError ? err.message : 'not valid JSON'}`);
    }
    out.push({ name: basename(f, '.json'), graph: parseVhGraph(value, path) });
  }
  return out;
}

/** What context.json records about a generated item set. */
export interface EtPlanContext {
  benchmark: 'et-plan';
  settings: Omit<z.infer<typeof EtPlanGenerateSchema>, 'out'>;
  apartments: { file: string; source: 'generated' | 'graphs'; rooms: string[]; nodes: number; edges: number }[];
  templates: typeof TEMPLATES;
  /** Candidates built and checked, tasks kept and why the others were dropped, per family (`wanted`: with `sizes`). */
  generation: Partial<Record<EtPlanFamily, Omit<FamilyResult, 'items'> & { kept: number; wanted?: number }>>;
  /** Occlusion thresholds per family (the 20th percentile of target size, the 80th of start distance). */
  occlusion: { percentiles: typeof OCCLUSION; thresholds: ReturnType<typeof occlusionSubsets> };
  /** Added by the LLM stage when it ran (refine.ts): the model, its settings and the counts. */
  refine?: { model: string; settings: unknown; summary: Record<string, number> };
}

/**
 * The plug-in's generateItems: apartments (generated, or `graphs`) written under OUT/apartments/, then
 * up to `count` tasks per family on each, kept only when their plans execute and meet the criteria.
 */
export async function generateEtPlanItems(raw: Record<string, unknown>, onProgress?: (done: number, total: number) => void): Promise<ItemSet<EtPlanItem> & { context: EtPlanContext }> {
  const s = parseSettings(EtPlanGenerateSchema, raw, 'et-plan');
  const out = resolve(s.out);
  const sources: { file: string; name: string; graph: VhGraph; engine: EngineGraph; source: 'generated' | 'graphs' }[] = [];
  if (s.graphs !== undefined) {
    for (const { name, graph } of await readGraphFolder(s.graphs)) {
      const file = `${APARTMENTS_DIR}/${name}.json`;
      sources.push({ file, name, graph, engine: new EngineGraph(graph), source: 'graphs' });
    }
  } else {
    for (let i = 0; i < s.apartments; i++) {
      const file = apartmentFile(i);
      sources.push({ file, name: basename(file, '.json'), ...buildApartment(s.seed, i, s.rooms), source: 'generated' });
    }
  }
  const items: EtPlanItem[] = [];
  const generation: EtPlanContext['generation'] = {};
  const tallies = new Map<EtPlanFamily, KindTally>();
  const sizes: Partial<Record<EtPlanFamily, number>> | undefined = typeof s.sizes === 'string' ? SIZE_PRESETS[s.sizes] : s.sizes;
  const total = sources.length * s.families.length;
  let done = 0;
  for (const [i, src] of sources.entries()) {
    await writeVhGraph(join(out, src.file), src.graph);
    const scene = new Scene(src.engine, src.file, src.name);
    for (const family of s.families) {
      const wanted = sizes?.[family];
      const count = wanted === undefined ? s.count : shareOf(wanted, i, sources.length);
      const tally = tallies.get(family) ?? tallies.set(family, { object: new Map(), destination: new Map() }).get(family)!;
      const r = count > 0 ? generateFamily(scene, family, count, s.seed, i, s.mix, tally) : { items: [], generated: 0, dropped: {}, skipped: 0 };
      items.push(...r.items);
      const g = (generation[family] ??= { generated: 0, kept: 0, dropped: {}, skipped: 0, ...(wanted === undefined ? {} : { wanted }) });
      g.generated += r.generated;
      g.kept += r.items.length;
      g.skipped += r.skipped;
      for (const [k, n] of Object.entries(r.dropped) as [keyof FamilyResult['dropped'], number][]) g.dropped[k] = (g.dropped[k] ?? 0) + n;
      onProgress?.(++done, total);
    }
  }
  const thresholds = occlusionSubsets(items);
  const { out: _out, ...settings } = s;
  return {
    items,
    context: {
      benchmark: 'et-plan',
      settings,
      apartments: sources.map((x) => ({ file: x.file, source: x.source, rooms: x.engine.rooms.map((r) => x.engine.node(r)!.className), nodes: x.graph.nodes.length, edges: x.graph.edges.length })),
      templates: TEMPLATES,
      generation,
      occlusion: { percentiles: OCCLUSION, thresholds },
    },
  };
}
