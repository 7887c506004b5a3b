/**
 * Import of ET-Plan-Bench's released task files from a user's checkout, as text (docs/et-plan.md,
 * "Released task files"). Their ids refer to Unity scenes that are not public, so the tasks cannot be
 * executed here; they serve LCS scoring of external agent logs and template statistics.
 *
 * The format (README of the VirtualHome material, section 5): one JSON object a line with `task`,
 * `task_completion_criterion` (concatenated `(RELATION, a, b)` triples, `robot` for the agent,
 * optionally split into `STEP_1:` ... `STEP_k:`), `env_id` and `ground_truth_plan` (Unity lines
 * prefixed `<char0> `, `[put]` for put-on).
 */
import { readdir, stat } from 'node:fs/promises';
import { writeEtPlanLogs } from '../../formats/et-plan-logs.js';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import { RELEASED_RELATIONS, RELEASED_TASKS_FILE, readEtPlanReleasedTasks, writeEtPlanReleasedTasks, type EtPlanReleasedTask, type ReleasedCriterion } from '../../formats/et-plan-released.js';
import { confinedRealPath, readConfined } from '../../util/confined.js';
import { GsrError } from '../../util/errors.js';
import { parseScriptLine } from './engine/index.js';
import { engineSyntax, oracleLogs } from './released-logs.js';
import type { EtPlanFamily } from './task.js';

/** The released files by name (without extension) and the family each holds. */
export const RELEASED_FILES: Readonly<Record<string, EtPlanFamily>> = {
  navigation_tasks: 'navigation',
  navigation_tasks_with_spatial_constraint: 'navigation-spatial',
  navigation_and_manipulation_tasks: 'manipulation',
  navigation_and_manipulation_tasks_with_spatial_constraint: 'manipulation-spatial',
  navigation_and_manipulation_tasks_with_temporal_constraint: 'temporal',
  navi_and_mani_multi_one_arm: 'multi-one-arm',
  navi_and_mani_multi_two_arm: 'multi-two-arm',
};

const TRIPLE = /\(\s*([A-Za-z_]+)\s*,\s*([^,()]*?)\s*,\s*([^,()]*?)\s*\)/g;
const STEP = /STEP_(\d+)\s*:/g;

function triples(text: string, where: string): ReleasedCriterion[] {
  const out: ReleasedCriterion[] = [];
  for (const m of text.matchAll(TRIPLE)) {
    const relation = m[1].toUpperCase();
    if (!(RELEASED_RELATIONS as readonly string[]).includes(relation)) throw new GsrError(`${where}: relation "${m[1]}" (expected ${RELEASED_RELATIONS.join(', ')})`);
    const name = (s: string) => {
      if (s === '') throw new GsrError(`${where}: empty name in "${m[0]}"`);
      return s === 'robot' ? 'character' : s;
    };
    out.push({ relation: relation as ReleasedCriterion['relation'], from: name(m[2]), to: name(m[3]) });
  }
  const rest = text.replace(TRIPLE, '');
  if (!/^[\s,&;]*$/.test(rest)) throw new GsrError(`${where}: unexpected text "${rest.trim().slice(0, 40)}" between the (RELATION, a, b) triples`);
  if (out.length === 0) throw new GsrError(`${where}: no (RELATION, a, b) triple`);
  return out;
}

/** Parses a completion criterion string into ordered steps (one step when it has no `STEP_k:` marks). */
export function parseReleasedCriteria(text: string, where = 'criterion'): ReleasedCriterion[][] {
  const marks = [...text.matchAll(STEP)];
  if (marks.length === 0) return [triples(text, where)];
  if (text.slice(0, marks[0].index).trim() !== '') throw new GsrError(`${where}: text before ${marks[0][0]}`);
  return marks.map((m, i) => {
    if (Number(m[1]) !== i + 1) throw new GsrError(`${where}: ${m[0].replace(/\s*:$/, '')} where STEP_${i + 1} was expected`);
    const end = i + 1 < marks.length ? marks[i + 1].index : text.length;
    return triples(text.slice(m.index + m[0].length, end), `${where} STEP_${i + 1}`);
  });
}

/** A released plan line in engine syntax: the `<charN> ` prefix removed, `[put]` as `[putback]`. */
export function releasedPlanLine(text: string, where = 'plan line'): string {
  const line = engineSyntax(text);
  const p = parseScriptLine(line);
  if (!p.ok) throw new GsrError(`${where}: "${text.slice(0, 60)}" does not parse (${p.message})`);
  return line;
}

