import { describe, expect, it } from 'vitest';
import { extractChoiceAnswer, extractTemplateAnswer, normalizeCaption, type Extraction } from '../../src/scoring/index.js';

const MC = ['A mug on a table', 'A mug under a table', 'A mug to the left of a table', 'A mug to the right of a table'];
const pick = (e: Extraction) => (e.status === 'ok' ? e.index : `unparsed:${e.reason}`);

describe('MC letter extraction', () => {
  const cases: Array<[string, number | string]> = [
    ['B', 1],
    ['b', 1],
    ['(B)', 1],
    ['B.', 1],
    ['B)', 1],
    ['**B**', 1],
    ['**B.**', 1],
    ['`C`', 2],
    ['Option D', 3],
    ['B. A mug under a table', 1],
    ['(C) A mug to the left of a table.', 2],
    ['The answer is B', 1],
    ['The correct answer is: (D)', 3],
    ['Answer: C', 2],
    ['Looking at the image, the mug sits below the table surface. The answer is B.', 1],
    ["I'd pick B", 1],
    ['The mug is clearly to the left (C).', 2],
    ['A mug to the left of a table', 2],
    ['a mug UNDER the table.', 1],
    ['A', 0],
  ];
  for (const [text, expected] of cases) {
    it(JSON.stringify(text), () => expect(pick(extractChoiceAnswer(text, MC))).toBe(expected));
  }
  it('the article "A" is not read as a letter', () => {
    expect(pick(extractChoiceAnswer('A mug is under the table, so B.', MC))).toBe(1);
  });
  it('multi-answers and refusals are unparsed', () => {
    expect(pick(extractChoiceAnswer('A or B', MC))).toBe('unparsed:multiple');
    expect(pick(extractChoiceAnswer('B, C', MC))).toBe('unparsed:multiple');
    expect(pick(extractChoiceAnswer('Either (A) or (C).', MC))).toBe('unparsed:multiple');
    expect(pick(extractChoiceAnswer('I cannot determine this from the image.', MC))).toBe('unparsed:refusal');
    expect(pick(extractChoiceAnswer('None of the options.', MC))).toBe('unparsed:refusal');
    expect(pick(extractChoiceAnswer('', MC))).toBe('unparsed:empty');
    expect(pick(extractChoiceAnswer('The image shows a kitchen.', MC))).toBe('unparsed:no-match');
  });
  it('a letter contradicted by the text of another option is a conflict', () => {
    expect(pick(extractChoiceAnswer('B. A mug on a table', MC))).toBe('unparsed:conflict');
  });
  it('letters beyond the options are not answers', () => {
    expect(pick(extractChoiceAnswer('C', ['A dog on the left', 'A dog on the right']))).toBe('unparsed:no-match');
    expect(pick(extractChoiceAnswer('B', ['A dog on the left', 'A dog on the right']))).toBe(1);
  });
});

describe('TG caption matching', () => {
  it('exact, then normalised', () => {
    expect(extractTemplateAnswer('A mug under a table', MC)).toEqual({ status: 'ok', index: 1, rule: 'exact' });
    expect(extractTemplateAnswer('a mug under the table.', MC)).toEqual({ status: 'ok', index: 1, rule: 'normalized' });
    expect(extractTemplateAnswer('**A Mug Under A Table**', MC)).toMatchObject({ index: 1, rule: 'normalized' });
  });
  it('relation phrasings: "to the left of" = "left of" = "on the left side of"; "on top of" = "on"', () => {
    expect(normalizeCaption('A mug to the left of a table')).toBe('mug left of table');
    expect(normalizeCaption('The mug is on the left side of the table.')).toBe('mug left of table');
    expect(normalizeCaption('a mug on top of the table')).toBe('mug on table');
    expect(pick(extractTemplateAnswer('mug left of table', MC))).toBe(2);
    expect(pick(extractTemplateAnswer('The mug is on top of the table.', MC))).toBe(0);
  });
  it('a sentence quoting one caption, or a fragment found in one caption only', () => {
    expect(extractTemplateAnswer('I think a mug is to the right of a table.', MC)).toMatchObject({ index: 3, rule: 'answer-contains-option' });
    expect(extractTemplateAnswer('under', MC)).toMatchObject({ index: 1, rule: 'option-contains-answer' });
    expect(extractTemplateAnswer('```\nA mug under a table\n```', MC)).toMatchObject({ index: 1 });
  });
  it('ambiguous, multi-answer and refusals are unparsed', () => {
    expect(pick(extractTemplateAnswer('mug', MC))).toBe('unparsed:multiple');
    expect(pick(extractTemplateAnswer('A mug on a table or a mug under a table', MC))).toBe('unparsed:multiple');
    expect(pick(extractTemplateAnswer("Sorry, I can't tell from this image.", MC))).toBe('unparsed:refusal');
    expect(pick(extractTemplateAnswer('A cat on a sofa', MC))).toBe('unparsed:no-match');
    expect(pick(extractTemplateAnswer('   ', MC))).toBe('unparsed:empty');
  });
  it('options sharing one normal form cannot be told apart', () => {
    expect(pick(extractTemplateAnswer('mug left of table', ['A mug to the left of a table', 'the mug left of the table']))).toBe('unparsed:multiple');
  });
  it('garbage: huge and odd input never throws', () => {
    expect(pick(extractTemplateAnswer('x'.repeat(10_000_000), MC))).toBe('unparsed:no-match');
    expect(pick(extractChoiceAnswer('['.repeat(100_000), MC))).toBe('unparsed:no-match');
    expect(pick(extractChoiceAnswer(undefined as unknown as string, MC))).toBe('unparsed:empty');
  });
});
