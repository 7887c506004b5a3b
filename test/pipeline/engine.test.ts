import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runStages, stageStatus, type Stage } from '../../src/pipeline/engine.js';
import { PipelineProgress } from '../../src/pipeline/progress.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gsr-engine-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const quiet = () => new PipelineProgress(3, () => {});

/** Three stages: a writes settings.n, b doubles a's number, c adds an outside file's number. */
function chain(n: number, extFile: string, calls: string[], failInB = false): Stage[] {
  return [
    {
      name: 'a', settings: { n }, after: [],
      async run(ctx) { calls.push('a'); await writeFile(join(ctx.dir, 'a.txt'), String(n)); return { n }; },
    },
    {
      name: 'b', settings: {}, after: ['a'],
      async run(ctx) {
        calls.push('b');
        const v = Number(await readFile(join(ctx.input('a'), 'a.txt'), 'utf8'));
        // A journal that survives a crash: the stage appends and picks up where it stopped.
        const journal = join(ctx.dir, 'journal.txt');
        const before = existsSync(journal) ? readFileSync(journal, 'utf8') : '';
        writeFileSync(journal, before + 'x');
        if (failInB) throw new Error('boom');
        await writeFile(join(ctx.dir, 'b.txt'), String(v * 2));
        return { resumedFrom: before.length };
      },
    },
    {
      name: 'c', settings: {}, after: ['b'],
      async fingerprint() { return readFileSync(extFile, 'utf8'); },
      async run(ctx) {
        calls.push('c');
        const v = Number(await readFile(join(ctx.input('b'), 'b.txt'), 'utf8'));
        await writeFile(join(ctx.dir, 'c.txt'), String(v + Number(readFileSync(extFile, 'utf8'))));
        return null;
      },
    },
  ];
}

