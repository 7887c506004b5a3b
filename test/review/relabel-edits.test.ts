/**
 * `gsr analyze relabel` = `gsr score grounding` against the reviewed file, for every kind of review
 * edit a reviewer makes in `gsr review` (move, add, delete, relabel, mask-only): each reviewed file is
 * made through a review session and its export, as the review app makes it. One model's answers, in
 * original-image pixels, are scored against the simulated pseudo-labels first (`gsr score grounding`),
 * then re-scored; the figures must be those of scoring the same answers against the reviewed file.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAllResults } from '../../src/analysis/load-results.js';
import type { CocoFile } from '../../src/formats/coco.js';
import type { ResponseRecord } from '../../src/formats/responses.js';
import type { Box } from '../../src/geometry/boxes.js';
import { rleEncode } from '../../src/geometry/rle.js';
import { relabelResults } from '../../src/report/relabel.js';
import type { Edit } from '../../src/review/edits.js';
import { ReviewSession } from '../../src/review/session.js';
import { scoreGrounding } from '../../src/scoring/index.js';
import { runCli, scaled } from '../helpers/cli.js';
import { syntheticReviewSet, type SyntheticReviewSet } from './helpers.js';

const MODEL = 'pixel-vlm';

let set: SyntheticReviewSet;
let work: string;
let responses: ResponseRecord[];
let results: string;

/** About two thirds of the objects answered with their exact box, the rest with a corner box, one unreadable answer and one failed request. */
function answers(truth: CocoFile): ResponseRecord[] {
  const images = new Map(truth.images.map((i) => [i.id, i]));
  return truth.annotations.map((a, n) => {
    const image = images.get(a.image_id)!;
    const [x, y, w, h] = a.bbox;
    const hit = createHash('sha256').update(`${image.item_id}/${a.role}`).digest()[0] >= 85;
    const box = hit ? [x, y, x + w, y + h] : [0, 0, 4, 4];
    const base = { key: `g${n}`, model: MODEL, item: image.item_id, split: image.split, task: 'grounding', role: a.role, error: null };
    if (n === 3) return { ...base, output: 'I cannot tell where it is.', status: 'ok' as const };
    if (n === 5) return { ...base, output: '', status: 'failed' as const, error: 'HTTP 500' };
    return { ...base, output: `[${box.join(', ')}]`, status: 'ok' as const };
  });
}

/** Applies `edits` in a fresh review session and exports the reviewed file. */
async function review(name: string, edits: Array<[string, Edit]>): Promise<string> {
  const session = await ReviewSession.open({ annotations: set.pseudoFile, manifest: set.manifest, journal: join(work, `${name}.sqlite`), reviewer: 'tester', segmenter: null });
  try {
    for (const [key, edit] of edits) session.edit(key, edit);
    const out = join(work, `${name}.json`);
    await session.exportTo(out);
    return out;
  } finally {
    await session.close();
  }
}

/** The re-score beside scoring against each file directly; every figure must agree. */
async function compare(reviewed: string) {
  const relabel = await relabelResults(await loadAllResults([results]), set.pseudoFile, reviewed, { y: 'reasoning:total:circular', resamples: 200 });
  expect(relabel.warnings).toEqual([]);
  const m = relabel.models[0];
  const after = scoreGrounding(responses, JSON.parse(readFileSync(reviewed, 'utf8')) as CocoFile, { boxFormat: 'pixels', model: MODEL }).result;
  const before = scoreGrounding(responses, set.pseudo, { boxFormat: 'pixels', model: MODEL }).result;
  expect(m.avg_after).toBe(after.avg_g_score);
  expect(m.avg_before).toBe(before.avg_g_score);
  expect(Object.keys(m.columns).sort()).toEqual([...new Set([...Object.keys(after.columns), ...Object.keys(before.columns)])].sort());
  for (const [col, c] of Object.entries(m.columns)) {
    expect([c.after, c.n_after, c.no_label_after]).toEqual([after.columns[col]?.accuracy ?? null, after.columns[col]?.n ?? 0, after.columns[col]?.no_label ?? 0]);
    expect([c.before, c.n_before, c.no_label_before]).toEqual([before.columns[col]?.accuracy ?? null, before.columns[col]?.n ?? 0, before.columns[col]?.no_label ?? 0]);
  }
  return { m, after, before };
}

const sum = (m: { columns: Record<string, { flipped: number; added: number; removed: number }> }, k: 'flipped' | 'added' | 'removed') => Object.values(m.columns).reduce((s, c) => s + c[k], 0);

