/**
 * Stages notice new code: a pipeline run from a temporary copy of the package (from source, with
 * tsx), run again (every stage skipped), then with a scorer changed in the copy: `gsr pipeline
 * status` says the score stage's code changed, and the run reruns score (and, when its output
 * changed, what reads it) while every stage before it is skipped.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-code-change-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const copy = join(work, 'pkg');
cpSync(join(REPO_ROOT, 'src'), join(copy, 'src'), { recursive: true });
cpSync(join(REPO_ROOT, 'package.json'), join(copy, 'package.json'));
for (const shared of ['node_modules', 'models', 'data']) symlinkSync(join(REPO_ROOT, shared), join(copy, shared));

const out = join(work, 'out');
const file = join(work, 'p.yaml');
writeFileSync(file, `name: code
out: ${out}
dataset: { synthetic: { count: 4, seed: 3 } }
annotations: { source: exact }
prompts: { tasks: [tg] }
models:
  - { name: geometric, kind: geometric }
  - { name: random, kind: random, seed: 1 }
`);

/** `gsr` from the copy; the stage lines (stderr) by stage name, and stdout. */
function gsr(args: string[]): { status: number | null; stages: Record<string, string>; stdout: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(copy, 'src', 'cli', 'main.ts'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, GSR_PROGRESS: '0' } });
  if (r.status !== 0) throw new Error(`gsr ${args.join(' ')}: ${r.stderr}`);
  const stages: Record<string, string> = {};
  for (const m of r.stderr.matchAll(/^gsr: \[\d+\/\d+\] (\w+): (unchanged, skipped|done in)/gm)) stages[m[1]] = m[2] === 'done in' ? 'ran' : 'skipped';
  return { status: r.status, stages, stdout: r.stdout };
}

/** Edits a file of the copy; fails when the text to replace is not there. */
function edit(rel: string, from: string, to: string): void {
  const path = join(copy, rel);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${rel} no longer holds ${JSON.stringify(from)}: update this test`);
  writeFileSync(path, text.replace(from, to));
}

const BEFORE_SCORE = { dataset: 'skipped', annotate: 'skipped', prompts: 'skipped', answer: 'skipped' };

describe('a changed scorer reruns the score stage and what follows, nothing before it', () => {
  it('from source, in a copy of the package', () => {
    expect(Object.values(gsr(['pipeline', 'run', file]).stages)).toEqual(Array(7).fill('ran'));
    expect(Object.values(gsr(['pipeline', 'run', file]).stages)).toEqual(Array(7).fill('skipped'));

    // A change that leaves the scores as they were: score runs again, and its unchanged output lets the rest be.
    edit('src/scoring/reasoning.ts', '/** Scores one prompt', '// reviewed\n/** Scores one prompt');
    expect(gsr(['pipeline', 'status', file]).stdout).toMatch(/^answer +complete.*\nscore +stale \(code changed\)/m);
    expect(gsr(['pipeline', 'run', file]).stages).toEqual({ ...BEFORE_SCORE, score: 'ran', analyze: 'skipped', report: 'skipped' });

    // A scorer that now marks every answer wrong: score and everything that reads it run again.
    edit('src/scoring/reasoning.ts', 'correct: chosen !== null && chosen === answerIndex,', 'correct: false,');
    const status = gsr(['pipeline', 'status', file, '--json']).stdout;
    expect(JSON.parse(status).stages.map((s: { name: string; state: string; reasons: string[] }) => `${s.name} ${s.state} ${s.reasons.join(', ')}`)).toEqual([
      'dataset complete ', 'annotate complete ', 'prompts complete ', 'answer complete ', 'score stale code changed', 'analyze stale upstream reruns', 'report stale upstream reruns',
    ]);
    const rerun = gsr(['pipeline', 'run', file]);
    expect(rerun.stages).toEqual({ ...BEFORE_SCORE, score: 'ran', analyze: 'ran', report: 'ran' });
    expect(rerun.stdout).toMatch(/^geometric +geometric +0\.0 /m);
  }, 600_000);
});
