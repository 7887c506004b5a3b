/**
 * Reads a pipeline file: YAML with `${VAR}` / `${VAR:-default}` / `${VAR:+word}` environment references
 * in string values, checked against the schema. Every problem is one line naming the file, the line and the key.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { GsrError, errorMessage } from '../util/errors.js';
import { modelFolder, PipelineSchema, type PipelineConfig } from './pipeline.js';

export interface LoadedPipeline {
  /** Absolute path of the pipeline file. */
  file: string;
  config: PipelineConfig;
  /** Models left out because an `if_env` variable is not set, with why. */
  skippedModels: Array<{ name: string; reason: string }>;
  /** Top-level sections (`photos`) left out because an `if_env` variable is not set, with why. */
  skippedSections: Array<{ name: string; reason: string; unset: string[]; written: Record<string, unknown> }>;
}

type PathKey = string | number;

function pathText(path: readonly PathKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out === '' ? k : `.${k}`;
  return out || '(top level)';
}

/**
 * Walks `path` as far as it exists. `value` is the node reached; `at` is where to point a message:
 * a scalar's value, or the key of a nested mapping or list.
 */
function walk(doc: Document, path: readonly PathKey[]): { value: unknown; at: YamlNode | undefined } {
  let value: unknown = doc.contents;
  let at = value as YamlNode | undefined;
  for (const key of path) {
    if (isMap(value)) {
      const pair = value.items.find((p) => (p.key as { value?: unknown })?.value === key);
      if (!pair) break;
      value = pair.value;
      at = (isMap(pair.value) || isSeq(pair.value) || !pair.value ? pair.key : pair.value) as YamlNode;
    } else if (isSeq(value) && typeof key === 'number' && value.items[key] !== undefined) {
      value = value.items[key];
      at = value as YamlNode;
    } else break;
  }
  return { value, at };
}

function nodeAt(doc: Document, path: readonly PathKey[]): YamlNode | undefined {
  return walk(doc, path).at;
}

function keyNode(doc: Document, path: readonly PathKey[], key: string): YamlNode | undefined {
  const { value, at } = walk(doc, path);
  if (!isMap(value)) return at;
  const pair = value.items.find((p) => (p.key as { value?: unknown })?.value === key);
  return (pair?.key as YamlNode | undefined) ?? at;
}

function lineOf(node: YamlNode | undefined, lines: LineCounter): string {
  const offset = node?.range?.[0];
  if (offset === undefined) return '';
  const pos = lines.linePos(offset);
  return `${pos.line}:${pos.col}`;
}

function describeIssue(issue: z.core.$ZodIssue, doc: Document, lines: LineCounter, file: string): string {
  const path = issue.path.filter((k): k is PathKey => typeof k !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0];
    const where = lineOf(keyNode(doc, path, key), lines);
    const at = path.length ? ` in ${pathText(path)}` : '';
    return `${file}:${where}: unknown key "${key}"${at}`;
  }
  const where = lineOf(nodeAt(doc, path), lines);
  return `${file}:${where}: ${pathText(path)}: ${issue.message}`;
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}/g;

/**
 * Replaces `${VAR}`, `${VAR:-default}` (default when VAR is unset or empty) and `${VAR:+word}` (word
 * when VAR is set, else empty) in every string of `value`. An unset VAR with neither is a problem,
 * added to `problems` (its string counts as not given). A string that comes out empty counts as not
 * given, so optional fields can depend on the environment. The `where` of every string that starts
 * with a set variable's value goes to `fromEnv`: such a path is the user's, relative to where they
 * stand, not to the pipeline file.
 */
function interpolate(value: unknown, env: NodeJS.ProcessEnv, where: string, problems: string[], fromEnv: Set<string>): unknown {
  if (typeof value === 'string') {
    let unset = false;
    const out = value.replace(ENV_REF, (_m, name: string, op: string | undefined, word: string | undefined, offset: number) => {
      const v = env[name];
      const set = v !== undefined && v !== '';
      if (op === '+') return set ? (word ?? '') : '';
      if (set) {
        if (offset === 0) fromEnv.add(where);
        return v;
      }
      if (op === '-') return word ?? '';
      problems.push(`${where}: environment variable ${name} is not set`);
      unset = true;
      return '';
    });
    return (out === '' && value !== '') || unset ? undefined : out;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, `${where}[${i}]`, problems, fromEnv));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, where ? `${where}.${k}` : k, problems, fromEnv)]));
  }
  return value;
}

