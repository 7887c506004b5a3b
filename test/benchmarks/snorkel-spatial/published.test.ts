/**
 * The published SnorkelSpatial Data Sample (snorkel-spatial.txt of GSR_SHARED_PAPERS) as a test case: its
 * start, four actions and question, built as an item, give its answer, and the prompt built for it is
 * the sample's text. The sample is quoted as published because its wording is the point.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerKey, oracleAnswer, parseSnorkelItem, type SnorkelItem } from '../../../src/benchmarks/snorkel-spatial/item.js';
import { judgeSnorkel } from '../../../src/benchmarks/snorkel-spatial/judge.js';
import { buildSnorkelPrompts, snorkelPromptText } from '../../../src/benchmarks/snorkel-spatial/prompts.js';
import { describeShared } from '../../helpers/shared.js';

/** The sample's question, as published. */
const PUBLISHED_PROMPT = `# Initial States
The environment consists of two particles P1, P2 and a square board B1 of width 5, with 1x1 tiles numbered from 1 to 25 in a zigzag pattern. The board's location and orientation are determined by its centroid's location and orientation. Initially the board is at location (2.5, 2.5) and oriented towards north. P1 is at (1.5, 2.5) and facing south. P2 is at (4.5, 2.5) and facing east.

# Actions
The actions are the following:
First, particle P2 is rotated by 90 degrees. Then, move particle P1 BACKWARD by 1 unit. Then, particle P2 is rotated by 0 degrees. Then, rotate board B1 by 180 degrees.

# Question
What is the orientation of particle P1 after all the actions?

# Response format - JSON schema
You must get the final answer and convert it to the following JSON data structure.
Follow the schema exactly.
Key: \`particle_P1_orientation\`
Type: String`;

/** The sample's solution, as published. */
const PUBLISHED_OUTPUT = '{\n"particle_P1_orientation": "NORTH"\n}';

/** The sample as an item: its start, its four actions in their published wording, its question. */
const draft: Omit<SnorkelItem, 'answer'> = {
  id: 'published-sample', benchmark: 'snorkel-spatial', task: 'absolute-orientation', level: '4', width: 5,
  particles: [{ name: 'P1', at: [1.5, 2.5], facing: 'SOUTH' }, { name: 'P2', at: [4.5, 2.5], facing: 'EAST' }],
  actions: [
    { actor: 'P2', rotate: 90, phrasing: 'passive' },
    { actor: 'P1', move: 'BACKWARD', phrasing: 'imperative' },
    { actor: 'P2', rotate: 0, phrasing: 'passive' },
    { actor: 'B1', rotate: 180, phrasing: 'imperative' },
  ],
  query: { subject: 'P1' },
};

describe('the published SnorkelSpatial sample', () => {
  it('replays to the published answer {"particle_P1_orientation": "NORTH"}', () => {
    expect(answerKey(draft)).toBe('particle_P1_orientation');
    const answer = oracleAnswer(draft);
    expect(answer).toEqual({ particle_P1_orientation: 'NORTH' });
    expect(answer).toEqual(JSON.parse(PUBLISHED_OUTPUT));
  });

  it('builds the published prompt, section for section, and judges the published output right', () => {
    const item = parseSnorkelItem({ ...draft, answer: oracleAnswer(draft) });
    const [prompt] = buildSnorkelPrompts(item);
    expect(prompt.parts).toEqual([{ type: 'text', text: PUBLISHED_PROMPT }]);
    const text = snorkelPromptText(item);
    expect(text.split('\n').filter((l) => l.startsWith('# '))).toEqual(['# Initial States', '# Actions', '# Question', '# Response format - JSON schema']);
    expect(text).toContain('Key: `particle_P1_orientation`\nType: String');
    expect(prompt.response_format?.schema).toMatchObject({ required: ['particle_P1_orientation'] });
    expect(judgeSnorkel(item, PUBLISHED_OUTPUT)).toMatchObject({ valid: true, correct: true, extracted: 'NORTH' });
    expect(judgeSnorkel(item, '{"particle_P1_orientation": "SOUTH"}')).toMatchObject({ valid: true, correct: false });
    expect(judgeSnorkel(item, '{"orientation": "NORTH"}')).toMatchObject({ valid: false, reason: 'no "particle_P1_orientation" key' });
  });

  it('the conventions setting adds to the initial states only', () => {
    const item = parseSnorkelItem({ ...draft, answer: oracleAnswer(draft) });
    const plain = snorkelPromptText(item).split('\n');
    const more = snorkelPromptText(item, { conventions: true }).split('\n');
    expect(more[1].startsWith(plain[1])).toBe(true);
    expect(more[1]).toContain('Tile 1 is the board');
    expect(more.slice(2)).toEqual(plain.slice(2));
  });
});

describeShared('the sample in the SnorkelSpatial page', ['papers'], ({ papers }) => {
  it('is the text this test quotes', () => {
    const page = readFileSync(join(papers, 'snorkel-spatial.txt'), 'utf8');
    const question = /\nQuestion:\n\n([\s\S]*?)\n\nSolution:/.exec(page)?.[1];
    const output = /\nOutput:\n(\{[\s\S]*?\})\n/.exec(page)?.[1];
    expect(question).toBe(PUBLISHED_PROMPT);
    expect(output).toBe(PUBLISHED_OUTPUT);
  });
});