describe('gsr analyze relabel gives what gsr score grounding gives against the reviewed file, for every kind of edit', () => {
  beforeAll(async () => {
    set = await syntheticReviewSet(30, { seed: 9, rate: 0.3, kinds: ['wrong-place', 'not-found'], jitter: 0 });
    work = mkdtempSync(join(tmpdir(), 'gsr-relabel-edits-'));
    responses = answers(set.truth);
    writeFileSync(join(work, 'responses.jsonl'), responses.map((r) => JSON.stringify(r)).join('\n') + '\n');
    results = join(work, 'results');
    const r = runCli(['score', 'grounding', '--responses', join(work, 'responses.jsonl'), '--annotations', set.pseudoFile, '--box-format', 'pixels', '--out', results]);
    expect(r.status, r.stderr).toBe(0);
    expect(set.corrupted.filter((c) => c.kind === 'not-found').length).toBeGreaterThan(1);
    expect(set.corrupted.filter((c) => c.kind === 'wrong-place').length).toBeGreaterThan(3);
  }, scaled(120_000));
  afterAll(() => {
    for (const dir of [work, set?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('add: a box drawn for a noun the detector missed is scored (the answer about it was kept)', async () => {
    const missed = set.corrupted.filter((c) => c.kind === 'not-found');
    const reviewed = await review('add', missed.map((c) => [c.key, { kind: 'box', box: c.truth }]));
    const { m } = await compare(reviewed);
    expect(sum(m, 'added')).toBe(missed.length);
    expect(sum(m, 'flipped') + sum(m, 'removed')).toBe(0);
    const n = (w: 'n_before' | 'n_after') => Object.values(m.columns).reduce((s, c) => s + c[w], 0);
    expect(n('n_after')).toBe(n('n_before') + missed.length);
    expect(m.avg_after).not.toBe(m.avg_before);
    // The command line, as the issue reproduced it: relabel's "after" is score grounding's figure.
    const cli = runCli(['analyze', 'relabel', '--before', set.pseudoFile, '--after', reviewed, '--results', results, '--resamples', '200', '--json']);
    expect(cli.status, cli.stderr).toBe(0);
    const scored = runCli(['score', 'grounding', '--responses', join(work, 'responses.jsonl'), '--annotations', reviewed, '--box-format', 'pixels', '--out', join(work, 'scored-add'), '--json']);
    expect(scored.status, scored.stderr).toBe(0);
    const [rel, direct] = [JSON.parse(cli.stdout).models[0], JSON.parse(scored.stdout)];
    expect(rel.avg_after).toBe(direct.avg_g_score);
    for (const [col, c] of Object.entries(direct.columns as Record<string, { accuracy: number; n: number }>)) expect([rel.columns[col].after, rel.columns[col].n_after]).toEqual([c.accuracy, c.n]);
  }, scaled(120_000));

  it('move: boxes moved onto the object', async () => {
    const moved = set.corrupted.filter((c) => c.kind === 'wrong-place');
    const { m } = await compare(await review('move', moved.map((c) => [c.key, { kind: 'box', box: c.truth }])));
    expect(sum(m, 'flipped')).toBeGreaterThan(0);
    expect(sum(m, 'added') + sum(m, 'removed')).toBe(0);
  }, scaled(60_000));

  it('delete: labels marked absent or rejected are no longer scored', async () => {
    const labelled = set.pseudo.annotations.slice(0, 6).map((a) => {
      const image = set.pseudo.images.find((i) => i.id === a.image_id)!;
      return `${image.item_id}/${a.role}`;
    });
    const edits: Array<[string, Edit]> = labelled.map((key, i) => [key, i % 2 ? { kind: 'absent' } : { kind: 'reject' }]);
    const { m, after } = await compare(await review('delete', edits));
    expect(sum(m, 'removed')).toBe(labelled.length);
    expect(Object.values(after.columns).reduce((s, c) => s + c.no_label, 0)).toBe(labelled.length + set.corrupted.filter((c) => c.kind === 'not-found').length);
  }, scaled(60_000));

  it('delete every label of a column: Avg G-Score becomes undefined on both paths, never the mean of the column left', async () => {
    const objects = set.pseudo.annotations.filter((a) => a.role === 'object').map((a) => `${set.pseudo.images.find((i) => i.id === a.image_id)!.item_id}/object`);
    const { m, after } = await compare(await review('delete-column', objects.map((key) => [key, { kind: 'absent' }])));
    expect(after.unscored_columns).toEqual(['synthetic/object']);
    expect(m.avg_after).toBeNull();
    expect(m.avg_before).not.toBeNull();
  }, scaled(60_000));

  it('relabel: the model boxed another instance; the reviewer says so and draws the right one', async () => {
    const wrong = set.corrupted.filter((c) => c.kind === 'wrong-place').slice(0, 3);
    const edits = wrong.flatMap((c): Array<[string, Edit]> => [[c.key, { kind: 'wrong-instance' }], [c.key, { kind: 'box', box: c.truth }]]);
    const { m } = await compare(await review('relabel', edits));
    expect(sum(m, 'flipped')).toBeGreaterThan(0);
  }, scaled(60_000));

  it('mask only: a new mask on an unchanged box changes no G-Score', async () => {
    const a = set.pseudo.annotations[0];
    const image = set.pseudo.images.find((i) => i.id === a.image_id)!;
    const box: Box = [a.bbox[0], a.bbox[1], a.bbox[0] + a.bbox[2], a.bbox[1] + a.bbox[3]];
    const mask = new Uint8Array(image.width * image.height);
    for (let y = Math.ceil(box[1]); y < Math.floor(box[3]); y++) for (let x = Math.ceil(box[0]); x < Math.floor(box[2]); x++) mask[y * image.width + x] = 1;
    const rle = rleEncode(mask, image.height, image.width);
    const key = `${image.item_id}/${a.role}`;
    const reviewed = await review('mask', [[key, { kind: 'mask', box, mask: { size: rle.size, counts: rle.counts }, score: 0.9, segmenter: 'test' }], [key, { kind: 'accept' }]]);
    const changed = (JSON.parse(readFileSync(reviewed, 'utf8')) as CocoFile).annotations.find((x) => x.id === a.id)!;
    expect(changed.review?.source).toBe('human-edited');
    expect(changed.segmentation).toEqual(rle);
    expect(changed.bbox).toEqual(a.bbox);
    const { m } = await compare(reviewed);
    expect(m.avg_after).toBe(m.avg_before);
    expect(sum(m, 'flipped') + sum(m, 'added') + sum(m, 'removed')).toBe(0);
  }, scaled(60_000));
});
