/** The pure review core: edits and undo, provenance, export, simulation, and the queue's ranking. */
import { describe, expect, it } from 'vitest';
import type { CocoFile } from '../../src/formats/coco.js';
import type { ManifestItem } from '../../src/formats/manifest.js';
import { rleEncode } from '../../src/geometry/rle.js';
import { buildReviewedCoco } from '../../src/review/export.js';
import { labelOf, provenanceOf, type Edit, type EditEvent } from '../../src/review/edits.js';
import { buildSlots } from '../../src/review/labels.js';
import { buildQueue, recallAtShare } from '../../src/review/queue.js';
import { simulatePseudoLabels, CORRUPTION_KINDS } from '../../src/review/simulate.js';
import { syntheticReviewSet } from './helpers.js';
import { scaled } from '../helpers/cli.js';

const W = 100;
const H = 80;
function boxMask(x0: number, y0: number, x1: number, y1: number) {
  const m = new Uint8Array(W * H);
  for (let y = y0; y < y1; y++) m.fill(1, y * W + x0, y * W + x1);
  return rleEncode(m, H, W) as { size: [number, number]; counts: string };
}

function tiny(): { coco: CocoFile; items: ManifestItem[] } {
  const coco: CocoFile = {
    info: { tool: 't', version: '0', date_created: '', source: 'auto' },
    images: [{ id: 1, file_name: 'a.png', width: W, height: H, item_id: 'a', split: 'synthetic', missing: [{ role: 'object', phrase: 'table', reason: 'no box' }] }],
    annotations: [{ id: 7, image_id: 1, category_id: 1, bbox: [10, 10, 20, 20], area: 400, iscrowd: 0, role: 'subject', phrase: 'mug', score: 0.4, segmentation: boxMask(10, 10, 30, 30), depth: { median: 2, mean: 2, p10: 2, p90: 2, unit: 'm', region: 'mask' } }],
    categories: [{ id: 1, name: 'mug' }],
  };
  const items: ManifestItem[] = [{ id: 'a', split: 'synthetic', image: 'a.png', subject: 'mug', object: 'table', relation: 'on', options: ['A mug on a table', 'A mug under a table'], answer: 0 }];
  return { coco, items };
}