/** One released record as imported; a GsrError names the file, line and field at fault. */
export function parseReleasedRecord(raw: unknown, file: string, line: number, family: EtPlanFamily): EtPlanReleasedTask {
  const where = `${file}:${line}`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new GsrError(`${where}: not a JSON object`);
  const r = raw as Record<string, unknown>;
  if (typeof r.task !== 'string' || r.task.trim() === '') throw new GsrError(`${where}: task: expected a non-empty string`);
  if (typeof r.task_completion_criterion !== 'string') throw new GsrError(`${where}: task_completion_criterion: expected a string`);
  const env = typeof r.env_id === 'string' && /^\d+$/.test(r.env_id.trim()) ? Number(r.env_id) : r.env_id;
  if (typeof env !== 'number' || !Number.isInteger(env) || env < 0) throw new GsrError(`${where}: env_id: expected a non-negative integer`);
  const plan = r.ground_truth_plan;
  if (!Array.isArray(plan) || plan.length === 0 || plan.some((l) => typeof l !== 'string')) throw new GsrError(`${where}: ground_truth_plan: expected a non-empty list of strings`);
  return {
    id: `${basename(file, extname(file))}/${line}`,
    family,
    file,
    line,
    task: r.task,
    env_id: env,
    criteria: parseReleasedCriteria(r.task_completion_criterion, `${where}: task_completion_criterion`),
    ground_truth: (plan as string[]).map((l, i) => releasedPlanLine(l, `${where}: ground_truth_plan.${i}`)),
  };
}

/** The records of one file: JSON Lines, or one JSON array. */
function records(text: string, file: string): { line: number; value: unknown }[] {
  if (text.trimStart().startsWith('[')) {
    try {
      return (JSON.parse(text) as unknown[]).map((value, i) => ({ line: i + 1, value }));
    } catch {
      throw new GsrError(`${file}: malformed JSON`);
    }
  }
  const out: { line: number; value: unknown }[] = [];
  for (const [i, l] of text.split(/\r?\n/).entries()) {
    if (l.trim() === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(l) });
    } catch {
      throw new GsrError(`${file}:${i + 1}: malformed JSON line`);
    }
  }
  return out;
}

export interface ReleasedImport {
  tasks: EtPlanReleasedTask[];
  /** Files read (relative to the root), with their family and task count. */
  files: { file: string; family: EtPlanFamily; tasks: number }[];
  /** `file:line: reason` of records skipped (with skipInvalid). */
  skipped: string[];
}

/**
 * Finds the released files under `root` (any depth; `.json` or `.jsonl`; dot folders and
 * node_modules skipped; never following a link out of the root) and parses them. All or nothing,
 * unless `skipInvalid`, which skips bad records and lists them.
 */
export async function importReleasedTasks(root: string, options: { skipInvalid?: boolean } = {}): Promise<ReleasedImport> {
  let real: string;
  try {
    real = await confinedRealPath(resolve(root), resolve(root));
  } catch {
    throw new GsrError(`et-plan import: ${root} does not exist`);
  }
  const found = new Map<string, string>();
  for (const e of await readdir(real, { recursive: true, withFileTypes: true })) {
    const rel = relative(real, join(e.parentPath, e.name));
    if (rel.split(sep).some((p) => p.startsWith('.') || p === 'node_modules')) continue;
    const ext = extname(e.name);
    const stem = basename(e.name, ext);
    if ((ext !== '.json' && ext !== '.jsonl') || !Object.hasOwn(RELEASED_FILES, stem) || !(e.isFile() || e.isSymbolicLink())) continue;
    if (found.has(stem)) throw new GsrError(`et-plan import: ${found.get(stem)} and ${rel} are both ${stem}; give the folder that holds one set of task files`);
    found.set(stem, rel);
  }
  if (found.size === 0) throw new GsrError(`et-plan import: none of the released task files (${Object.keys(RELEASED_FILES).join(', ')}; .json or .jsonl) under ${root}`);
  const out: ReleasedImport = { tasks: [], files: [], skipped: [] };
  for (const [stem, family] of Object.entries(RELEASED_FILES)) {
    const rel = found.get(stem);
    if (rel === undefined) continue;
    const text = (await readConfined(join(real, rel), real)).toString('utf8');
    let n = 0;
    for (const { line, value } of records(text, rel)) {
      try {
        out.tasks.push(parseReleasedRecord(value, rel, line, family));
        n++;
      } catch (err) {
        if (!(err instanceof GsrError) || !options.skipInvalid) throw err;
        out.skipped.push(err.message);
      }
    }
    out.files.push({ file: rel, family, tasks: n });
  }
  return out;
}