/**
 * Makes the paths of a pipeline absolute: a path written in the file resolves against the file's
 * folder, a path that comes from an environment variable (`fromEnv`, see {@link interpolate})
 * against the working directory (docs/pipeline.md, "Paths"). Sections left out (invalid) stay out.
 */
function resolvePaths(config: PipelineConfig, base: string, fromEnv: ReadonlySet<string>): PipelineConfig {
  const abs = <T extends string | undefined>(p: T, where: string): T => (p === undefined || isAbsolute(p) ? p : (resolve(fromEnv.has(where) ? process.cwd() : base, p) as T));
  const c = structuredClone(config);
  if (c.out !== undefined) c.out = abs(c.out, 'out');
  if (c.dataset?.whatsup) c.dataset.whatsup.root = abs(c.dataset.whatsup.root, 'dataset.whatsup.root');
  if (c.dataset?.manifest) c.dataset.manifest = abs(c.dataset.manifest, 'dataset.manifest');
  if (c.annotations) c.annotations.file = abs(c.annotations.file, 'annotations.file');
  if (c.photos) Object.assign(c.photos, { root: abs(c.photos.root, 'photos.root'), reference: abs(c.photos.reference, 'photos.reference'), models_dir: abs(c.photos.models_dir, 'photos.models_dir') });
  if (c.annotations?.models?.models_dir) c.annotations.models.models_dir = abs(c.annotations.models.models_dir, 'annotations.models.models_dir');
  if (c.prompts) c.prompts.templates = abs(c.prompts.templates, 'prompts.templates');
  for (const [i, m] of (c.models ?? []).entries()) if (m) m.templates = abs(m.templates, `models[${i}].templates`);
  return c;
}

/** ENV_REF without the global flag, whose `test` keeps no state between calls. */
const HAS_ENV_REF = new RegExp(ENV_REF.source);

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** Whether an issue asks for a number or a boolean: its type, its literal values, or every branch of a union of them. */
function wanted(issue: z.core.$ZodIssue): 'number' | 'boolean' | undefined {
  if (issue.code === 'invalid_type') return issue.expected === 'number' ? 'number' : issue.expected === 'boolean' ? 'boolean' : undefined;
  if (issue.code === 'invalid_value') {
    const kinds = new Set(issue.values.map((v) => typeof v));
    return kinds.size === 1 && (kinds.has('number') || kinds.has('boolean')) ? (typeof issue.values[0] as 'number' | 'boolean') : undefined;
  }
  if (issue.code === 'invalid_union') {
    const kinds = new Set(issue.errors.map((branch) => (branch.length === 1 && branch[0].path.length === 0 ? wanted(branch[0]) : undefined)));
    return kinds.size === 1 ? [...kinds][0] : undefined;
  }
  return undefined;
}

/**
 * Where the schema wants a number or a boolean and a filled-in string spells one (`${N:-8}`), puts
 * the number or boolean in its place, as YAML would have read it written out. Returns whether any was.
 */
function typeFilled(config: unknown, issues: readonly z.core.$ZodIssue[]): boolean {
  let changed = false;
  for (const issue of issues) {
    const kind = wanted(issue);
    if (kind === undefined) continue;
    const parent = valueAt(config, issue.path.slice(0, -1)) as Record<PropertyKey, unknown> | undefined;
    const key = issue.path.at(-1)!;
    const text = parent?.[key];
    if (typeof text !== 'string') continue;
    const typed = kind === 'number' ? (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined) : ({ true: true, false: false } as Record<string, boolean>)[text];
    if (typed !== undefined) {
      parent![key] = typed;
      changed = true;
    }
  }
  return changed;
}

/**
 * A copy of `value` where text that spells a number or a flag stands where `schema` wants one,
 * typed as typeFilled does: for sections whose schema a plug-in brings (src/pipeline/bench.ts).
 */
export function typedBySchema<T>(schema: z.ZodType, value: T): T {
  const copy = structuredClone(value);
  const parsed = schema.safeParse(copy);
  if (!parsed.success) typeFilled(copy, parsed.error.issues);
  return copy;
}

/** What every pipeline schema has: models with names, kinds and `if_env`. */
type WithModels = { models: Array<{ name: string; if_env?: string[] }> };

/** Every problem of a pipeline text, and what of it could be read. */
export interface PipelineTextCheck<T> {
  /** The whole configuration, when it has no problem. */
  config: T | null;
  /**
   * The top-level sections that are valid on their own (all of them when `config` is set), so that
   * later checks can still look at them; `invalid` names the others.
   */
  partial: Partial<T>;
  invalid: Set<string>;
  skippedModels: LoadedPipeline['skippedModels'];
  skippedSections: LoadedPipeline['skippedSections'];
  /** Where a value starts with an environment variable's (for {@link resolvePaths}). */
  fromEnv: Set<string>;
  /** One line each, naming the file (and the line and key where the file has them). */
  problems: string[];
}

