/**
 * The package's subpath exports: each points at a stage's index, and the pure core loads no native
 * module (onnxruntime-node, sharp, better-sqlite3) and no plotting or algebra library. Each import
 * runs in a fresh node that resolves `gsr-bench/<subpath>` through package.json's exports map (the
 * `gsr-bench-source` condition selects the TypeScript sources, run by tsx, so no build is needed);
 * a resolve hook lists every npm package the import pulls in, and the process report lists every
 * native library it loaded.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scaled } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PROBE = join(ROOT, 'test/helpers/package-probe.mjs');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, string | Record<string, string>> };

const NATIVE = ['onnxruntime-node', 'sharp', 'better-sqlite3'];
const HEAVY = ['vega', 'vega-lite', 'mathjs'];

/** Subpaths that load no native module, and those that load no heavy library either. */
const NO_NATIVE = ['geometry', 'formats', 'prompts', 'scoring', 'analysis'];
const NO_HEAVY = ['geometry', 'formats', 'prompts', 'scoring'];

interface Loaded {
  packages: string[];
  /** File names of the native libraries (.node addons) loaded. */
  native: string[];
}

/** Imports `specifier` in a fresh node and says what it loaded. */
async function load(specifier: string): Promise<Loaded> {
  const script = `await import(${JSON.stringify(specifier)});
const so = process.report.getReport().sharedObjects.filter((s) => s.endsWith('.node')).map((s) => s.split('/').pop());
process.stderr.write('NATIVE ' + so.join(' ') + '\\n');`;
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['--conditions=gsr-bench-source', '--import', 'tsx', '--import', PROBE, '--input-type=module', '-e', script],
    { cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' }, maxBuffer: 1 << 24 },
  );
  const lines = stderr.split('\n');
  const native = lines.find((l) => l.startsWith('NATIVE '));
  if (native === undefined) throw new Error(`probe printed no report:\n${stderr}`);
  return { packages: lines.filter((l) => l.startsWith('PKG ')).map((l) => l.slice(4)), native: native.slice(7).split(' ').filter(Boolean) };
}

const nativeOf = (l: Loaded) => [...l.packages.filter((p) => NATIVE.includes(p)), ...l.native];

describe('subpath exports', () => {
  const subpaths = Object.keys(pkg.exports).filter((k) => k !== '.' && k !== './package.json').map((k) => k.slice(2));

  it('every subpath is a src folder with an index, built to dist/<folder>/index.js', () => {
    expect(subpaths).toEqual(expect.arrayContaining([...NO_NATIVE, 'mllm', 'perception', 'pipeline', 'report']));
    for (const sub of subpaths) {
      expect(pkg.exports[`./${sub}`]).toEqual({ types: `./dist/${sub}/index.d.ts`, 'gsr-bench-source': `./src/${sub}/index.ts`, import: `./dist/${sub}/index.js` });
      expect(existsSync(join(ROOT, 'src', sub, 'index.ts'))).toBe(true);
    }
  });

  it('the pure core loads no native module, and its lightest parts no plotting or algebra library', async () => {
    const loaded = await Promise.all(NO_NATIVE.map((sub) => load(`${pkg.name}/${sub}`)));
    NO_NATIVE.forEach((sub, i) => {
      expect({ sub, native: nativeOf(loaded[i]) }).toEqual({ sub, native: [] });
      if (NO_HEAVY.includes(sub)) expect({ sub, heavy: loaded[i].packages.filter((p) => HEAVY.includes(p)) }).toEqual({ sub, heavy: [] });
    });
    // The probe sees what the imports really pull in: zod for the formats, mathjs for the statistics.
    expect(loaded[NO_NATIVE.indexOf('formats')].packages).toContain('zod');
    expect(loaded[NO_NATIVE.indexOf('analysis')].packages).toContain('mathjs');
  }, scaled(120_000));

  it('the probe catches native modules (the check can fail)', async () => {
    const perception = await load(`${pkg.name}/perception`);
    expect(nativeOf(perception)).toEqual(expect.arrayContaining(['onnxruntime-node', 'sharp']));
    expect(perception.native.some((f) => f.includes('onnxruntime'))).toBe(true);
  }, scaled(120_000));
});
