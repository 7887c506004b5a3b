import { describe, expect, it } from 'vitest';
import { assertUniqueIds, fileStemForId, parseObjectList, targetsFromImages } from '../../src/annotate/targets.js';
import { setNoticeWriter } from '../../src/util/log.js';

describe('annotation targets', () => {
  it('parses --objects as subject then object', () => {
    expect(parseObjectList(' mug , table ')).toEqual([
      { role: 'subject', phrase: 'mug' },
      { role: 'object', phrase: 'table' },
    ]);
    expect(parseObjectList('dog')).toEqual([{ role: 'subject', phrase: 'dog' }]);
    expect(() => parseObjectList(' , ')).toThrow(/at least one object/);
    expect(() => parseObjectList('a,b,c')).toThrow(/at most one object, got 3/);
  });

  it('derives unique ids from file names, and names both files when two share one', () => {
    const notices: string[] = [];
    const restore = setNoticeWriter((line) => notices.push(line));
    let t;
    try {
      t = targetsFromImages(['/x/cat.jpg', '/y/cat.png', '/z/dog.jpeg', '/w/cat.jpg'], parseObjectList('cat'));
    } finally {
      restore();
    }
    expect(t.map((x) => x.itemId)).toEqual(['cat', 'cat-2', 'dog', 'cat-3']);
    expect(notices).toEqual(['gsr: /x/cat.jpg and /y/cat.png are both named cat: /y/cat.png is item cat-2\n', 'gsr: /x/cat.jpg and /w/cat.jpg are both named cat: /w/cat.jpg is item cat-3\n']);
    expect(t[1]).toMatchObject({ imagePath: '/y/cat.png', fileName: 'cat.png' });
    expect(() => assertUniqueIds([...t, t[0]], 'm.jsonl')).toThrow('m.jsonl: duplicate item id "cat"');
  });

  it('makes safe, distinct file stems for any id', () => {
    expect(fileStemForId('img_01.b')).toBe('img_01.b');
    const a = fileStemForId('whatsup-a/mug on table');
    const b = fileStemForId('whatsup-a/mug_on_table');
    expect(a).toMatch(/^whatsup-a_mug_on_table-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(fileStemForId('../etc')).not.toContain('/');
    expect(fileStemForId('..')).not.toMatch(/^\./);
  });
});
