/**
 * The source folders follow the data flow: a folder imports only folders below it, so the bottom
 * (util, geometry, formats) never depends on a stage and no stage reaches up. File-level cycles are
 * `npm run check:cycles` (madge); this checks the folder order, static and dynamic imports alike.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * Bottom first. A folder may import itself and the folders before it. A benchmark plug-in bundles a
 * benchmark's steps (items, prompts, judging, statistics, report sections) on top of the shared stages,
 * under the pipeline and CLI that drive it. The job queue (src/queue) is an adapter over annotate and
 * mllm; only it loads bullmq and ioredis, and others load it only on demand.
 */
const LAYERS = ['util', 'geometry', 'formats', 'datasets', 'perception', 'annotate', 'prompts', 'mllm', 'queue', 'scoring', 'analysis', 'report', 'review', 'benchmarks', 'pipeline', 'cli'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The src folder a file lies in (`''` for files directly in src). */
function folderOf(file: string): string {
  const rel = relative(SRC, file).split(sep);
  return rel.length > 1 ? rel[0] : '';
}

/** Relative specifiers of every import, export-from and dynamic import in `text`. */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)) out.push(m[1]);
  return out;
}

/** The imports of `file` (whose text is `text`) that break the order, as `file -> specifier`. */
function fileViolations(file: string, text: string): string[] {
  const from = folderOf(file);
  if (from === '') return []; // src/index.ts re-exports the layers
  return relativeImports(text)
    .filter((spec) => {
      const to = folderOf(resolve(dirname(file), spec));
      return to !== from && (!LAYERS.includes(from) || !LAYERS.includes(to) || LAYERS.indexOf(to) > LAYERS.indexOf(from));
    })
    .map((spec) => `${relative(SRC, file)} -> ${spec}`);
}

function layerViolations(files: string[]): string[] {
  return files.flatMap((f) => fileViolations(f, readFileSync(f, 'utf8')));
}

describe('folder layering', () => {
  const files = sourceFiles(SRC);

  it('every folder of src is a known layer', () => {
    const folders = new Set(files.map(folderOf).filter((f) => f !== ''));
    expect([...folders].filter((f) => !LAYERS.includes(f))).toEqual([]);
  });

  it('no folder imports a folder above it', () => {
    expect(layerViolations(files)).toEqual([]);
  });

  it('the bottom layers import no stage', () => {
    const bottom = files.filter((f) => ['util', 'geometry', 'formats'].includes(folderOf(f)));
    expect(bottom.length).toBeGreaterThan(10);
    expect(layerViolations(bottom)).toEqual([]);
  });

  it('bullmq and ioredis load only with the job queue: only src/queue imports them, and others import src/queue dynamically', () => {
    const outside = files.filter((f) => folderOf(f) !== 'queue');
    const offenders = outside.flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      const found: string[] = [];
      if (/\bfrom\s*['"](bullmq|ioredis)['"]|import\s*\(\s*['"](bullmq|ioredis)['"]/.test(text)) found.push(`${relative(SRC, f)} imports bullmq/ioredis`);
      for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm)) {
        if (/(^|\/)queue\//.test(m[1]) && folderOf(resolve(dirname(f), m[1])) === 'queue' && !/^\s*import\s+type\b/.test(m[0])) found.push(`${relative(SRC, f)} statically imports ${m[1]}`);
      }
      return found;
    });
    expect(offenders).toEqual([]);
    expect(files.some((f) => folderOf(f) === 'queue')).toBe(true);
  });

  it('catches upward imports, static and dynamic (the check can fail)', () => {
    const text = "import type { Stage } from '../pipeline/engine.js';\nexport { x } from '../formats/coco.js';\nconst r = await import('../report/index.js');\n";
    expect(fileViolations(join(SRC, 'formats', 'probe.ts'), text)).toEqual(['formats/probe.ts -> ../pipeline/engine.js', 'formats/probe.ts -> ../report/index.js']);
    expect(fileViolations(join(SRC, 'cli', 'probe.ts'), text)).toEqual([]);
  });
});
