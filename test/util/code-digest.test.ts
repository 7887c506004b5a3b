import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeDigest, codeFiles } from '../../src/util/code-digest.js';

/** A package in a temp folder from file texts; returns its folder. */
function pkg(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-code-'));
  for (const [name, text] of Object.entries({ 'package.json': '{"version":"1.2.3"}', ...files })) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
const url = (dir: string, f: string) => pathToFileURL(join(dir, f)).href;

describe('code digest', () => {
  const files = {
    'src/a.ts': "import { b } from './b.js';\nimport type { T } from './t.js';\nexport { c } from './c.js';\nconst w = new URL('./w.js', import.meta.url);\nexport const d = () => import('./d.js');\nimport sharp from 'sharp';\nimport { x } from 'node:fs';\n",
    'src/b.ts': 'export const b = 1;\n',
    'src/c.ts': "import './b.js';\nexport const c = 2;\n",
    'src/d.ts': 'export const d = 3;\n',
    'src/w.ts': 'export {};\n',
    'src/t.ts': 'export type T = number;\n',
    'node_modules/sharp/package.json': '{"version":"0.34.5"}',
  };

  it('follows static, re-export, dynamic and worker imports (TypeScript sources for .js names), not type-only ones', () => {
    expect(codeFiles([url(pkg(files), 'src/a.ts')])).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/w.ts']);
  });

  it('changes with the code it follows, an outside package version or the package version, and with nothing else', () => {
    const base = codeDigest([url(pkg(files), 'src/a.ts')]);
    expect(codeDigest([url(pkg(files), 'src/a.ts')])).toBe(base); // a moved copy
    expect(codeDigest([url(pkg({ ...files, 'src/t.ts': 'export type T = string;\n' }), 'src/a.ts')])).toBe(base);
    expect(codeDigest([url(pkg({ ...files, 'src/d.ts': 'export const d = 4;\n' }), 'src/a.ts')])).not.toBe(base);
    expect(codeDigest([url(pkg({ ...files, 'node_modules/sharp/package.json': '{"version":"0.35.0"}' }), 'src/a.ts')])).not.toBe(base);
    expect(codeDigest([url(pkg({ ...files, 'package.json': '{"version":"1.2.4"}' }), 'src/a.ts')])).not.toBe(base);
  });

  it("in this package, the score stage's code holds the scorers and no stage before it does", () => {
    const stage = (name: string) => codeFiles([new URL(`../../src/pipeline/stages/${name}.ts`, import.meta.url).href]);
    expect(stage('score').filter((f) => f.startsWith('src/scoring/')).length).toBeGreaterThan(3);
    for (const before of ['dataset', 'annotate', 'photos', 'prompts', 'answer']) expect(stage(before).filter((f) => f.startsWith('src/scoring/')), before).toEqual([]);
  });
});
