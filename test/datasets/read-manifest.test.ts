import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest, readManifestAll, resolveItemImage, type ManifestItem } from '../../src/formats/index.js';
import { tempDir } from './fixtures.js';

const item = (over: Partial<ManifestItem> = {}): ManifestItem => ({
  id: 'whatsup-a/x',
  split: 'whatsup-a',
  image: 'controlled_images/x.jpeg',
  subject: 'mug',
  object: 'table',
  relation: 'on',
  options: ['A mug on a table', 'A mug under a table'],
  answer: 0,
  ...over,
});

async function manifestOf(lines: string[]): Promise<string> {
  const path = join(await tempDir(), 'manifest.jsonl');
  await writeFile(path, lines.join('\n') + '\n');
  return path;
}

describe('readManifest', () => {
  it('streams valid items and skips blank lines', async () => {
    const path = await manifestOf([JSON.stringify(item()), '', JSON.stringify(item({ id: 'b', object: null, relation: 'left', style: 'one-object' }))]);
    const items = await readManifestAll(path);
    expect(items.map((i) => i.id)).toEqual(['whatsup-a/x', 'b']);
    expect(items[1].style).toBe('one-object');
  });

  it.each([
    ['malformed JSON', '{"id": ', /manifest\.jsonl:2: malformed JSON line/],
    ['a missing field', JSON.stringify({ ...item({ id: 'b' }), subject: undefined }), /manifest\.jsonl:2: invalid manifest item \(subject: /],
    ['an unknown relation', JSON.stringify(item({ id: 'b', relation: 'near' as never })), /manifest\.jsonl:2: invalid manifest item \(relation: /],
    ['an answer outside the options', JSON.stringify(item({ id: 'b', answer: 2 })), /manifest\.jsonl:2: item b: answer 2 is outside its 2 options/],
    ['a repeated id', JSON.stringify(item()), /manifest\.jsonl:2: duplicate item id whatsup-a\/x/],
  ])('fails on %s naming file and line', async (_what, line, message) => {
    const path = await manifestOf([JSON.stringify(item()), line]);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const it of readManifest(path)) seen.push(it.id);
      })(),
    ).rejects.toThrow(message);
    expect(seen).toEqual(['whatsup-a/x']);
  });

  it('fails clearly on a missing file', async () => {
    await expect(readManifestAll('/no/such/manifest.jsonl')).rejects.toThrow(/\/no\/such\/manifest\.jsonl/);
  });
});

describe('resolveItemImage', () => {
  it('resolves against root, or against the manifest folder when there is none', () => {
    expect(resolveItemImage(item({ root: '/data/whatsup' }), '/elsewhere/m.jsonl')).toBe('/data/whatsup/controlled_images/x.jpeg');
    expect(resolveItemImage(item({ image: 'images/s.jpg' }), '/sets/synth/manifest.jsonl')).toBe('/sets/synth/images/s.jpg');
    expect(resolveItemImage(item({ image: 'a\\b.jpg', root: '/r' }), 'm.jsonl')).toBe('/r/a/b.jpg');
  });

  it('refuses absolute and escaping paths, naming manifest and item', () => {
    for (const image of ['/etc/passwd', '../x.jpg', 'a/../../x.jpg', 'C:/x.jpg']) {
      expect(() => resolveItemImage(item({ image, root: '/r' }), '/m/manifest.jsonl')).toThrow(/\/m\/manifest\.jsonl: item whatsup-a\/x: image path .* is absolute or escapes its root/);
    }
  });
});
