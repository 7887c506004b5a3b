/**
 * Every non-code file in the repository says where it comes from (data/PROVENANCE.md): the committed
 * script that made it, "written by hand", or "typed from" a source. Files are the tracked ones plus
 * new ones git does not ignore (`git ls-files`), or, without git, a walk of the tree that skips the
 * ignored output folders. Which files count as source (and need no row) is stated in that file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const LIST = 'data/PROVENANCE.md';

/** Code, documentation, the project's own configuration and pipeline files (data/PROVENANCE.md). */
function isSource(path: string): boolean {
  return (
    /\.(ts|mjs|js|py|sh|md)$/.test(path) ||
    ['.ci/run', '.gitignore', '.npmrc', 'package.json', 'package-lock.json'].includes(path) ||
    /^tsconfig(\.[a-z]+)?\.json$/.test(path) ||
    /^pipelines\/[^/]+\.yaml$/.test(path)
  );
}

// Without git: the folders .gitignore keeps out of the repository.
const IGNORED_DIRS = new Set(['.git', 'node_modules', 'dist', 'out', 'results', 'runs', '.tmp', '.cache', 'bench/results']);

function walk(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = dir === '' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) {
      // models/<id>/ and annotations/<name>/ hold downloads and outputs, except the committed reference boxes.
      if (IGNORED_DIRS.has(rel) || dir === 'models' || (dir === 'annotations' && e.name !== 'whatsup-sample')) return [];
      return walk(rel);
    }
    return e.isFile() && rel !== '.git' && !/\.(sqlite|sqlite-wal|sqlite-shm)$/.test(e.name) ? [rel] : [];
  });
}

/** The repository's files, and whether git listed them (else the walk may miss a tracked file in an ignored folder). */
function repositoryFiles(): { files: string[]; git: boolean } {
  try {
    const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { files: out.split('\0').filter((f) => f !== '' && existsSync(join(ROOT, f))), git: true };
  } catch {
    return { files: walk('').map((f) => f.split(sep).join('/')), git: false };
  }
}

interface Row {
  path: string;
  madeBy: string;
  line: number;
}

function rows(): Row[] {
  return readFileSync(join(ROOT, LIST), 'utf8').split('\n').flatMap((l, i) => {
    const m = /^\| `([^`]+)` \| (.+) \|$/.exec(l);
    return m ? [{ path: m[1], madeBy: m[2], line: i + 1 }] : [];
  });
}

/** Why a row's "made by" is not acceptable, or null. */
function madeByProblem(row: Row, exists: (path: string) => boolean): string | null {
  const script = /^script `([^`]+)`/.exec(row.madeBy);
  if (script) return exists(script[1]) ? null : `the script ${script[1]} does not exist`;
  if (/^written by hand\b/.test(row.madeBy) || /^typed from \S/.test(row.madeBy)) return null;
  if (/^third-party\b/.test(row.madeBy)) return 'third-party files do not belong in the repository';
  return `"${row.madeBy}" is not one of: script \`PATH\`, written by hand, typed from SOURCE`;
}

describe(`${LIST}: where every non-code file comes from`, () => {
  const { files, git } = repositoryFiles();
  const listed = rows();
  const fileSet = new Set(files);
  const present = (p: string) => fileSet.has(p) || (!git && existsSync(join(ROOT, p)));

  it('finds the repository\'s files and the list', () => {
    expect(files).toContain('package.json');
    expect(files).toContain(LIST);
    expect(listed.length).toBeGreaterThan(10);
  });

  it('lists every file that is not source', () => {
    const have = new Set(listed.map((r) => r.path));
    expect(files.filter((f) => !isSource(f) && !have.has(f)).sort()).toEqual([]);
  });

  it('lists only files that exist, each once', () => {
    expect(listed.filter((r) => !present(r.path)).map((r) => `${LIST}:${r.line}: ${r.path}`)).toEqual([]);
    const seen = new Set<string>();
    expect(listed.filter((r) => seen.size === seen.add(r.path).size).map((r) => `${LIST}:${r.line}: ${r.path} twice`)).toEqual([]);
  });

  it('names for each a committed script, "written by hand" or "typed from" a source', () => {
    const problems = listed.flatMap((r) => {
      const why = madeByProblem(r, present);
      return why === null ? [] : [`${LIST}:${r.line}: ${r.path}: ${why}`];
    });
    expect(problems).toEqual([]);
  });

  it('the checks can fail', () => {
    const row = (madeBy: string, path = 'x.json'): Row => ({ path, madeBy, line: 1 });
    const exists = (p: string) => p === 'make.py';
    expect(madeByProblem(row('script `make.py` (numpy)'), exists)).toBeNull();
    expect(madeByProblem(row('script `gone.py`'), exists)).toBe('the script gone.py does not exist');
    expect(madeByProblem(row('downloaded'), exists)).toMatch(/is not one of/);
    expect(madeByProblem(row('third-party: a photo', 'data/photo.jpg'), exists)).toBe('third-party files do not belong in the repository');
    expect(isSource('src/a.ts')).toBe(true);
    expect(isSource('data/a.json')).toBe(false);
    expect(isSource('pipelines/demo.yaml')).toBe(true);
    expect(isSource('test/fixtures/a.png')).toBe(false);
  });
});
