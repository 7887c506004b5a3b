import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dropPartialLastLine, openJournal, type JournalDone } from '../../src/annotate/journal.js';
import { writeAnnotationsFromJournal } from '../../src/annotate/assemble.js';
import type { AnnotationInfo, CocoFile } from '../../src/formats/coco.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'gsr-journal-'));
const settings = { detector: 'd', segmenter: null, depth: null, params: { box_threshold: 0.35 } };

function done(id: string, phrases: string[], missing = 0): JournalDone {
  return {
    type: 'done',
    item_id: id,
    image: {
      file_name: `${id}.jpg`,
      width: 10,
      height: 10,
      item_id: id,
      ...(missing ? { missing: [{ role: 'object', phrase: 'x', reason: 'no box above threshold' }] } : {}),
    },
    annotations: phrases.map((phrase, i) => ({ bbox: [0, 0, 5, 5], area: 25, iscrowd: 0, role: i === 0 ? 'subject' : 'object', phrase, score: 0.9 })),
  };
}

const info: AnnotationInfo = { tool: 'gsr-bench', version: '0', date_created: 'now', source: 'auto' };

describe('run journal', () => {
  it('remembers finished images across opens', async () => {
    const path = join(tmp(), 'journal.jsonl');
    const j = await openJournal(path, settings);
    j.append(done('a', ['mug']));
    j.append({ type: 'failed', item_id: 'b', file: '/x/b.jpg', error: 'cannot decode' });
    j.close();
    const again = await openJournal(path, settings);
    expect([...again.finished]).toEqual([
      ['a', 'done'],
      ['b', 'failed'],
    ]);
    again.close();
  });

  it('a resumed run with the same provenance adds no second info line; changed provenance is appended', async () => {
    const path = join(tmp(), 'journal.jsonl');
    const j = await openJournal(path, settings);
    j.append({ type: 'info', info });
    j.append(done('a', ['mug']));
    j.close();
    const uninterrupted = readFileSync(path, 'utf8');
    const again = await openJournal(path, settings);
    again.append({ type: 'info', info });
    again.close();
    expect(readFileSync(path, 'utf8')).toBe(uninterrupted);
    const third = await openJournal(path, settings);
    third.append({ type: 'info', info: { ...info, device: 'cuda' } });
    third.append({ type: 'info', info: { ...info, device: 'cuda' } });
    third.close();
    expect(readFileSync(path, 'utf8').trimEnd().split('\n').filter((l) => l.includes('"type":"info"'))).toHaveLength(2);
  });

  it('cuts a partial last line left by a crash, and appends cleanly after it', async () => {
    const path = join(tmp(), 'journal.jsonl');
    const j = await openJournal(path, settings);
    j.append(done('a', ['mug']));
    j.close();
    appendFileSync(path, '{"type":"done","item_id":"b","ima');
    const again = await openJournal(path, settings);
    expect([...again.finished.keys()]).toEqual(['a']);
    again.append(done('c', ['cup']));
    again.close();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['header', 'done', 'done']);
  });

  it('drops nothing from a complete file and everything from a file with no newline', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'ok'), 'a\nb\n');
    expect(dropPartialLastLine(join(dir, 'ok'))).toBe(0);
    writeFileSync(join(dir, 'partial'), 'x'.repeat(70000));
    expect(dropPartialLastLine(join(dir, 'partial'))).toBe(70000);
    expect(readFileSync(join(dir, 'partial'), 'utf8')).toBe('');
  });

  it('refuses to resume with other settings unless restarted', async () => {
    const path = join(tmp(), 'journal.jsonl');
    const first = await openJournal(path, settings);
    first.append(done('a', ['mug']));
    first.close();
    const other = { ...settings, params: { box_threshold: 0.5 } };
    await expect(openJournal(path, other)).rejects.toThrow(/other settings \(params: .*0\.35.*0\.5.*--force/);
    const fresh = await openJournal(path, other, { restart: true });
    expect(fresh.finished.size).toBe(0);
    fresh.close();
  });

  it('lets new settings replace a journal in which nothing finished', async () => {
    const path = join(tmp(), 'journal.jsonl');
    (await openJournal(path, { ...settings, detector: 'typo' })).close();
    const j = await openJournal(path, settings);
    expect(j.header.settings).toEqual(settings);
    j.close();
  });

  it('names the file and line of a corrupt middle line', async () => {
    const path = join(tmp(), 'journal.jsonl');
    (await openJournal(path, settings)).close();
    appendFileSync(path, 'garbage\n{"type":"failed","item_id":"z","file":"f","error":"e"}\n');
    await expect(openJournal(path, settings)).rejects.toThrow(`${path}:2: malformed JSON line`);
  });
});

describe('writeAnnotationsFromJournal', () => {
  it('writes COCO with sequential ids, phrase categories, failures and the last info', async () => {
    const dir = tmp();
    const path = join(dir, 'journal.jsonl');
    const j = await openJournal(path, settings);
    j.append({ type: 'failed', item_id: 'a', file: '/x/a.jpg', error: 'model failed' });
    j.append(done('b', ['mug', 'table'], 0));
    j.append({ type: 'info', info: { ...info, device: 'cpu' } });
    j.append({ type: 'failed', item_id: 'c', file: '/x/c.jpg', error: 'cannot decode image' });
    j.append(done('a', ['cup'], 1)); // a retry that succeeded supersedes the failure
    j.close();
    const out = join(dir, 'annotations.json');
    const summary = await writeAnnotationsFromJournal(path, out, info);
    expect(summary).toEqual({ images_done: 2, images_failed: 1, objects_found: 3, objects_not_found: 1 });
    const coco = JSON.parse(readFileSync(out, 'utf8')) as CocoFile;
    expect(coco.info!.device).toBe('cpu');
    expect(coco.info!.failures).toEqual([{ item_id: 'c', file: '/x/c.jpg', error: 'cannot decode image' }]);
    expect(coco.images.map((i) => [i.id, i.item_id])).toEqual([
      [1, 'b'],
      [2, 'a'],
    ]);
    expect(coco.categories).toEqual([
      { id: 1, name: 'mug' },
      { id: 2, name: 'table' },
      { id: 3, name: 'cup' },
    ]);
    expect(coco.annotations.map((a) => [a.id, a.image_id, a.category_id, a.role])).toEqual([
      [1, 1, 1, 'subject'],
      [2, 1, 2, 'object'],
      [3, 2, 3, 'subject'],
    ]);
  });

  it('records relative depth with a per-image scale in info.depth', async () => {
    const dir = tmp();
    const path = join(dir, 'journal.jsonl');
    const j = await openJournal(path, settings);
    j.append({ ...done('a', ['mug']), depth: { unit: 'relative-inverse', larger: 'nearer' } });
    j.close();
    await writeAnnotationsFromJournal(path, join(dir, 'annotations.json'), info);
    const coco = JSON.parse(readFileSync(join(dir, 'annotations.json'), 'utf8')) as CocoFile;
    expect(coco.info!.depth).toEqual({ unit: 'relative-inverse', larger: 'nearer', scale: 0, scale_per_image: true });
  });

  it('writes a valid empty file for an empty journal', async () => {
    const dir = tmp();
    const path = join(dir, 'journal.jsonl');
    (await openJournal(path, settings)).close();
    await writeAnnotationsFromJournal(path, join(dir, 'annotations.json'), info);
    const coco = JSON.parse(readFileSync(join(dir, 'annotations.json'), 'utf8')) as CocoFile;
    expect(coco).toMatchObject({ images: [], annotations: [], categories: [] });
  });
});
