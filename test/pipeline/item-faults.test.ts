/**
 * A pipeline whose items fail (an image that cannot be decoded) finishes, names the failed items by
 * stage in its summary and its report, and exits 3 (docs/cli.md, "Exit codes"), also when the stage is
 * unchanged on a rerun.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { synthesizeDataset } from '../../src/datasets/index.js';
import { FIXTURE_ANNOTATOR, writeFixtureModels } from '../helpers/annotator-fixtures.js';
import { runCliInProcess, scaled } from '../helpers/cli.js';

describe('pipeline with item faults', () => {
  it('an undecodable image: annotate records it, the run goes on, the summary and the report say so, exit 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-item-faults-'));
    await synthesizeDataset({ out: join(dir, 'syn'), count: 6, seed: 2, width: 160, height: 120, format: 'png', workers: 0 });
    writeFileSync(join(dir, 'syn', 'images', 'synth-00002.png'), 'not a png');
    writeFixtureModels(join(dir, 'models'));
    const file = join(dir, 'p.yaml');
    writeFileSync(file, `name: faults
out: ${join(dir, 'out')}
dataset:
  manifest: ${join(dir, 'syn', 'manifest.jsonl')}
annotations:
  source: models
  models:
    detector: ${FIXTURE_ANNOTATOR.detector}
    device: cpu
    models_dir: ${join(dir, 'models')}
prompts:
  tasks: [tg, grounding]
models:
  - name: geometric
    kind: geometric
  - name: random
    kind: random
    seed: 1
  - name: always-first
    kind: always-first
`);
    const first = await runCliInProcess(['pipeline', 'run', file]);
    expect(first.status, first.stderr).toBe(3);
    expect(first.stdout).toMatch(/^left out: annotate: 1 of 6 images failed \(first: synth-00002: .+\)$/m);
    // The geometric baseline answers from the annotations: items without a box fail for it too.
    expect(first.stdout).toMatch(/^left out: answer: \d+ of 90 answers failed \(geometric: \d+ \(.*no annotations for the item \d.*\)\)$/m);
    expect(first.stderr).toMatch(/^gsr: 1 images \(annotate\), \d+ answers \(answer\) failed; exit code 3$/m);
    const html = readFileSync(join(dir, 'out', 'report', 'report.html'), 'utf8');
    expect(html).toContain('Items that failed or were left out');
    expect(html).toMatch(/<li>annotate: 1 of 6 images failed \(first: synth-00002: /);

    // Unchanged on a rerun: still reported, still exit 3.
    const again = await runCliInProcess(['pipeline', 'run', file]);
    expect(again.status).toBe(3);
    expect(again.stdout).toContain('(0 ran, ');
    expect(again.stdout).toMatch(/^left out: annotate: 1 of 6 images failed/m);
  }, scaled(120_000));
});
