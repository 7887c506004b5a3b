import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCocoFile } from '../../src/formats/coco.js';
import { readPromptFile } from '../../src/formats/prompts.js';
import { readResponseFile } from '../../src/formats/responses.js';
import { parseInputSizeSpec } from '../../src/scoring/index.js';
import type { SkippedRecord } from '../../src/util/jsonl.js';
import { GsrError } from '../../src/util/errors.js';

describe('format readers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-read-'));
  it('skip bad lines, naming file and line, and keep the rest', async () => {
    const path = join(dir, 'r.jsonl');
    writeFileSync(path, ['{"key":"k1","model":"m","output":"A"}', '{oops', '', '{"model":"m"}', '{"key":"k2","output":null,"status":"failed"}'].join('\n'));
    const skipped: SkippedRecord[] = [];
    const rs = await readResponseFile(path, skipped);
    expect(rs.map((r) => [r.key, r.output, r.status])).toEqual([['k1', 'A', 'ok'], ['k2', '', 'failed']]);
    expect(skipped).toEqual([{ file: path, line: 2, reason: 'malformed JSON' }, { file: path, line: 4, reason: expect.stringMatching(/^key: /) }]);
  });
  it('prompt lines are validated with the prompts schema', async () => {
    const path = join(dir, 'p.jsonl');
    writeFileSync(path, '{"key":"k"}\n');
    const skipped: SkippedRecord[] = [];
    expect(await readPromptFile(path, skipped)).toEqual([]);
    expect(skipped).toHaveLength(1);
  });
  it('missing files and bad annotation files are one-line GsrErrors', async () => {
    await expect(readResponseFile(join(dir, 'none.jsonl'), [])).rejects.toThrow(`file not found: ${join(dir, 'none.jsonl')}`);
    const bad = join(dir, 'a.json');
    writeFileSync(bad, JSON.stringify({ images: [{ id: 1, item_id: 'x', width: 10, height: 10, file_name: 'x' }], annotations: [{ id: 1, image_id: 1, bbox: [1, 2, 3], role: 'subject', phrase: 'p', score: 1 }] }));
    await expect(readCocoFile(bad)).rejects.toThrow(/a\.json: not a gsr annotation file \(annotations\.0\.bbox/);
  });
  it('--image-size values', () => {
    expect(parseInputSizeSpec('644x476')).toEqual({ kind: 'fixed', width: 644, height: 476 });
    expect(parseInputSizeSpec('smart-resize')).toEqual({ kind: 'smart-resize' });
    expect(parseInputSizeSpec('smart-resize:3136:1003520')).toEqual({ kind: 'smart-resize', minPixels: 3136, maxPixels: 1003520 });
    expect(() => parseInputSizeSpec('12by4')).toThrow(GsrError);
    expect(() => parseInputSizeSpec('0x5')).toThrow(GsrError);
  });
});
