import { describe, expect, it } from 'vitest';
import type { CocoFile } from '../../src/formats/coco.js';
import { groundingCsv, indexGroundTruth, noLabelNote, scoreGrounding } from '../../src/scoring/index.js';
import { GsrError } from '../../src/util/errors.js';
import { response } from './fixtures.js';

/** Two-object item a1 (Subset A) and one-object item c1 (COCO one), 1000x500 images. */
function coco(): CocoFile {
  return {
    info: { tool: 'test', version: '0', date_created: '', source: 'auto' },
    images: [
      { id: 1, file_name: 'a1.jpg', width: 1000, height: 500, item_id: 'a1', split: 'whatsup-a' },
      { id: 2, file_name: 'c1.jpg', width: 1000, height: 500, item_id: 'c1', split: 'coco-one' },
    ],
    annotations: [
      { id: 1, image_id: 1, category_id: 1, bbox: [100, 100, 200, 100], area: 20000, iscrowd: 0, role: 'subject', phrase: 'mug', score: 0.9 },
      { id: 2, image_id: 1, category_id: 1, bbox: [500, 200, 400, 200], area: 80000, iscrowd: 0, role: 'object', phrase: 'table', score: 0.4 },
      // A weaker duplicate for the subject: ignored (the highest score is the ground truth).
      { id: 3, image_id: 1, category_id: 1, bbox: [0, 0, 10, 10], area: 100, iscrowd: 0, role: 'subject', phrase: 'mug', score: 0.2 },
      { id: 4, image_id: 2, category_id: 1, bbox: [0, 0, 500, 250], area: 125000, iscrowd: 0, role: 'subject', phrase: 'dog', score: 0.7 },
    ],
    categories: [{ id: 1, name: 'object' }],
  };
}

/** Qwen2-VL text for a pixel box on a 1000x500 image. */
const q2 = (x1: number, y1: number, x2: number, y2: number) => `<|box_start|>(${x1 / 1},${y1 * 2}),(${x2},${y2 * 2})<|box_end|>`;

