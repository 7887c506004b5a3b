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
 * when VAR is set, else empty) in every string of `value`. An unset VAR with neither is an error. A
 * string that comes out empty counts as not given, so optional fields can depend on the environment.
 */
function interpolate(value: unknown, env: NodeJS.ProcessEnv, where: string): unknown {
  if (typeof value === 'string') {
    const out = value.replace(ENV_REF, (_m, name: string, op: string | undefined, word: string | undefined) => {
      const v = env[name];
      const set = v !== undefined && v !== '';
      if (op === '+') return set ? (word ?? '') : '';
      if (set) return v;
      if (op === '-') return word ?? '';
      throw new GsrError(`${where}: environment variable ${name} is not set`);
    });
    return out === '' && value !== '' ? undefined : out;
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, `${where}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, where ? `${where}.${k}` : k)]));
  }
  return value;
}

function resolvePaths(config: PipelineConfig, base: string): PipelineConfig {
  const abs = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(base, p));
  const c = structuredClone(config);
  c.out = abs(c.out)!;
  if (c.dataset.whatsup) c.dataset.whatsup.root = abs(c.dataset.whatsup.root)!;
  if (c.dataset.manifest) c.dataset.manifest = abs(c.dataset.manifest);
  c.annotations.file = abs(c.annotations.file);
  if (c.photos) Object.assign(c.photos, { root: abs(c.photos.root), reference: abs(c.photos.reference), models_dir: abs(c.photos.models_dir) });
  if (c.annotations.models?.models_dir) c.annotations.models.models_dir = abs(c.annotations.models.models_dir);
  c.prompts.templates = abs(c.prompts.templates);
  for (const m of c.models) m.templates = abs(m.templates);
  return c;
}

/** ENV_REF without the global flag, whose `test` keeps no state between calls. */
const HAS_ENV_REF = new RegExp(ENV_REF.source);

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/**
 * Where the schema wants a number or a boolean and a filled-in string spells one (`${N:-8}`), puts
 * the number or boolean in its place, as YAML would have read it written out. Returns whether any was.
 */
function typeFilled(config: unknown, issues: readonly z.core.$ZodIssue[]): boolean {
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || (issue.expected !== 'number' && issue.expected !== 'boolean')) continue;
    const parent = valueAt(config, issue.path.slice(0, -1)) as Record<PropertyKey, unknown> | undefined;
    const key = issue.path.at(-1)!;
    const text = parent?.[key];
    if (typeof text !== 'string') continue;
    const typed = issue.expected === 'number' ? (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined) : ({ true: true, false: false } as Record<string, boolean>)[text];
    if (typed !== undefined) {
      parent![key] = typed;
      changed = true;
    }
  }
  return changed;
}

/** What every pipeline schema has: models with names, kinds and `if_env`. */
type WithModels = { models: Array<{ name: string; if_env?: string[] }> };

/**
 * Parses and validates pipeline text against `schema`: YAML errors and schema issues name the file,
 * line and key; `if_env` drops models; `${VAR}` references are filled and the result checked again.
 */
export function parsePipelineText<S extends z.ZodType<WithModels>>(schema: S, text: string, file: string, env: NodeJS.ProcessEnv = process.env): { config: z.infer<S>; skippedModels: LoadedPipeline['skippedModels']; skippedSections: LoadedPipeline['skippedSections'] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const pos = lines.linePos(err.pos[0]);
    throw new GsrError(`${file}:${pos.line}:${pos.col}: invalid YAML: ${err.message.split('\n')[0]}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS(); // refuses alias bombs (yaml's maxAliasCount) with a plain Error
  } catch (err) {
    throw new GsrError(`${file}: invalid YAML: ${errorMessage(err).split('\n')[0]}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new GsrError(`${file}: a pipeline file must be a YAML mapping`);
  const parsed = schema.safeParse(raw);
  // A `${VAR}` where a number or flag goes is checked once filled in (below), not as written.
  const issues = parsed.success ? [] : parsed.error.issues.filter((i) => !(typeof valueAt(raw, i.path) === 'string' && HAS_ENV_REF.test(valueAt(raw, i.path) as string)));
  if (issues.length > 0) {
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new GsrError(describeIssue(issues[0], doc, lines, file) + more);
  }
  const data = (parsed.success ? parsed.data : raw) as z.infer<S>;
  const skippedModels: LoadedPipeline['skippedModels'] = [];
  const kept = data.models.filter((m) => {
    const unset = (m.if_env ?? []).filter((name) => !env[name]);
    if (unset.length > 0) skippedModels.push({ name: m.name, reason: `${unset.join(', ')} not set` });
    return unset.length === 0;
  });
  // A section with `if_env` (photos) is left out, before its references are filled, while a variable is unset.
  const skippedSections: LoadedPipeline['skippedSections'] = [];
  const sections = Object.entries(data as Record<string, unknown>).filter(([name, v]) => {
    const wanted = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as { if_env?: unknown }).if_env : undefined;
    if (!Array.isArray(wanted)) return true;
    const unset = (wanted as string[]).filter((n) => !env[n]);
    if (unset.length > 0) skippedSections.push({ name, reason: `${unset.join(', ')} not set`, unset, written: v as Record<string, unknown> });
    return unset.length === 0;
  });
  let config: unknown;
  try {
    config = interpolate({ ...Object.fromEntries(sections), models: kept }, env, '');
  } catch (err) {
    throw new GsrError(`${file}: ${errorMessage(err)}`);
  }
  // Values filled from the environment are checked again (without lines: they are not in the file).
  let filled = schema.safeParse(config);
  if (!filled.success && typeFilled(config, filled.error.issues)) filled = schema.safeParse(config);
  if (!filled.success) {
    const issue = filled.error.issues[0];
    const path = pathText(issue.path.filter((k): k is PathKey => typeof k !== 'symbol'));
    throw new GsrError(`${file}: ${path}: ${issue.message} (after filling in environment variables)`);
  }
  const folders = new Map<string, string>();
  for (const m of (filled.data as WithModels).models) {
    const folder = modelFolder(m.name);
    const other = folders.get(folder);
    if (other === m.name) throw new GsrError(`${file}: models: the name "${m.name}" is used twice`);
    if (other !== undefined) throw new GsrError(`${file}: models: "${other}" and "${m.name}" would share the folder "${folder}"; rename one`);
    folders.set(folder, m.name);
  }
  return { config: filled.data as z.infer<S>, skippedModels, skippedSections };
}

/**
 * Parses and validates pipeline text. `file` names the file in messages and anchors relative paths.
 * Throws a one-line GsrError on the first problem.
 */
export function parsePipeline(text: string, file: string, env: NodeJS.ProcessEnv = process.env): LoadedPipeline {
  const { config, skippedModels, skippedSections } = parsePipelineText(PipelineSchema, text, file, env);
  return { file, config: resolvePaths(config, dirname(resolve(file))), skippedModels, skippedSections };
}

/** Reads and validates a pipeline file. */
export async function loadPipeline(file: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedPipeline> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new GsrError(code === 'ENOENT' ? `pipeline file not found: ${file}` : `cannot read ${file}: ${code ?? errorMessage(err)}`);
  }
  return { ...parsePipeline(text, file, env), file: resolve(file) };
}

