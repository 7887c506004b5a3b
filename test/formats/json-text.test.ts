import { describe, expect, it } from 'vitest';
import { extractJson } from '../../src/formats/json-text.js';

describe('extractJson', () => {
  it('reads a whole JSON text', () => {
    expect(extractJson(' {"a": 1} ')).toEqual({ value: { a: 1 }, from: 'whole' });
  });
  it('reads a fenced block', () => {
    expect(extractJson('Sure:\n```json\n{"answer": "NORTH"}\n```\nDone.')).toEqual({ value: { answer: 'NORTH' }, from: 'fence' });
  });
  it('reads the first balanced object in prose, skipping braces inside strings', () => {
    expect(extractJson('I think {"x": "a } b", "y": [1, {"z": 2}]} is it {"no": 1}')).toEqual({ value: { x: 'a } b', y: [1, { z: 2 }] }, from: 'span' });
  });
  it('skips a span that does not parse and takes the next', () => {
    expect(extractJson('{not json} then [1,2]')).toEqual({ value: [1, 2], from: 'span' });
  });
  it('says when there is none', () => {
    expect(extractJson('no json here {')).toEqual({ error: 'no JSON value in the text' });
  });
  it('gives up on text full of brackets that never close instead of searching for quadratic time', () => {
    // 20,000 unclosed brackets would cost 2 x 10^8 steps; the budget stops the search near SPAN_BUDGET.
    expect(extractJson('['.repeat(20_000))).toEqual({ error: 'no JSON value found before the search gave up (too many brackets)' });
    expect(extractJson('['.repeat(500) + ' then {"a": 1}')).toEqual({ value: { a: 1 }, from: 'span' });
  });
});
