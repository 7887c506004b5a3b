/**
 * Ctrl-C during `gsr pipeline run` (issue 36): the run exits 130 as every command does (docs/cli.md,
 * "Exit codes"), and the stage that is running says how it stops — not the answer stage's words while
 * another stage runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit.js';
import { INTERRUPTED_EXIT, runStages, type Stage } from '../../src/pipeline/engine.js';
import { PipelineProgress } from '../../src/pipeline/progress.js';
import { GsrError } from '../../src/util/errors.js';
import { runCliInProcess as gsr, scaled } from '../helpers/cli.js';
import { startFakeServer } from '../mllm/fake-server.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-interrupt-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A stage that waits until the run is interrupted, then stops as a stage does (throws). */
const waiting = (name: string, after: string[], stopping: string | undefined, started: () => void): Stage => ({
  name, settings: {}, after, stopping,
  run: (ctx) => new Promise((_resolve, reject) => {
    ctx.signal!.addEventListener('abort', () => reject(new Error('interrupted (kept what was done)')), { once: true });
    started();
  }),
});
const quick = (name: string, after: string[], stopping?: string): Stage => ({ name, settings: {}, after, stopping, run: async () => ({}) });

describe('interrupting a pipeline run', () => {
  it('the running stage prints its own stopping line; the run fails with exit code 130; later stages do not start', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const stages = [quick('dataset', [], 'finishing the scenes'), waiting('annotate', ['dataset'], 'finishing the images in hand', () => controller.abort()), quick('answer', ['annotate'], 'finishing the answers in flight')];
    const run = runStages(stages, { out: join(work, 'engine'), progress: new PipelineProgress(3, (l) => lines.push(l)), signal: controller.signal });
    await expect(run).rejects.toThrow(GsrError);
    await expect(run).rejects.toMatchObject({ exitCode: INTERRUPTED_EXIT, message: 'annotate: interrupted (kept what was done)' });
    expect(INTERRUPTED_EXIT).toBe(EXIT.interrupted);
    expect(lines).toEqual([expect.stringMatching(/^gsr: \[1\/3\] dataset: done in /), 'gsr: [2/3] annotate: interrupted: finishing the images in hand']);
  });

  it('a stage that does not stop early finishes, and the run stops before the next one', async () => {
    const lines: string[] = [];
    const controller = new AbortController();
    const stages: Stage[] = [{ name: 'score', settings: {}, after: [], run: async () => (controller.abort(), {}) }, quick('report', ['score'])];
    const run = runStages(stages, { out: join(work, 'between'), progress: new PipelineProgress(2, (l) => lines.push(l)), signal: controller.signal });
    await expect(run).rejects.toMatchObject({ exitCode: INTERRUPTED_EXIT, message: 'interrupted before stage report (the stages before it are complete; run again to go on)' });
    expect(lines).toEqual(['gsr: [1/2] score: interrupted: finishing this stage, then stopping', expect.stringMatching(/^gsr: \[1\/2\] score: done in /)]);
  });

  it('gsr pipeline run: Ctrl-C while models answer exits 130 with the answer stage\'s line, and no error', async () => {
    // The endpoint's first request stands for Ctrl-C (the command's own SIGINT handler).
    const server = await startFakeServer({ reply: (text) => {
      (process.listeners('SIGINT').at(-1) as () => void)();
      return text;
    } });
    try {
      const file = join(work, 'cli.yaml');
      writeFileSync(file, `name: cli
out: ${join(work, 'cli')}
dataset: { synthetic: { count: 2, seed: 3 } }
annotations: { source: exact, compare_models: false }
prompts: { tasks: [mc] }
models:
  - { name: m, kind: openai, base_url: ${server.url}, concurrency: 1 }
`);
      const r = await gsr(['pipeline', 'run', file]);
      expect(r.status).toBe(EXIT.interrupted);
      expect(r.stderr).toContain('gsr: interrupted (what is finished is kept; run again to resume; Ctrl-C again to quit now)\n');
      expect(r.stderr).toMatch(/gsr: \[4\/\d\] answer: interrupted: finishing the answers in flight \(answers so far are kept\)\n/);
      expect(r.stderr).toContain('gsr: answer: interrupted (answers so far are kept; run again to resume)\n');
      expect(r.stderr).not.toContain('error');
    } finally {
      await server.close();
    }
  }, scaled(120_000));
});
