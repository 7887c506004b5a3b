import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captionFor, importWhatsup, importWhatsupToManifest, loaderRelation, loaderRelationName, writeWhatsupLayout, WHATSUP_FILES } from '../../src/datasets/index.js';
import { readCocoFile } from '../../src/formats/coco.js';
import { readManifestAll, resolveItemImage, type Relation } from '../../src/formats/index.js';
import { whatsupLayoutSample } from '../helpers/samples.js';
import { describeShared } from '../helpers/shared.js';
import { A_CAPTIONS, controlled, listTree, tempDir, writeWhatsupFolder } from './fixtures.js';

describe("What'sUp importer on the official layout (the project's rendered sample)", () => {
  it('reads every split with its own relation rule, nouns, zero-padded COCO ids and image sizes', async () => {
    const root = await whatsupLayoutSample();
    const out = join(await tempDir(), 'manifest.jsonl');
    const r = await importWhatsupToManifest(root, out);
    expect(r.counts).toEqual({ 'whatsup-a': 8, 'whatsup-b': 4, 'coco-one': 4, 'coco-two': 5, 'gqa-one': 4, 'gqa-two': 5 });
    expect(r.warnings).toEqual([]);
    const items = await readManifestAll(out);
    expect(items).toHaveLength(30);
    expect(new Set(items.map((i) => i.id)).size).toBe(30);
    const byId = new Map(items.map((i) => [i.id, i]));

    const a = byId.get('whatsup-a/mug_under_table')!;
    expect(a).toMatchObject({ split: 'whatsup-a', image: 'controlled_images/mug_under_table.jpeg', subject: 'mug', object: 'table', relation: 'under', answer: 0, root });
    expect(a.options).toEqual(['A mug under a table', 'A mug on a table', 'A mug to the left of a table', 'A mug to the right of a table']);
    // A wrong option with a typo (as one real Subset A record has) is kept as it is.
    expect(byId.get('whatsup-a/mug_right_of_table')!.options).toEqual(['A mug to the right of a table', 'A mug on a table', 'A mug under a tabl`e', 'A mug to the left of a table']);
    expect(byId.get('whatsup-b/mug_in-front_of_plate')).toMatchObject({ subject: 'mug', object: 'plate', relation: 'front' });
    expect(byId.get('coco-one/5')).toMatchObject({ image: 'val2017/000000000005.jpg', subject: 'box', object: null, relation: 'top', options: ['A box on the top', 'A box on the bottom'] });
    expect(byId.get('coco-two/6')).toMatchObject({ subject: 'vase', object: 'table', relation: 'above' });
    expect(byId.get('coco-two/8')).toMatchObject({ subject: 'box', object: 'table', relation: 'below' });
    // Two questions about one image: stable -2 suffix in file order.
    expect(byId.get('coco-two/2-2')).toMatchObject({ image: 'val2017/000000000002.jpg', subject: 'bench', object: 'can', relation: 'left' });
    expect(byId.get('gqa-one/1')).toMatchObject({ image: 'vg_images/1.jpg', subject: 'candle', relation: 'left' });
    expect(byId.get('gqa-two/6')).toMatchObject({ subject: 'mug', object: 'box', relation: 'front' });
    expect(byId.get('gqa-two/10')).toMatchObject({ subject: 'book', object: 'desk', relation: 'above' });

    for (const item of items) {
      // The official loader's label (file name for A and B, caption words for COCO and GQA) is the item's relation.
      const stem = item.image.split('/').pop()!.replace(/\.[^.]+$/, '');
      expect(loaderRelationName(item.split, loaderRelation(item.split, stem, item.options[0])), item.id).toBe(item.relation);
      const path = resolveItemImage(item, out);
      expect(existsSync(path), path).toBe(true);
      expect([item.width, item.height]).toEqual([320, 240]);
      expect(item.image).not.toMatch(/\\|^\//);
    }
  });

  it('comes with the exact box of every object each record names, under the importer\'s item ids', async () => {
    const root = await whatsupLayoutSample();
    const coco = await readCocoFile(join(root, '..', 'annotations.json'));
    const { items } = await importWhatsup(root, { readSizes: false });
    expect(coco.info?.source).toBe('exact-synthetic');
    expect(coco.images.map((im) => im.item_id)).toEqual(items.map((i) => i.id));
    for (const item of items) {
      const im = coco.images.find((x) => x.item_id === item.id)!;
      expect(im.file_name).toBe(item.image);
      const anns = coco.annotations.filter((a) => a.image_id === im.id);
      expect(anns.map((a) => [a.role, a.phrase])).toEqual(item.object === null ? [['subject', item.subject]] : [['subject', item.subject], ['object', item.object]]);
      for (const a of anns) {
        expect(a.bbox[0] + a.bbox[2]).toBeLessThanOrEqual(320);
        expect(a.bbox[1] + a.bbox[3]).toBeLessThanOrEqual(240);
        expect(a.area).toBeGreaterThan(0);
        expect(a.area).toBeLessThanOrEqual(a.bbox[2] * a.bbox[3]);
      }
    }
    // Both questions about one picture share its boxes, with the roles the other way round.
    const box = (id: string, role: string) => coco.annotations.find((a) => a.image_id === coco.images.find((x) => x.item_id === id)!.id && a.role === role)!.bbox;
    expect(box('coco-two/2-2', 'subject')).toEqual(box('coco-two/2', 'object'));
  });

  it('reads the same items when the root is the folder holding data/ (the official layout)', async () => {
    const root = await whatsupLayoutSample();
    const r = await importWhatsup(join(root, '..'), { readSizes: false });
    expect(r.items).toHaveLength(30);
    expect(r.items[0].image).toBe('data/controlled_images/mug_on_table.jpeg');
    const fromData = await importWhatsup(root, { readSizes: false });
    expect(r.items.map((i) => resolveItemImage(i, '/x/m.jsonl'))).toEqual(fromData.items.map((i) => resolveItemImage(i, '/x/m.jsonl')));
  });

  it('reads only the requested splits', async () => {
    const root = await whatsupLayoutSample();
    const r = await importWhatsup(root, { splits: ['whatsup-b', 'gqa-two'], readSizes: false });
    expect(r.counts).toEqual({ 'whatsup-b': 4, 'gqa-two': 5 });
    await expect(importWhatsup(root, { splits: ['nope'] })).rejects.toThrow(/unknown What'sUp split "nope"/);
  });

  it('is the same bytes for the same seed, and other pictures for another', async () => {
    const [a, b] = [await tempDir(), await tempDir()];
    await writeWhatsupLayout(a, { seed: 3, width: 160, height: 120 });
    await writeWhatsupLayout(b, { seed: 3, width: 160, height: 120 });
    const files = await listTree(a);
    expect(files).toHaveLength(29 + 6 + 1);
    expect(files).toEqual(await listTree(b));
    for (const f of files) expect((await readFile(join(a, f))).equals(await readFile(join(b, f))), f).toBe(true);
    const c = await tempDir();
    await writeWhatsupLayout(c, { seed: 4, width: 160, height: 120 });
    expect((await readFile(join(c, 'data/val2017/000000000001.jpg'))).equals(await readFile(join(a, 'data/val2017/000000000001.jpg')))).toBe(false);
    expect(await readFile(join(c, 'data/vg_qa_two_obj.json'), 'utf8')).toBe(await readFile(join(a, 'data/vg_qa_two_obj.json'), 'utf8'));
  });
});

describeShared("What'sUp importer on the 16 real sample photos", ['whatsupSample'], ({ whatsupSample }) => {
  const root = join(whatsupSample, 'data');
  it('reads 16 items with the official split counts, nouns and relations', async () => {
    const out = join(await tempDir(), 'manifest.jsonl');
    const r = await importWhatsupToManifest(root, out);
    expect(r.counts).toEqual({ 'whatsup-a': 8, 'whatsup-b': 4, 'coco-one': 1, 'coco-two': 1, 'gqa-one': 1, 'gqa-two': 1 });
    expect(r.warnings).toEqual([]);
    const items = await readManifestAll(out);
    expect(items).toHaveLength(16);
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(byId.get('whatsup-a/dog_under_table')).toMatchObject({ image: 'controlled_images/dog_under_table.jpeg', subject: 'dog', object: 'table', relation: 'under', answer: 0, root });
    expect(byId.get('whatsup-b/mug_in-front_of_plate')).toMatchObject({ subject: 'mug', object: 'plate', relation: 'front' });
    expect(byId.get('coco-one/1')).toMatchObject({ image: 'val2017/000000000001.jpg', subject: 'person', object: null, relation: 'left' });
    expect(byId.get('coco-two/2')).toMatchObject({ subject: 'dog', object: 'bench', relation: 'right' });
    expect(byId.get('gqa-one/1')).toMatchObject({ image: 'vg_images/1.jpg', subject: 'umpire', relation: 'left' });
    expect(byId.get('gqa-two/2')).toMatchObject({ subject: 'boy', object: 'racket', relation: 'right' });
    for (const item of items) {
      expect(existsSync(resolveItemImage(item, out))).toBe(true);
      expect(item.width).toBeGreaterThan(100);
      expect(item.height).toBeGreaterThan(100);
    }
    const whole = await importWhatsup(whatsupSample, { readSizes: false });
    expect(whole.items.map((i) => resolveItemImage(i, '/x/m.jsonl'))).toEqual(items.map((i) => resolveItemImage(i, '/x/m.jsonl')));
  });
});

describeShared("What'sUp importer on the 412 Subset A records", ['whatsupSubsetA'], ({ whatsupSubsetA }) => {
  it('labels 103 items with each of on, under, left and right, as the official loader does, and keeps the typo option', async () => {
    // The records come without their photos: empty stand-ins let the importer check every path.
    const root = await tempDir();
    const file = 'controlled_images_dataset.json';
    copyFileSync(join(whatsupSubsetA, file), join(root, file));
    const records = JSON.parse(await readFile(join(root, file), 'utf8')) as Array<{ image_path: string; caption_options: string[] }>;
    mkdirSync(join(root, 'controlled_images'));
    for (const rec of records) writeFileSync(join(root, rec.image_path.replace(/^data\//, '')), '');
    const r = await importWhatsup(root, { readSizes: false });
    expect(r.counts).toEqual({ 'whatsup-a': 412 });
    expect(r.warnings).toEqual([]);
    const counts: Record<string, number> = {};
    for (const item of r.items) {
      counts[item.relation] = (counts[item.relation] ?? 0) + 1;
      const stem = item.image.split('/').pop()!.replace(/\.jpeg$/, '');
      expect(loaderRelation('whatsup-a', stem, item.options[0]), item.id).toBe(item.relation);
    }
    expect(counts).toEqual({ on: 103, under: 103, left: 103, right: 103 });
    expect(new Set(r.items.map((i) => i.id)).size).toBe(412);
    expect(r.items.filter((i) => i.options.includes('A mug under a tabl`e')).map((i) => i.id)).toEqual(['whatsup-a/mug_right_of_table']);
  });
});

describe("What'sUp importer on broken input", () => {
  async function expectFailure(files: Record<string, unknown>, images: string[], message: RegExp, splits?: string[]) {
    const root = await writeWhatsupFolder(files, images);
    const out = join(root, 'out', 'manifest.jsonl');
    const err = await importWhatsupToManifest(root, out, { splits }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err, 'import should fail').toBeInstanceOf(Error);
    expect(err!.name).toBe('GsrError');
    expect(err!.message).toMatch(message);
    expect(err!.message).not.toContain('\n');
    expect(existsSync(out), 'nothing is written').toBe(false);
    return { root, message: err!.message };
  }

  it('a missing root or file', async () => {
    await expect(importWhatsup('/no/such/folder')).rejects.toThrow(/root not found.*\/no\/such\/folder/);
    const empty = await tempDir();
    await expect(importWhatsup(empty)).rejects.toThrow(/no What'sUp files in/);
    await expectFailure({ 'coco_qa_one_obj.json': [] }, [], /file not found: .*controlled_images_dataset\.json \(needed for split whatsup-a\)/, ['whatsup-a']);
  });

  it('malformed JSON names the file', async () => {
    await expectFailure({ 'controlled_images_dataset.json': '[{"image_path": ' }, [], /controlled_images_dataset\.json: malformed JSON/);
    await expectFailure({ 'vg_qa_two_obj.json': '{"not": "a list"}' }, [], /vg_qa_two_obj\.json: expected a JSON array/);
  });

  it('a record with no options names file and record', async () => {
    const files = {
      'controlled_images_dataset.json': [controlled('controlled_images/a.jpeg', A_CAPTIONS), { image_path: 'data/controlled_images/b.jpeg' }],
    };
    await expectFailure(files, ['controlled_images/a.jpeg', 'controlled_images/b.jpeg'], /controlled_images_dataset\.json: record 1: record has no caption_options/);
    await expectFailure({ 'controlled_clevr_dataset.json': [controlled('controlled_clevr/b.jpeg', [])] }, ['controlled_clevr/b.jpeg'], /record 0: record has no caption_options/);
    await expectFailure({ 'coco_qa_one_obj.json': [[1, 'A person on the left', 'A person on the right'], [2]] }, ['val2017/000000000001.jpg'], /coco_qa_one_obj\.json: record 1: record has no options/);
  });

  it('an image that does not exist names file, record and path', async () => {
    const files = { 'controlled_images_dataset.json': [controlled('controlled_images/a.jpeg', A_CAPTIONS), controlled('controlled_images/gone.jpeg', A_CAPTIONS)] };
    await expectFailure(files, ['controlled_images/a.jpeg'], /record 1 \(whatsup-a\/gone\): image not found: .*controlled_images\/gone\.jpeg/);
    await expectFailure({ 'vg_qa_one_obj.json': [[7, 'A cat on the left', 'A cat on the right']] }, [], /vg_qa_one_obj\.json: record 0 \(gqa-one\/7\): image not found: .*vg_images\/7\.jpg/);
  });

  it('an image_path that escapes the root, or is absolute', async () => {
    for (const bad of ['../../etc/passwd', 'data/../../etc/passwd', '/etc/passwd', 'C:\\Windows\\win.ini', 'data\\..\\..\\x.jpeg']) {
      const files = { 'controlled_images_dataset.json': [controlled('controlled_images/a.jpeg', A_CAPTIONS), { image_path: bad, caption_options: A_CAPTIONS }] };
      await expectFailure(files, ['controlled_images/a.jpeg'], /record 1: image_path .* is absolute or escapes the dataset root/);
    }
  });

  it('a caption it cannot parse, or a bad image id', async () => {
    await expectFailure({ 'coco_qa_two_obj.json': [[1, 'Something odd', 'Another']] }, [], /record 0: cannot parse the correct caption "Something odd"/);
    await expectFailure({ 'coco_qa_two_obj.json': [['../x', 'A dog on a bench', 'A dog under a bench']] }, [], /record 0: image_id "\.\.\/x" is not a non-negative integer/);
  });

  it('reports the first bad record and how many more, in record order', async () => {
    const files = { 'controlled_images_dataset.json': [controlled('controlled_images/x.jpeg', A_CAPTIONS), { image_path: 'data/y.jpeg' }, controlled('controlled_images/z.jpeg', A_CAPTIONS)] };
    const { message } = await expectFailure(files, [], /record 0 \(whatsup-a\/x\): image not found.*\(and 2 more bad records\)$/);
    expect(message).toContain('controlled_images_dataset.json');
  });

  it('skipInvalid keeps the good records and lists the bad ones', async () => {
    const files = {
      'controlled_images_dataset.json': [controlled('controlled_images/a.jpeg', A_CAPTIONS), controlled('controlled_images/gone.jpeg', A_CAPTIONS), { image_path: '/etc/passwd', caption_options: A_CAPTIONS }],
      'coco_qa_two_obj.json': [[3, 'A dog on a bench', 'A dog under a bench'], [3, 'A cat to the left of a dog', 'A cat to the right of a dog']],
    };
    const root = await writeWhatsupFolder(files, ['controlled_images/a.jpeg', 'val2017/000000000003.jpg']);
    const r = await importWhatsup(root, { skipInvalid: true });
    expect(r.items.map((i) => i.id)).toEqual(['whatsup-a/a', 'coco-two/3', 'coco-two/3-2']);
    expect(r.skipped).toHaveLength(2);
    expect(r.counts).toEqual({ 'whatsup-a': 1, 'coco-two': 2 });
    expect(r.items[0]).toMatchObject({ width: 32, height: 24 });
  });

  it('warns when a file name and its caption disagree', async () => {
    const files = { 'controlled_images_dataset.json': [controlled('controlled_images/mug_under_table.jpeg', A_CAPTIONS)] };
    const root = await writeWhatsupFolder(files, ['controlled_images/mug_under_table.jpeg']);
    const r = await importWhatsup(root);
    expect(r.items[0].relation).toBe('on');
    expect(r.warnings).toEqual([expect.stringMatching(/record 0 \(whatsup-a\/mug_under_table\): file name says "under" but the caption says "on"/)]);
  });

  it('accepts GQA-spatial "in front of" and "behind" records without a warning', async () => {
    const files = {
      'vg_qa_two_obj.json': [
        [5, 'A cup in front of a plate', 'A cup behind a plate'],
        [6, 'A man behind a fence', 'A man in front of a fence'],
        [7, 'A lamp above a table', 'A lamp below a table'],
      ],
    };
    const root = await writeWhatsupFolder(files, ['vg_images/5.jpg', 'vg_images/6.jpg', 'vg_images/7.jpg']);
    const r = await importWhatsup(root);
    expect(r.items.map((i) => i.relation)).toEqual(['front', 'behind', 'above']);
    expect(r.warnings).toEqual([]);
  });

  it('warns where the official loader would label a QA record differently', async () => {
    const files = { 'coco_qa_two_obj.json': [[3, 'A dog on a bench', 'A dog under a bench']] };
    const root = await writeWhatsupFolder(files, ['val2017/000000000003.jpg']);
    const r = await importWhatsup(root);
    expect(r.warnings).toEqual([
      expect.stringMatching(/relation "on" is not one of coco-two's \(left, right, above, below\)/),
      expect.stringMatching(/the official loader would label this "below", the caption reads "on"/),
    ]);
  });
});

describe("per-split relation lists against the official loader's rules", () => {
  const TOKEN: Partial<Record<Relation, string>> = { left: 'left_of', right: 'right_of', on: 'on', under: 'under', front: 'in-front_of', behind: 'behind' };
  it('each listed relation is one the loader gives, and the loader labels its caption with it', () => {
    for (const spec of WHATSUP_FILES) {
      const twoObject = spec.split.startsWith('whatsup') || spec.split.endsWith('-two');
      for (const r of spec.relations) {
        const caption = captionFor('mug', twoObject ? 'plate' : null, r);
        const stem = spec.kind === 'controlled' ? `mug_${TOKEN[r]}_plate` : '1';
        expect([spec.split, r, loaderRelationName(spec.split, loaderRelation(spec.split, stem, caption))]).toEqual([spec.split, r, r]);
      }
    }
  });

  it("the loader's rules, one per split", () => {
    expect(loaderRelation('whatsup-a', 'mug_under_table', '')).toBe('under');
    expect(loaderRelation('whatsup-a', 'mug_weird_table', '')).toBe('under');
    expect(loaderRelation('whatsup-b', 'mug_weird_plate', '')).toBe('behind');
    expect(loaderRelation('whatsup-b', 'mug_in-front_of_plate', '')).toBe('front');
    expect(loaderRelation('coco-one', '1', 'A person on the left')).toBe('left');
    expect(loaderRelation('gqa-one', '1', 'A car on the bottom.')).toBe('bottom');
    expect(loaderRelation('coco-two', '1', 'A cat beneath a dog')).toBe('below');
    expect(loaderRelation('coco-two', '1', 'A cat above a dog')).toBe('above');
    expect(loaderRelation('gqa-two', '1', 'A lamp above a table')).toBe('top');
    expect(loaderRelationName('gqa-two', 'top')).toBe('above');
    expect(loaderRelation('gqa-two', '1', 'A cup in front of a plate')).toBe('front');
    expect(() => loaderRelation('vsp', '1', 'x')).toThrow(/no official loader rule/);
  });
});
