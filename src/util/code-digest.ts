/**
 * What code a module runs, as one digest: the module's file and every file of this package it
 * imports, transitively (static imports and re-exports, dynamic imports of a literal path, and
 * `new URL('./x.js', import.meta.url)` worker entries; `import type` is left out, it runs nothing),
 * the package's version, and the name and version of each outside package those files import.
 * Paths count relative to the package root, so a moved checkout keeps its digests. From source (tsx)
 * the files are the .ts sources, from the build the .js files, so the two give different digests.
 * Files are read once per process. Used by the stage engine (src/pipeline/engine.ts, docs/pipeline.md).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `import ... from 'x'`, `import 'x'`, `export ... from 'x'`; group 1 is `type` for type-only ones. */
const STATIC = /(?:^|[\s;}])(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"\n]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;
const WORKER = /new URL\(\s*['"]([^'"\n]+\.[cm]?[jt]s)['"]\s*,\s*import\.meta\.url\s*\)/g;
const BUILTIN = new Set(builtinModules);

interface FileInfo {
  sha256: string;
  /** Files of this package it imports (absolute paths). */
  local: string[];
  /** Outside packages it imports, by name. */
  packages: string[];
}

const files = new Map<string, FileInfo>();
const digests = new Map<string, string>();
const versions = new Map<string, string>();

/** The folder of the nearest package.json above `path`. */
function packageRoot(path: string): string {
  for (let d = dirname(path); ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) return dirname(path);
  }
}

function readVersion(packageJson: string): string {
  try {
    const v = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}

/** `name@version` of an outside package, found in node_modules above `from`. */
function packageVersion(name: string, from: string): string {
  const key = `${from}\0${name}`;
  let v = versions.get(key);
  if (v !== undefined) return v;
  v = `${name}@?`;
  for (let d = from; ; d = dirname(d)) {
    const pj = join(d, 'node_modules', name, 'package.json');
    if (existsSync(pj)) {
      v = `${name}@${readVersion(pj)}`;
      break;
    }
    if (dirname(d) === d) break;
  }
  versions.set(key, v);
  return v;
}

/** The file a relative specifier names: as written, or its TypeScript source (`./x.js` -> `./x.ts`). */
function resolveLocal(spec: string, from: string): string | null {
  const p = resolve(dirname(from), spec);
  const candidates = [p, p.replace(/\.js$/, '.ts'), p.replace(/\.mjs$/, '.mts'), p.replace(/\.cjs$/, '.cts')];
  return candidates.find((c) => existsSync(c) && !c.endsWith('.d.ts')) ?? null;
}

function scan(path: string): FileInfo {
  let info = files.get(path);
  if (info) return info;
  const text = readFileSync(path);
  const source = text.toString('utf8');
  const local = new Set<string>();
  const packages = new Set<string>();
  const add = (spec: string) => {
    if (spec.startsWith('.') || spec.startsWith('/')) {
      const f = resolveLocal(spec, path);
      if (f) local.add(f);
    } else if (!spec.startsWith('node:') && !BUILTIN.has(spec)) {
      packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  };
  for (const m of source.matchAll(STATIC)) if (!m[1]) add(m[2]);
  for (const m of source.matchAll(DYNAMIC)) add(m[1]);
  for (const m of source.matchAll(WORKER)) add(m[1]);
  info = { sha256: createHash('sha256').update(text).digest('hex'), local: [...local], packages: [...packages] };
  files.set(path, info);
  return info;
}

/** Every package file the modules at `urls` run (absolute paths), the outside packages, and the package root. */
function closure(urls: readonly string[]): { root: string; seen: Set<string>; outside: Set<string> } {
  const seen = new Set<string>();
  const outside = new Set<string>();
  const todo = urls.map((u) => fileURLToPath(u));
  const root = todo.length > 0 ? packageRoot(todo[0]) : '';
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const info = scan(f);
    todo.push(...info.local);
    for (const p of info.packages) outside.add(packageVersion(p, dirname(f)));
  }
  return { root, seen, outside };
}

const rel = (root: string, f: string) => relative(root, f).split(sep).join('/');

/** The digest of the code the modules at `urls` (`import.meta.url` values) run; see the file comment. */
export function codeDigest(urls: readonly string[]): string {
  const key = [...urls].sort().join('\n');
  const known = digests.get(key);
  if (known !== undefined) return known;
  const { root, seen, outside } = closure(urls);
  const lines = [...seen].map((f) => `${rel(root, f)} ${files.get(f)!.sha256}`).sort();
  const version = root ? readVersion(join(root, 'package.json')) : '';
  const digest = createHash('sha256').update([`version ${version}`, ...lines, ...[...outside].sort()].join('\n')).digest('hex');
  digests.set(key, digest);
  return digest;
}

/** The package files {@link codeDigest} counts for `urls`, relative to the package root. */
export function codeFiles(urls: readonly string[]): string[] {
  const { root, seen } = closure(urls);
  return [...seen].map((f) => rel(root, f)).sort();
}