/**
 * Checks pipeline text against `schema` and lists every problem: YAML errors, schema issues (with
 * file, line and key), unset `${VAR}` references, and the values filled in from the environment.
 * `if_env` drops models. Throws nothing for bad input.
 */
export function checkPipelineText<S extends z.ZodType<WithModels>>(schema: S, text: string, file: string, env: NodeJS.ProcessEnv = process.env): PipelineTextCheck<z.infer<S>> {
  type T = z.infer<S>;
  const result: PipelineTextCheck<T> = { config: null, partial: {}, invalid: new Set(), skippedModels: [], skippedSections: [], fromEnv: new Set(), problems: [] };
  const problems = result.problems;
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    for (const err of doc.errors) {
      const pos = lines.linePos(err.pos[0]);
      problems.push(`${file}:${pos.line}:${pos.col}: invalid YAML: ${err.message.split('\n')[0]}`);
    }
    return result;
  }
  let raw: unknown;
  try {
    raw = doc.toJS(); // refuses alias bombs (yaml's maxAliasCount) with a plain Error
  } catch (err) {
    problems.push(`${file}: invalid YAML: ${errorMessage(err).split('\n')[0]}`);
    return result;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`${file}: a pipeline file must be a YAML mapping`);
    return result;
  }
  const parsed = schema.safeParse(raw);
  // A `${VAR}` where a number or flag goes is checked once filled in (below), not as written.
  const issues = parsed.success ? [] : parsed.error.issues.filter((i) => !(typeof valueAt(raw, i.path) === 'string' && HAS_ENV_REF.test(valueAt(raw, i.path) as string)));
  problems.push(...issues.map((issue) => describeIssue(issue, doc, lines, file)));
  // Top-level sections with a problem: later checks leave them out.
  const bad = new Set(issues.map((i) => i.path[0]).filter((k): k is string => typeof k === 'string'));
  const data = (parsed.success ? parsed.data : raw) as Partial<WithModels>;
  const models = Array.isArray(data.models) ? data.models : [];
  const kept = models.filter((m) => {
    const ifEnv = Array.isArray(m?.if_env) ? m.if_env : [];
    const unset = ifEnv.filter((name) => !env[name]);
    // A name filled from a variable is never filled here: it is shown as `$VAR` rather than as written.
    if (unset.length > 0) result.skippedModels.push({ name: String(m.name).replace(ENV_REF, (_, v: string) => `$${v}`), reason: `${unset.join(', ')} not set` });
    return unset.length === 0;
  });
  // A section with `if_env` (photos) is left out, before its references are filled, while a variable is unset.
  const sections = Object.entries(data as Record<string, unknown>).filter(([name, v]) => {
    const wanted = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as { if_env?: unknown }).if_env : undefined;
    if (!Array.isArray(wanted)) return true;
    const unset = (wanted as string[]).filter((n) => !env[n]);
    if (unset.length > 0) result.skippedSections.push({ name, reason: `${unset.join(', ')} not set`, unset, written: v as Record<string, unknown> });
    return unset.length === 0;
  });
  const envProblems: string[] = [];
  const sectionsKept = Object.fromEntries(sections);
  const config = interpolate(Array.isArray(data.models) ? { ...sectionsKept, models: kept } : sectionsKept, env, '', envProblems, result.fromEnv) as Record<string, unknown>;
  problems.push(...envProblems.map((p) => `${file}: ${p}`));
  for (const p of envProblems) bad.add(/^[A-Za-z_]+/.exec(p)![0]);
  // Values filled from the environment are checked again (without lines: they are not in the file).
  let filled = schema.safeParse(config);
  if (!filled.success && typeFilled(config, filled.error.issues)) filled = schema.safeParse(config);
  if (problems.length === 0 && !filled.success) {
    for (const issue of filled.error.issues) {
      const path = pathText(issue.path.filter((k): k is PathKey => typeof k !== 'symbol'));
      problems.push(`${file}: ${path}: ${issue.message} (after filling in environment variables)`);
    }
  }
  if (filled.success) {
    const folders = new Map<string, string>();
    for (const m of (filled.data as WithModels).models) {
      const folder = modelFolder(m.name);
      const other = folders.get(folder);
      if (other === m.name) problems.push(`${file}: models: the name "${m.name}" is used twice`);
      else if (other !== undefined) problems.push(`${file}: models: "${other}" and "${m.name}" would share the folder "${folder}"; rename one`);
      folders.set(folder, m.name);
    }
  }
  if (problems.length === 0 && filled.success) {
    result.config = filled.data as T;
    result.partial = filled.data as T;
    return result;
  }
  // Each top-level section that is valid on its own, so the checks that need only it still run; in
  // an invalid list (models), its valid entries, the others left as holes so indices still match.
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  const partial = result.partial as Record<string, unknown>;
  for (const [key, section] of Object.entries(shape ?? {})) {
    const value = config[key];
    const r = section.safeParse(value);
    if (r.success && !bad.has(key)) {
      partial[key] = r.data;
      continue;
    }
    result.invalid.add(key);
    const element = listElement(section);
    if (element && Array.isArray(value)) partial[key] = value.map((v) => (element.safeParse(v).success ? element.parse(v) : undefined));
  }
  return result;
}