let seq = 0;
const ev = (slot: string, edit: Edit, reviewer = 'ann'): EditEvent => ({ seq: ++seq, slot, reviewer, time: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`, edit });

describe('edits', () => {
  const { coco, items } = tiny();
  const { slots } = buildSlots(coco, items);
  const [subject, object] = slots;

  it('builds one slot per item and role, with the model label or none', () => {
    expect(slots.map((s) => s.key)).toEqual(['a/subject', 'a/object']);
    expect(subject.model?.id).toBe(7);
    expect(object.model).toBeNull();
  });

  it('replays box edits, masks and undo', () => {
    const events = [ev('a/subject', { kind: 'box', box: [12, 10, 40, 30] })];
    let label = labelOf(subject, events);
    expect(label).toMatchObject({ box: [12, 10, 40, 30], state: 'edited', boxChanged: true, mask: null, reviewer: 'ann' });
    expect(provenanceOf(subject, label)).toBe('human-edited');
    // A mask for another box than the current one is ignored.
    const mask = { size: [H, W] as [number, number], counts: boxMask(12, 10, 40, 30).counts };
    events.push(ev('a/subject', { kind: 'mask', box: [0, 0, 5, 5], mask, score: 0.9, segmenter: 'sam' }));
    expect(labelOf(subject, events).mask).toBeNull();
    events.push(ev('a/subject', { kind: 'mask', box: [12, 10, 40, 30], mask, score: 0.9, segmenter: 'sam' }));
    expect(labelOf(subject, events).mask?.source).toBe('sam');
    events.push(ev('a/subject', { kind: 'undo' }), ev('a/subject', { kind: 'undo' }), ev('a/subject', { kind: 'undo' }));
    label = labelOf(subject, events);
    expect(label).toMatchObject({ box: [10, 10, 30, 30], state: 'unreviewed', boxChanged: false, depth: 0 });
    expect(label.mask?.source).toBe('model');
    expect(provenanceOf(subject, label)).toBe('model');
  });

  it('a new mask on the model\'s unchanged box is a human edit, and undo withdraws it', () => {
    const mask = { size: [H, W] as [number, number], counts: boxMask(10, 10, 30, 30).counts };
    const events = [ev('a/subject', { kind: 'mask', box: [10, 10, 30, 30], mask, score: 0.8, segmenter: 'sam' })];
    const label = labelOf(subject, events);
    expect(label).toMatchObject({ state: 'edited', boxChanged: false, reviewer: 'ann' });
    expect(label.mask?.source).toBe('sam');
    expect(provenanceOf(subject, label)).toBe('human-edited');
    const undone = labelOf(subject, [...events, ev('a/subject', { kind: 'undo' })]);
    expect(undone.state).toBe('unreviewed');
    expect(provenanceOf(subject, undone)).toBe('model');
  });

  it('accept keeps the model box as human-accepted; reject and absent remove the label', () => {
    expect(provenanceOf(subject, labelOf(subject, [ev('a/subject', { kind: 'accept' })]))).toBe('human-accepted');
    expect(provenanceOf(subject, labelOf(subject, [ev('a/subject', { kind: 'reject' })]))).toBeNull();
    expect(labelOf(subject, [ev('a/subject', { kind: 'absent' })])).toMatchObject({ box: null, absent: true });
    const wrong = labelOf(subject, [ev('a/subject', { kind: 'wrong-instance' }), ev('a/subject', { kind: 'box', box: [50, 40, 60, 50] })]);
    expect(wrong).toMatchObject({ wrongInstance: true, box: [50, 40, 60, 50] });
    expect(provenanceOf(subject, wrong)).toBe('human-edited');
    // Returning a box to within half a pixel of the model's is no change.
    expect(labelOf(subject, [ev('a/subject', { kind: 'box', box: [10.3, 10, 30, 29.8] })]).boxChanged).toBe(false);
  });

  it('exports provenance, keeps the model box beside the new one, and lists removed labels as missing', () => {
    const labels = new Map([
      ['a/subject', labelOf(subject, [ev('a/subject', { kind: 'box', box: [12, 10, 40, 30] }, 'bob'), ev('a/subject', { kind: 'accept' }, 'bob')])],
      ['a/object', labelOf(object, [ev('a/object', { kind: 'box', box: [0, 40, 100, 80] }, 'bob')])],
    ]);
    const { coco: out, counts } = buildReviewedCoco({ base: coco, slots, labels, meta: { base_file: 'p.json', base_sha256: 'x', journal: 'j', exported_at: 't' } });
    expect(counts).toMatchObject({ 'human-edited': 1, 'human-added': 1, model: 0 });
    const [s, o] = out.annotations as unknown as Array<Record<string, unknown>>;
    expect(s).toMatchObject({ id: 7, bbox: [12, 10, 28, 20], model_bbox: [10, 10, 20, 20], review: { source: 'human-edited', reviewer: 'bob' } });
    expect(s.segmentation).toBeUndefined();
    expect(s.depth).toBeUndefined();
    expect(o).toMatchObject({ id: 8, role: 'object', phrase: 'table', bbox: [0, 40, 100, 40], model_bbox: null, score: 1, review: { source: 'human-added' } });
    expect(out.categories!.map((c) => c.name)).toEqual(['mug', 'table']);
    expect(out.images[0].missing).toBeUndefined();
    expect(out.info!.review).toMatchObject({ base_file: 'p.json', reviewers: ['bob'] });
    const rejected = buildReviewedCoco({ base: coco, slots, labels: new Map([['a/subject', labelOf(subject, [ev('a/subject', { kind: 'reject' })])], ['a/object', labelOf(object, [])]]), meta: { base_file: '', base_sha256: '', journal: '', exported_at: '' } });
    expect(rejected.coco.annotations).toEqual([]);
    expect(rejected.coco.images[0].missing!.map((m) => m.reason)).toEqual(['rejected by the reviewer', 'not found by the detector']);
  });
});

describe('the queue on simulated pseudo-labels with known errors', () => {
  it('puts at least 80% of the corrupted labels in its first 10% (three seeds)', async () => {
    const set = await syntheticReviewSet(150, { seed: 1 });
    const figures: number[] = [];
    for (const seed of [1, 2, 3]) {
      const { coco, corrupted } = seed === 1 ? { coco: set.pseudo, corrupted: set.corrupted } : simulatePseudoLabels(set.truth, { seed });
      expect(new Set(corrupted.map((c) => c.kind))).toEqual(new Set(CORRUPTION_KINDS));
      const { slots } = buildSlots(coco, set.items);
      const queue = buildQueue(slots, coco);
      expect(queue).toHaveLength(slots.length);
      const recall = recallAtShare(queue, new Set(corrupted.map((c) => c.key)), 0.1);
      figures.push(recall);
      // A queue in manifest order would hold about 10%.
      expect(recallAtShare(slots.map((s) => ({ key: s.key, suspicion: 0, reasons: [] })), new Set(corrupted.map((c) => c.key)), 0.1)).toBeLessThan(0.5);
    }
    console.log(`review queue: share of corrupted labels in the first 10% = ${figures.map((f) => f.toFixed(3)).join(', ')} (seeds 1-3, ${set.items.length} scenes)`);
    for (const f of figures) expect(f).toBeGreaterThanOrEqual(0.8);
  }, scaled(120_000));

  it('flags every label the detector never found, with the reason', async () => {
    const set = await syntheticReviewSet(20, { seed: 4, rate: 0.2, kinds: ['not-found'] });
    const { slots } = buildSlots(set.pseudo, set.items);
    const queue = buildQueue(slots, set.pseudo);
    const notFound = set.corrupted.map((c) => c.key);
    expect(notFound.length).toBeGreaterThan(0);
    const top = queue.filter((e) => e.suspicion === 1).map((e) => e.key);
    for (const key of notFound) {
      expect(top).toContain(key);
      expect(queue.find((e) => e.key === key)!.reasons).toEqual([expect.objectContaining({ kind: 'not-found', weight: 1 })]);
    }
    expect(queue.filter((e) => e.reasons.some((r) => r.kind === 'not-found')).length).toBe(notFound.length);
  }, scaled(60_000));
});