/** Template statistics of imported tasks, per family. */
export interface ReleasedStats {
  tasks: number;
  plan: { min: number; mean: number; max: number };
  /** Plan verbs, sorted. */
  verbs: string[];
  /** Tasks by number of criterion steps. */
  steps: Record<string, number>;
  /** Criteria by relation. */
  relations: Record<string, number>;
  /** Mean words per instruction. */
  words: number;
  /** Distinct instructions once class names are replaced by a slot (a rough count of templates). */
  patterns: number;
}

export function releasedStats(tasks: readonly EtPlanReleasedTask[]): Partial<Record<EtPlanFamily, ReleasedStats>> {
  const out: Partial<Record<EtPlanFamily, ReleasedStats>> = {};
  for (const family of Object.values(RELEASED_FILES)) {
    const group = tasks.filter((t) => t.family === family);
    if (group.length === 0) continue;
    const lengths = group.map((t) => t.ground_truth.length);
    const verbs = new Set<string>();
    const steps: Record<string, number> = {};
    const relations: Record<string, number> = {};
    const patterns = new Set<string>();
    for (const t of group) {
      for (const l of t.ground_truth) verbs.add(/^\s*\[(\w+)\]/.exec(l)?.[1].toLowerCase() ?? '?');
      steps[t.criteria.length] = (steps[t.criteria.length] ?? 0) + 1;
      const names = new Set<string>();
      for (const c of t.criteria.flat()) {
        relations[c.relation] = (relations[c.relation] ?? 0) + 1;
        for (const n of [c.from, c.to]) if (n !== 'character') names.add(n);
      }
      let p = t.task.toLowerCase();
      for (const n of [...names].sort((a, b) => b.length - a.length)) p = p.split(n.toLowerCase()).join('{}');
      patterns.add(p);
    }
    out[family] = {
      tasks: group.length,
      plan: { min: Math.min(...lengths), mean: lengths.reduce((a, b) => a + b, 0) / lengths.length, max: Math.max(...lengths) },
      verbs: [...verbs].sort(),
      steps,
      relations,
      words: group.reduce((s, t) => s + t.task.trim().split(/\s+/).length, 0) / group.length,
      patterns: patterns.size,
    };
  }
  return out;
}

/** `gsr dataset import et-plan`: imports the files under `root` into OUT/released-tasks.jsonl. */
export async function importReleased(
  root: string,
  outDir: string,
  options: { skipInvalid?: boolean; oracleLog?: string } = {},
): Promise<Omit<ReleasedImport, 'tasks'> & { out: string; tasks: number; stats: ReturnType<typeof releasedStats>; oracleLog?: string }> {
  const r = await importReleasedTasks(root, options);
  const out = join(resolve(outDir), RELEASED_TASKS_FILE);
  await writeEtPlanReleasedTasks(out, r.tasks);
  if (options.oracleLog !== undefined) await writeEtPlanLogs(options.oracleLog, oracleLogs(r.tasks));
  return { out, tasks: r.tasks.length, files: r.files, skipped: r.skipped, stats: releasedStats(r.tasks), ...(options.oracleLog !== undefined ? { oracleLog: options.oracleLog } : {}) };
}

/**
 * The released tasks at `path`: a released-tasks.jsonl file, the folder an import wrote it to, or a
 * checkout's folder of released task files (imported on the fly).
 */
export async function loadReleasedTasks(path: string): Promise<EtPlanReleasedTask[]> {
  const p = resolve(path);
  let s;
  try {
    s = await stat(p);
  } catch {
    throw new GsrError(`et-plan tasks: ${path} does not exist`);
  }
  if (s.isFile()) return readEtPlanReleasedTasks(p);
  const imported = join(p, RELEASED_TASKS_FILE);
  if (await stat(imported).then((f) => f.isFile(), () => false)) return readEtPlanReleasedTasks(imported);
  return (await importReleasedTasks(p)).tasks;
}