describe('stage engine', () => {
  it('runs stages in order, then skips every unchanged stage', async () => {
    const out = tmp();
    const ext = join(out, '..', `ext-${Date.now()}.txt`);
    dirs.push(ext);
    writeFileSync(ext, '1');
    const calls: string[] = [];
    const first = await runStages(chain(3, ext, calls), { out, progress: quiet() });
    expect(first.map((o) => o.status)).toEqual(['ran', 'ran', 'ran']);
    expect(readFileSync(join(out, 'c', 'c.txt'), 'utf8')).toBe('7');
    const second = await runStages(chain(3, ext, calls), { out, progress: quiet() });
    expect(second.map((o) => o.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('reruns a stage whose settings or outside inputs changed, and what reads it', async () => {
    const out = tmp();
    const ext = join(out, 'ext.txt');
    writeFileSync(ext, '1');
    const calls: string[] = [];
    await runStages(chain(3, ext, calls), { out: join(out, 'o'), progress: quiet() });
    calls.length = 0;
    writeFileSync(ext, '5');
    const r = await runStages(chain(3, ext, calls), { out: join(out, 'o'), progress: quiet() });
    expect(r.map((o) => o.status)).toEqual(['skipped', 'skipped', 'ran']);
    expect(readFileSync(join(out, 'o', 'c', 'c.txt'), 'utf8')).toBe('11');
    calls.length = 0;
    const r2 = await runStages(chain(4, ext, calls), { out: join(out, 'o'), progress: quiet() });
    expect(r2.map((o) => o.status)).toEqual(['ran', 'ran', 'ran']);
    expect(readFileSync(join(out, 'o', 'c', 'c.txt'), 'utf8')).toBe('13');
  });

  it('reruns a stage whose output file was deleted or changed in size', async () => {
    const out = tmp();
    const ext = join(out, 'ext.txt');
    writeFileSync(ext, '1');
    const calls: string[] = [];
    await runStages(chain(3, ext, calls), { out: join(out, 'o'), progress: quiet() });
    rmSync(join(out, 'o', 'b', 'b.txt'));
    const r = await runStages(chain(3, ext, []), { out: join(out, 'o'), progress: quiet() });
    expect(r.map((o) => o.status)).toEqual(['skipped', 'ran', 'skipped']);
  });

  it('leaves no folder under a final name for a failed stage, and resumes its partial work', async () => {
    const out = tmp();
    const ext = join(out, 'ext.txt');
    writeFileSync(ext, '1');
    const o = join(out, 'o');
    await expect(runStages(chain(3, ext, [], true), { out: o, progress: quiet() })).rejects.toThrow(/^b: boom/);
    expect(existsSync(join(o, 'a', '.stage.json'))).toBe(true);
    expect(existsSync(join(o, 'b'))).toBe(false);
    expect(existsSync(join(o, 'c'))).toBe(false);
    expect(existsSync(join(o, '.b.partial', 'journal.txt'))).toBe(true);
    const r = await runStages(chain(3, ext, []), { out: o, progress: quiet() });
    expect(r.map((x) => x.status)).toEqual(['skipped', 'ran', 'ran']);
    expect((r[1].record.summary as { resumedFrom: number }).resumedFrom).toBe(1);
    expect(existsSync(join(o, '.b.partial'))).toBe(false);
    expect(readFileSync(join(o, 'b', 'journal.txt'), 'utf8')).toBe('xx');
  });

  it('refuses an output folder a run in progress holds (test/util/lock.test.ts covers other processes)', async () => {
    const out = tmp();
    const ext = join(out, 'ext.txt');
    writeFileSync(ext, '1');
    const o = join(out, 'o');
    let inner: unknown;
    const outer: Stage = { name: 'outer', settings: {}, after: [], run: async () => void (inner = await runStages(chain(1, ext, []), { out: o, progress: quiet() }).catch((e: Error) => e.message)) };
    await runStages([outer], { out: o, progress: quiet() });
    expect(inner).toMatch(new RegExp(`${o} is in use by gsr pipeline run \\(pid ${process.pid}, since `));
    await expect(runStages(chain(3, ext, []), { out: o, progress: quiet() })).resolves.toHaveLength(3);
  });

  it('reports complete, stale and missing stages without running them', async () => {
    const out = tmp();
    const ext = join(out, 'ext.txt');
    writeFileSync(ext, '1');
    const o = join(out, 'o');
    const calls: string[] = [];
    expect((await stageStatus(chain(3, ext, calls), o)).map((s) => s.state)).toEqual(['missing', 'missing', 'missing']);
    await runStages(chain(3, ext, calls), { out: o, progress: quiet() });
    expect((await stageStatus(chain(3, ext, calls), o)).map((s) => s.state)).toEqual(['complete', 'complete', 'complete']);
    expect((await stageStatus(chain(4, ext, calls), o)).map((s) => s.state)).toEqual(['stale', 'stale', 'stale']);
    writeFileSync(ext, '2');
    expect((await stageStatus(chain(3, ext, calls), o)).map((s) => s.state)).toEqual(['complete', 'complete', 'stale']);
    expect(calls).toEqual(['a', 'b', 'c']);
  });
});

describe('stage hashes cover code', () => {
  /** A package copy: package.json, a stage module and the library it imports (whose text is `lib`). */
  function pkg(lib: string, types = 'export const unused = 1;\n'): string {
    const dir = tmp();
    writeFileSync(join(dir, 'package.json'), '{"name":"p","version":"1.0.0"}');
    writeFileSync(join(dir, 'stage.js'), "import { f } from './lib.js';\nimport type { T } from './types.js';\nexport const g = f;\n");
    writeFileSync(join(dir, 'lib.js'), lib);
    writeFileSync(join(dir, 'types.js'), types);
    return dir;
  }
  const stages = (code: string, calls: string[]): Stage[] => [
    { name: 'a', settings: {}, after: [], run: async (ctx) => void (calls.push('a'), await writeFile(join(ctx.dir, 'a.txt'), 'a')) },
    { name: 'b', settings: {}, after: ['a'], code: [pathToFileURL(join(code, 'stage.js')).href], run: async (ctx) => void (calls.push('b'), await writeFile(join(ctx.dir, 'b.txt'), 'b')) },
  ];

  it('reruns a stage whose code changed, and says why; a moved copy of the same code is unchanged', async () => {
    const out = join(tmp(), 'o');
    const calls: string[] = [];
    await runStages(stages(pkg('export const f = 1;\n'), calls), { out, progress: quiet() });
    // The same code in another folder, and a change to a file only imported as a type: nothing to do.
    expect((await stageStatus(stages(pkg('export const f = 1;\n', 'export const unused = 2;\n'), calls), out)).map((s) => s.state)).toEqual(['complete', 'complete']);
    const changed = pkg('export const f = 2;\n');
    const status = await stageStatus(stages(changed, calls), out);
    expect(status.map((s) => [s.name, s.state, s.reasons])).toEqual([['a', 'complete', []], ['b', 'stale', ['code changed']]]);
    const outcomes = await runStages(stages(changed, calls), { out, progress: quiet() });
    expect(outcomes.map((o) => o.status)).toEqual(['skipped', 'ran']);
    expect(calls).toEqual(['a', 'b', 'b']);
  });

  it('names inputs and settings as reasons, and stages after a rerun as upstream reruns', async () => {
    const out = tmp();
    const ext = join(out, 'ext.txt');
    writeFileSync(ext, '1');
    const o = join(out, 'o');
    await runStages(chain(3, ext, []), { out: o, progress: quiet() });
    expect((await stageStatus(chain(4, ext, []), o)).map((s) => s.reasons)).toEqual([['settings changed'], ['upstream reruns'], ['upstream reruns']]);
    writeFileSync(ext, '2');
    expect((await stageStatus(chain(3, ext, []), o)).map((s) => s.reasons)).toEqual([[], [], ['inputs changed']]);
  });
});
