/**
 * Objects without a pseudo-label, as the three places that show a G-Score show them: `gsr score
 * grounding`, the pipeline's summary and the report agree on how many there are and on Avg G-Score,
 * which stays over the declared columns: with every object label gone (as a detector that finds none
 * of them leaves it), the column stays and the average is undefined, never the mean of the rest.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CocoFile } from '../../src/formats/coco.js';
import { runPipeline, type PipelineResult } from '../../src/pipeline/index.js';
import { runCli, scaled } from '../helpers/cli.js';
import { syntheticReviewSet, type SyntheticReviewSet } from '../review/helpers.js';

let set: SyntheticReviewSet;
let work: string;
let result: PipelineResult;
let stdout: string;
let unlabelled: number;

beforeAll(async () => {
  // Some subjects not found by the "detector", and no object found at all.
  set = await syntheticReviewSet(16, { seed: 3, rate: 0.15, kinds: ['not-found'], jitter: 0 });
  const pseudo = JSON.parse(readFileSync(set.pseudoFile, 'utf8')) as CocoFile;
  for (const a of pseudo.annotations.filter((x) => x.role === 'object')) {
    const image = pseudo.images.find((i) => i.id === a.image_id)!;
    image.missing = [...(image.missing ?? []), { role: 'object', phrase: a.phrase, reason: 'no box above the detector threshold' }];
  }
  pseudo.annotations = pseudo.annotations.filter((a) => a.role !== 'object');
  unlabelled = pseudo.images.reduce((n, i) => n + (i.missing?.length ?? 0), 0);
  const labels = join(set.dir, 'no-objects.json');
  writeFileSync(labels, JSON.stringify(pseudo));
  work = mkdtempSync(join(tmpdir(), 'gsr-no-label-'));
  const file = join(work, 'p.yaml');
  writeFileSync(
    file,
    `name: no-label\nout: ${join(work, 'out')}\ndataset:\n  manifest: ${set.manifest}\nannotations:\n  source: file\n  file: ${labels}\nprompts:\n  tasks: [grounding, tg]\n` +
      'models:\n  - { name: random-4, kind: random, seed: 4 }\n  - { name: random, kind: random, seed: 3 }\n  - { name: always-first, kind: always-first }\n',
  );
  result = await runPipeline(file, { log: () => {} });
  const printed = runCli(['pipeline', 'run', file]);
  expect(printed.status, printed.stderr).toBe(0);
  stdout = printed.stdout;
}, scaled(300_000));

afterAll(() => {
  for (const dir of [work, set?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('objects without a pseudo-label: score grounding, the pipeline summary and the report agree', () => {
  it('the summary counts them per model, prints the line, and leaves Avg G-Score undefined', () => {
    expect(unlabelled).toBeGreaterThan(set.items.filter((i) => i.object !== null).length);
    const objects = set.items.filter((i) => i.object !== null).length;
    const note = `${unlabelled} of ${set.items.length + objects} objects have no pseudo-label and are not scored (synthetic/subject ${unlabelled - objects}, synthetic/object ${objects}); Avg G-Score not computed: synthetic/object has no labelled object`;
    expect(result.notes).toEqual([note]);
    for (const row of result.rows) expect([row.g_score, row.g_no_label, row.g_objects]).toEqual([null, unlabelled, set.items.length - (unlabelled - objects)]);
    expect(stdout).toContain(`\nG-Score: ${note}\n`);
    expect(stdout).toMatch(new RegExp(`^random +random .* - +0/${set.items.length - (unlabelled - objects)} +${unlabelled} +0$`, 'm'));
  });

  it('gsr score grounding on the same answers prints the same count and line', () => {
    const labels = join(set.dir, 'no-objects.json');
    const r = runCli(['score', 'grounding', '--responses', join(work, 'out', 'answer', 'random', 'responses.jsonl'), '--annotations', labels, '--model', 'random', '--box-format', 'qwen2-vl', '--out', join(work, 'scored')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^synthetic\/object +n=0 g-score=- .* no_label=\d+$/m);
    expect(r.stdout).toContain('avg g-score: - over 2 columns');
    expect(r.stdout).toContain(result.notes![0]);
    const scored = JSON.parse(readFileSync(join(work, 'scored', 'grounding.json'), 'utf8'));
    const piped = JSON.parse(readFileSync(join(work, 'out', 'score', 'random', 'grounding.json'), 'utf8'));
    expect(scored.columns).toEqual(piped.columns);
    expect([scored.avg_g_score, scored.unscored_columns]).toEqual([null, ['synthetic/object']]);
  }, scaled(120_000));

  it('the report shows the count beside each model, the line under Table 2, and no Avg G-Score', () => {
    const html = readFileSync(result.report!, 'utf8');
    // A column without a labelled object has no accuracy and no mean IoU: grounding.json still reads.
    expect(html).not.toContain('while reading results');
    for (const m of ['random-4', 'random', 'always-first']) {
      expect(html).toContain(`data-testid="t2:${m}:no-label" data-value="${unlabelled}"`);
      expect(html).toContain(`<td class="na" data-testid="t2:${m}:avg">`);
    }
    expect(html).toContain(`data-testid="t2-no-label">${result.notes![0]}.</p>`);
  });
});
