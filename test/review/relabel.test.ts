/**
 * Closing the loop: baselines scored against corrupted pseudo-labels, the errors corrected through a
 * review session and exported, then `gsr analyze relabel` must give exactly the G-Scores that
 * scoring against the exact truth gives.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ReviewSession } from '../../src/review/session.js';
import { runCli, scaled } from '../helpers/cli.js';
import { syntheticReviewSet, type SyntheticReviewSet } from './helpers.js';

const MODELS = ['geometric', 'random', 'always-first'];

describe('gsr analyze relabel on a corrected synthetic set', () => {
  let set: SyntheticReviewSet;
  let work: string;
  let relabel: { models: Array<{ model: string; avg_before: number; avg_after: number; avg_after_ci: { low: number; high: number }; columns: Record<string, { before: number; after: number; n_after: number; flipped: number }> }>; regression: { models: string[]; before: unknown; after: unknown } };

  beforeAll(async () => {
    // Box errors only: every object keeps a label, so every response has a record to re-score.
    set = await syntheticReviewSet(40, { seed: 5, rate: 0.15, kinds: ['wrong-place', 'part', 'loose'], jitter: 0 });
    work = mkdtempSync(join(tmpdir(), 'gsr-relabel-'));
    const pipeline = join(work, 'p.yaml');
    writeFileSync(
      pipeline,
      `name: relabel\nout: ${join(work, 'out')}\ndataset:\n  manifest: ${set.manifest}\nannotations:\n  source: file\n  file: ${set.pseudoFile}\nprompts:\n  tasks: [grounding, tg]\nmodels:\n  - { name: geometric, kind: geometric }\n  - { name: random, kind: random, seed: 3 }\n  - { name: always-first, kind: always-first }\n`,
    );
    const p = runCli(['pipeline', 'run', pipeline]);
    expect(p.status, p.stderr).toBe(0);

    // A reviewer corrects every corrupted box to the truth.
    const session = await ReviewSession.open({ annotations: set.pseudoFile, manifest: set.manifest, journal: join(work, 'review.sqlite'), reviewer: 'tester', segmenter: null });
    for (const c of set.corrupted) {
      session.edit(c.key, { kind: 'box', box: c.truth });
      session.edit(c.key, { kind: 'accept' });
    }
    await session.exportTo(join(work, 'reviewed.json'));
    await session.close();

    const r = runCli(['analyze', 'relabel', '--before', set.pseudoFile, '--after', join(work, 'reviewed.json'), '--results', ...MODELS.map((m) => join(work, 'out', 'score', m)), '--resamples', '500', '--json']);
    expect(r.status, r.stderr).toBe(0);
    relabel = JSON.parse(r.stdout);
  }, scaled(240_000));

  it('recovers the G-Scores against exact truth for every baseline', () => {
    let moved = 0;
    for (const model of MODELS) {
      const truth = runCli(['score', 'grounding', '--responses', join(work, 'out', 'answer', model, 'responses.jsonl'), '--annotations', set.truthFile, '--box-format', 'qwen2-vl', '--model', model, '--out', join(work, 'truth', model), '--json']);
      expect(truth.status, truth.stderr).toBe(0);
      const exact = JSON.parse(truth.stdout) as { avg_g_score: number; columns: Record<string, { accuracy: number; n: number }> };
      const m = relabel.models.find((x) => x.model === model)!;
      expect(m.avg_after).toBe(exact.avg_g_score);
      for (const [col, c] of Object.entries(exact.columns)) {
        expect(m.columns[col].after).toBe(c.accuracy);
        expect(m.columns[col].n_after).toBe(c.n);
      }
      expect(m.avg_after_ci.low).toBeLessThanOrEqual(m.avg_after);
      expect(m.avg_after_ci.high).toBeGreaterThanOrEqual(m.avg_after);
      if (m.avg_before !== m.avg_after) moved++;
    }
    // Scoring against the reviewed file itself gives the same (the export is valid scoring input).
    const reviewed = runCli(['score', 'grounding', '--responses', join(work, 'out', 'answer', 'random', 'responses.jsonl'), '--annotations', join(work, 'reviewed.json'), '--box-format', 'qwen2-vl', '--model', 'random', '--out', join(work, 'reviewed-score'), '--json']);
    expect(reviewed.status, reviewed.stderr).toBe(0);
    expect(JSON.parse(reviewed.stdout).avg_g_score).toBe(relabel.models.find((x) => x.model === 'random')!.avg_after);
    // The geometric baseline answered with the corrupted boxes: its pseudo-label score was too high.
    const geometric = relabel.models.find((x) => x.model === 'geometric')!;
    expect(geometric.avg_before).toBe(1);
    expect(geometric.avg_after).toBeLessThan(1);
    expect(moved).toBeGreaterThan(0);
    expect(relabel.regression.models).toEqual(MODELS);
  }, scaled(180_000));

  it('prints a table per model and column, and the regression before and after', () => {
    const r = runCli(['analyze', 'relabel', '--before', set.pseudoFile, '--after', join(work, 'reviewed.json'), '--results', ...MODELS.map((m) => join(work, 'out', 'score', m)), '--resamples', '200']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^geometric\tsynthetic\/subject\t100\.0\t/m);
    expect(r.stdout).toMatch(/regression reasoning:total:circular ~ grounding:avg across 3 models/);
    expect(r.stdout).toMatch(/before review: slope/);
  }, scaled(180_000));

  it('adds a pseudo-labels vs reviewed labels section to the report', () => {
    const out = join(work, 'report.html');
    const r = runCli(['report', '--results', ...MODELS.map((m) => join(work, 'out', 'score', m)), '--annotations', set.pseudoFile, '--reviewed', join(work, 'reviewed.json'), '--out', out, '--resamples', '200', '--y', 'reasoning:total:circular', '--x', 'grounding:avg']);
    expect(r.status, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('Pseudo-labels vs reviewed labels');
    for (const m of relabel.models) {
      expect(html).toContain(`data-testid="relabel:${m.model}:avg:after" data-value="${m.avg_after}"`);
      expect(html).toContain(`data-testid="relabel:${m.model}:avg:before" data-value="${m.avg_before}"`);
    }
    expect(html).toMatch(/Regression reasoning:total:circular on grounding:avg across 3 models/);
    const plain = runCli(['report', '--results', join(work, 'out', 'score', 'random'), '--reviewed', join(work, 'reviewed.json'), '--out', join(work, 'r2.html')]);
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).toMatch(/^gsr: error: --reviewed needs --annotations/);
  }, scaled(180_000));

  it('names a bad input in one line', () => {
    const r = runCli(['analyze', 'relabel', '--before', join(work, 'nope.json'), '--after', set.pseudoFile, '--results', join(work, 'out', 'score', 'random')]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^gsr: error: .*nope\.json/);
  }, scaled(180_000));
});