/** The schema of a list's entries, through `.default()` and `.optional()`. */
function listElement(schema: z.ZodType): z.ZodType | undefined {
  let s: unknown = schema;
  while (s !== null && typeof s === 'object' && !('element' in s) && typeof (s as { unwrap?: unknown }).unwrap === 'function') s = (s as { unwrap(): unknown }).unwrap();
  return (s as { element?: z.ZodType } | null)?.element;
}

/** Throws the first of `problems` as a one-line GsrError, saying how many more there are. */
export function throwFirst(problems: readonly string[]): void {
  if (problems.length === 0) return;
  throw new GsrError(problems[0] + (problems.length > 1 ? ` (and ${problems.length - 1} more; \`gsr pipeline check\` lists them all)` : ''));
}

/**
 * Parses and validates pipeline text against `schema`: YAML errors and schema issues name the file,
 * line and key; `if_env` drops models; `${VAR}` references are filled and the result checked again.
 * Throws a one-line GsrError on the first problem ({@link checkPipelineText} lists them all).
 */
export function parsePipelineText<S extends z.ZodType<WithModels>>(schema: S, text: string, file: string, env: NodeJS.ProcessEnv = process.env): { config: z.infer<S>; skippedModels: LoadedPipeline['skippedModels']; skippedSections: LoadedPipeline['skippedSections']; fromEnv: Set<string> } {
  const checked = checkPipelineText(schema, text, file, env);
  throwFirst(checked.problems);
  return { config: checked.config!, skippedModels: checked.skippedModels, skippedSections: checked.skippedSections, fromEnv: checked.fromEnv };
}

/**
 * Parses and validates pipeline text. `file` names the file in messages and anchors relative paths
 * written in it. Throws a one-line GsrError on the first problem.
 */
export function parsePipeline(text: string, file: string, env: NodeJS.ProcessEnv = process.env): LoadedPipeline {
  const { config, skippedModels, skippedSections, fromEnv } = parsePipelineText(PipelineSchema, text, file, env);
  return { file, config: resolvePaths(config, dirname(resolve(file)), fromEnv), skippedModels, skippedSections };
}

async function readPipelineText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GsrError(code === 'ENOENT' ? `pipeline file not found: ${file}` : `cannot read ${file}: ${code ?? errorMessage(err)}`);
  }
}

/** Reads and validates a pipeline file. */
export async function loadPipeline(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedPipeline> {
  return { ...parsePipeline(await readPipelineText(file), file, env), file: resolve(file) };
}

/** A pipeline file's problems, and its configuration where valid (see {@link checkPipelineText}). */
export interface PipelineFileCheck {
  file: string;
  /** The valid sections, paths made absolute; the whole configuration when `problems` is empty. */
  config: Partial<PipelineConfig>;
  invalid: Set<string>;
  skippedModels: LoadedPipeline['skippedModels'];
  skippedSections: LoadedPipeline['skippedSections'];
  problems: string[];
}

/** Reads a pipeline file and lists every problem of its text (`gsr pipeline check`). */
export async function checkPipelineFile(file: string, env: NodeJS.ProcessEnv = process.env): Promise<PipelineFileCheck> {
  let text: string;
  try {
    text = await readPipelineText(file);
  } catch (err) {
    return { file: resolve(file), config: {}, invalid: new Set(['(file)']), skippedModels: [], skippedSections: [], problems: [errorMessage(err)] };
  }
  const c = checkPipelineText(PipelineSchema, text, file, env);
  return { file: resolve(file), config: resolvePaths(c.partial as PipelineConfig, dirname(resolve(file)), c.fromEnv), invalid: c.invalid, skippedModels: c.skippedModels, skippedSections: c.skippedSections, problems: c.problems };
}