describe('scoreGrounding', () => {
  it('hits at IoU >= 0.5, per split/role column, Avg G-Score over columns', () => {
    const rs = [
      response('k1', q2(100, 100, 300, 200), { item: 'a1', role: 'subject' }), // exact: IoU 1
      response('k2', q2(500, 200, 700, 400), { item: 'a1', role: 'object' }), // half the table: IoU 0.5
      response('k3', q2(0, 0, 250, 250), { item: 'c1', role: 'subject' }), // 62500/125000: IoU 0.5
    ];
    const { result, items } = scoreGrounding(rs, coco(), { boxFormat: 'qwen2-vl' });
    expect(Object.keys(result.columns)).toEqual(['whatsup-a/subject', 'whatsup-a/object', 'coco-one/subject']);
    expect(result.columns['whatsup-a/subject']).toMatchObject({ n: 1, hits: 1, accuracy: 1, mean_iou: 1, unparsed: 0, missing: 0 });
    expect(result.columns['whatsup-a/object'].mean_iou).toBeCloseTo(0.5, 12);
    expect(result.columns['whatsup-a/object'].hits).toBe(1); // IoU exactly 0.5 is a hit (>=)
    expect(result.columns['coco-one/subject'].accuracy).toBe(1);
    expect(result.avg_g_score).toBe(1);
    expect(items[0]).toMatchObject({ item: 'a1', split: 'whatsup-a', role: 'subject', phrase: 'mug', gt: [100, 100, 300, 200], hit: true, status: 'ok' });
    expect(items[0].box).toEqual([100, 100, 300, 200]);
  });
  it('annotations scored again after their lists changed are read as they are now', () => {
    const rs = [response('k1', q2(100, 100, 300, 200), { item: 'a1', role: 'subject' })];
    const file = coco();
    expect(Object.keys(scoreGrounding(rs, file, { boxFormat: 'qwen2-vl' }).result.columns)).toHaveLength(3);
    file.annotations = file.annotations.filter((a) => a.image_id === 1); // replaced
    expect(Object.keys(scoreGrounding(rs, file, { boxFormat: 'qwen2-vl' }).result.columns)).toEqual(['whatsup-a/subject', 'whatsup-a/object']);
    file.annotations.push({ id: 9, image_id: 1, category_id: 1, bbox: [0, 0, 10, 10], area: 100, iscrowd: 0, role: 'subject', phrase: 'mug', score: 0.95 }); // grown
    expect(scoreGrounding(rs, file, { boxFormat: 'qwen2-vl' }).result.columns['whatsup-a/subject'].hits).toBe(0);
  });
  it('an annotation edited in place is read as it is now (no hidden cache)', () => {
    const rs = [response('k1', q2(100, 100, 300, 200), { item: 'a1', role: 'subject' })];
    const file = coco();
    expect(scoreGrounding(rs, file, { boxFormat: 'qwen2-vl' }).result.columns['whatsup-a/subject'].hits).toBe(1);
    file.annotations[2].score = 0.95; // same lists, same record: the small duplicate is now the best subject
    expect(scoreGrounding(rs, file, { boxFormat: 'qwen2-vl' }).result.columns['whatsup-a/subject'].hits).toBe(0);
  });
  it('an explicit index scores several models like the file does', () => {
    const truth = indexGroundTruth(coco());
    for (const box of [q2(100, 100, 300, 200), q2(0, 0, 50, 50)]) {
      const rs = [response('k1', box, { item: 'a1', role: 'subject' })];
      expect(scoreGrounding(rs, truth, { boxFormat: 'qwen2-vl' })).toEqual(scoreGrounding(rs, coco(), { boxFormat: 'qwen2-vl' }));
    }
  });
  it('the threshold is a parameter', () => {
    const rs = [response('k2', q2(500, 200, 700, 400), { item: 'a1', role: 'object' })];
    expect(scoreGrounding(rs, coco(), { boxFormat: 'qwen2-vl', iou: 0.6 }).result.columns['whatsup-a/object'].hits).toBe(0);
    expect(() => scoreGrounding(rs, coco(), { boxFormat: 'qwen2-vl', iou: 0 })).toThrow(GsrError);
    expect(() => scoreGrounding(rs, coco(), { boxFormat: 'yolo' as never })).toThrow(/unknown box format "yolo"/);
  });
  it('unparsed and missing boxes are misses, counted apart, 0 in mean IoU', () => {
    const rs = [
      response('k1', 'The mug is on the left.', { item: 'a1', role: 'subject' }),
      response('k3', '', { item: 'c1', role: 'subject', status: 'failed', error: 'timeout' }),
    ];
    const { result, items } = scoreGrounding(rs, coco(), { boxFormat: 'qwen2-vl' });
    expect(result.columns['whatsup-a/subject']).toMatchObject({ n: 1, hits: 0, accuracy: 0, mean_iou: 0, mean_iou_parsed: null, unparsed: 1, missing: 0 });
    expect(result.columns['whatsup-a/object']).toMatchObject({ n: 1, hits: 0, missing: 1 });
    expect(result.columns['coco-one/subject']).toMatchObject({ missing: 1 });
    expect(result.avg_g_score).toBe(0);
    expect(items.find((i) => i.role === 'subject' && i.item === 'a1')).toMatchObject({ status: 'unparsed', box: null, iou: null, hit: false });
    expect(result.unparsed_reasons).toEqual({ 'no-box': 1, missing: 1, failed: 1 });
  });
  it("the detector's own rows: mean confidence and share >= 0.5", () => {
    const { result } = scoreGrounding([], coco(), { boxFormat: 'qwen2-vl' });
    expect(result.detector.columns['whatsup-a/subject']).toEqual({ n: 1, mean_confidence: 0.9, share_confident: 1 });
    expect(result.detector.columns['whatsup-a/object']).toEqual({ n: 1, mean_confidence: 0.4, share_confident: 0 });
    expect(result.detector.all.mean_confidence).toBeCloseTo((0.9 + 0.4 + 0.7) / 3, 12);
    expect(result.detector.all.share_confident).toBeCloseTo(2 / 3, 12);
  });
  it('qwen2.5-vl pixel boxes use the smart-resized size by default, or a fixed one', () => {
    // 1000x500 -> smart_resize 1008x504: a pixel box there scales by 1000/1008 and 500/504.
    const rs = [response('k1', '{"bbox_2d": [100.8, 100.8, 302.4, 201.6]}', { item: 'a1', role: 'subject' })];
    const auto = scoreGrounding(rs, coco(), { boxFormat: 'qwen2.5-vl' });
    expect(auto.items[0].iou).toBeCloseTo(1, 9);
    const fixed = scoreGrounding(rs, coco(), { boxFormat: 'qwen2.5-vl', inputSize: { kind: 'fixed', width: 2000, height: 1000 } });
    expect(fixed.items[0].hit).toBe(false);
  });
  it('auto reports the formats it guessed', () => {
    const rs = [response('k1', '[[100, 200, 300, 400]]', { item: 'a1', role: 'subject' })];
    const { result, items } = scoreGrounding(rs, coco(), { boxFormat: 'auto' });
    expect(result.guessed_formats).toEqual({ cogvlm: 1 });
    expect(items[0]).toMatchObject({ format: 'cogvlm', guessed: true, hit: true });
  });
  it('responses about items the file does not hold are counted, not scored', () => {
    const rs = [response('kx', q2(0, 0, 10, 10), { item: 'zz', role: 'subject' })];
    expect(scoreGrounding(rs, coco(), { boxFormat: 'qwen2-vl' }).result.no_annotation).toBe(1);
  });
  it('objects without a label stay in their column as no_label; Avg G-Score never drops a column', () => {
    // c1's subject was looked for and not found; a1's object is asked about but neither labelled nor listed.
    const file = coco();
    file.annotations = file.annotations.filter((a) => a.id === 1);
    file.images[1].missing = [{ role: 'subject', phrase: 'dog', reason: 'not found by the detector' }];
    const rs = [
      response('k1', q2(100, 100, 300, 200), { item: 'a1', role: 'subject' }),
      response('k2', q2(500, 200, 700, 400), { item: 'a1', role: 'object' }),
      response('k3', q2(0, 0, 250, 250), { item: 'c1', role: 'subject' }),
    ];
    const { result, items } = scoreGrounding(rs, file, { boxFormat: 'qwen2-vl' });
    expect(Object.keys(result.columns)).toEqual(['whatsup-a/subject', 'whatsup-a/object', 'coco-one/subject']);
    expect(result.columns['whatsup-a/subject']).toMatchObject({ n: 1, no_label: 0, accuracy: 1 });
    expect(result.columns['whatsup-a/object']).toMatchObject({ n: 0, no_label: 1, hits: 0, accuracy: null, missing: 0, unparsed: 0 });
    expect(result.columns['coco-one/subject']).toMatchObject({ n: 0, no_label: 1, accuracy: null });
    // Not the mean of the one column left (1): undefined, and the columns named.
    expect(result.avg_g_score).toBeNull();
    expect(result.unscored_columns).toEqual(['whatsup-a/object', 'coco-one/subject']);
    expect(result.no_annotation).toBe(0);
    expect(result.detector.all.n).toBe(1);
    // The answers are kept on their lines, unscored, for a later re-score against reviewed labels.
    expect(items.filter((i) => i.status === 'no_label').map((i) => [i.item, i.role, i.output, i.gt, i.hit])).toEqual([
      ['c1', 'subject', q2(0, 0, 250, 250), null, false],
      ['a1', 'object', q2(500, 200, 700, 400), null, false],
    ]);
    expect(noLabelNote(result)).toBe(
      '2 of 3 objects have no pseudo-label and are not scored (whatsup-a/object 1, coco-one/subject 1); Avg G-Score not computed: whatsup-a/object, coco-one/subject have no labelled object',
    );
    expect(groundingCsv(result).split('\n')[1]).toBe('m1,1,,,,1,0,0,2');
    // Listed as missing but never answered: still counted.
    const unanswered = scoreGrounding([rs[0]], file, { boxFormat: 'qwen2-vl' }).result;
    expect(unanswered.columns['coco-one/subject']).toMatchObject({ n: 0, no_label: 1 });
    expect(unanswered.avg_g_score).toBeNull();
  });
  it('bad annotation files are GsrErrors naming the record', () => {
    const bad = coco();
    bad.annotations[0].image_id = 99;
    expect(() => scoreGrounding([], bad, { boxFormat: 'qwen2-vl' })).toThrow(/annotation 1: image_id 99/);
    expect(() => scoreGrounding([], {} as CocoFile, { boxFormat: 'qwen2-vl' })).toThrow(GsrError);
  });
  it('Table 2 CSV: model row with its objects and unparsed and missing answers beside the G-Score, detector rows', () => {
    const rs = [response('k1', q2(100, 100, 300, 200), { item: 'a1', role: 'subject' }), response('k2', 'no idea', { item: 'a1', role: 'object' })];
    const csv = groundingCsv(scoreGrounding(rs, coco(), { boxFormat: 'qwen2-vl' }).result).trim().split('\n');
    expect(csv[0]).toBe('row,whatsup-a/subject,whatsup-a/object,coco-one/subject,avg_g_score,objects,unparsed,missing,no_label');
    expect(csv[1]).toBe('m1,1,0,0,0.3333,3,1,1,0');
    expect(csv[2]).toBe('detector mean confidence,0.9,0.4,0.7,0.6667,,,,');
    expect(csv[3]).toBe('detector share confidence >= 0.5,1,0,1,0.6667,,,,');
  });
});
