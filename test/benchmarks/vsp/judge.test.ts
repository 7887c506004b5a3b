import { describe, expect, it } from 'vitest';
import { judgeVsp, STRICT_FIXES } from '../../../src/benchmarks/vsp/judge.js';
import type { VspItem } from '../../../src/benchmarks/vsp/item.js';
import type { BenchPrompt } from '../../../src/formats/chat-prompt.js';

const P = {} as BenchPrompt;
const base = { benchmark: 'vsp' as const, level: '3', index: 0, root: '/r', images: ['x.png'] };
// Player at row 3, column 2; goal at row 1, column 2; a hole at row 2, column 1.
const maze = (task: VspItem['task'], truth: VspItem['truth'] = {}): VspItem => ({ ...base, id: `${task}/3/0`, task, maze: ['FGF', 'HFF', 'FSF'], truth });
const judge = (item: VspItem, out: string) => ({ official: judgeVsp(item, P, out, 'official'), strict: judgeVsp(item, P, out, 'strict') });

describe('VSP judging: where official and strict part (one test per named defect)', () => {
  it('lists exactly four strict fixes', () => {
    expect(Object.keys(STRICT_FIXES)).toEqual(['maze-t2-extra-words', 'blocks-main-illegal-move', 'maze-t4-ten-chars', 'collision-person']);
  });

  it('maze-t2-extra-words: official passes an answer listing every direction, strict does not', () => {
    const item = maze('maze-t2', { words: ['Below'] });
    const r = judge(item, 'Analysis...\n<Output> Above,Below,Left,Right');
    expect(r.official.correct).toBe(true);
    expect(r.strict.correct).toBe(false);
    // The exact answer passes both.
    const ok = judge(item, '<Output> Below');
    expect([ok.official.correct, ok.strict.correct]).toEqual([true, true]);
  });

  it('blocks-main-illegal-move: official skips an illegal move and still succeeds, strict fails the plan', () => {
    // Start: red alone, blue on yellow. Goal: blue on red, yellow alone.
    const item: VspItem = { ...base, id: 'blocks-main/1/0', task: 'blocks-main', level: '1', stacks: [['R'], ['Y', 'B']], goal: [['R', 'B'], ['Y']], truth: { optimal: 1 } };
    const out = '<Analysis>...\n<Output>\n1. move(yellow,red)\n2. move(blue,red)';
    const r = judge(item, out);
    expect(r.official.correct).toBe(true); // yellow is under blue: the move is illegal and skipped
    expect(r.strict.correct).toBe(false);
    expect(r.strict.reason).toMatch(/illegal move 1/);
  });

  it('maze-t4-ten-chars: official reads 10 characters after the marker, strict the whole answer line', () => {
    const item = maze('maze-t4', { yn: 'Y', moves: 'U' });
    const r = judge(item, 'Step 1: safe.\n<Output> The sequence is Yes');
    expect(r.official.correct).toBe(false); // " The seque" has neither yes nor no
    expect(r.strict.correct).toBe(true);
    // No marker: official still scores characters 5-14; strict calls it wrong.
    const nm = judge(item, 'Safe: Yes, fine');
    expect(nm.official).toMatchObject({ correct: true, valid: false });
    expect(nm.strict.correct).toBe(false);
  });

  it('collision-person: official never credits the person, strict does', () => {
    const item: VspItem = { ...base, id: 'collision/default/0', task: 'collision', level: 'default', question: 'q', truth: { car: 2, person: 4 } };
    const r = judge(item, 'Car: 2.0\nPerson: 4.0');
    expect(r.official).toMatchObject({ credit: 0.5, correct: false });
    expect(r.strict).toMatchObject({ credit: 1, correct: true });
  });
});

describe('VSP judging: the official quirks both modes keep', () => {
  const main = maze('maze-main');
  it('maze main: replays from S, first "Action plan: " only, off-edge stays, G ends the game', () => {
    expect(judge(main, 'Action plan: U,U').official.correct).toBe(true);
    expect(judge(main, 'Action plan: R,L,U,U,D,"garbage"').official.correct).toBe(true); // later tokens ignored
    expect(judge(main, 'Action plan: D,U,U').official.correct).toBe(true); // off the edge: stays put
    expect(judge(main, 'Action Plan: U,U').official.correct).toBe(true);
    expect(judge(main, 'Action plan: L,U').official.correct).toBe(false); // hole at row 2, column 1
    expect(judge(main, 'Action plan: Up,Up').official.correct).toBe(false); // bad token
    expect(judge(main, 'Action plan: U,U,R\nDone').official.correct).toBe(true); // G reached before "RDone"
    expect(judge(main, 'Action plan: U,U\nDone').official.correct).toBe(false); // "UDone": newlines are deleted
    expect(judge(main, 'Action plan: U').official.correct).toBe(false); // tokens run out
  });
  it('maze main: a plan that never ends stops at 100 steps', () => {
    expect(judge(main, `Action plan: ${Array(97).fill('R').join(',')},L,U,U`).official.correct).toBe(true); // G at move 100
    expect(judge(main, `Action plan: ${Array(98).fill('R').join(',')},L,U,U`).official.correct).toBe(false); // G at move 101
  });
  it('maze T1: text after "<Output>" to the end, ( ) deleted, exactly yes or no', () => {
    const t1 = maze('maze-t1', { yn: 'Y', cell: [2, 1] });
    expect(judge(t1, 'x <Output> (Yes).').official.correct).toBe(true);
    expect(judge(t1, '<Output> Yes, there is').official).toMatchObject({ correct: false, valid: false });
    expect(judge(t1, 'Answer:yes').official.correct).toBe(true); // no marker: from character 7
  });
  it('maze T2: needs "<Output> " or "<Output>\\n", case-sensitive words', () => {
    const t2 = maze('maze-t2', { words: ['Below'] });
    expect(judge(t2, '<Output>Below').official.valid).toBe(false);
    expect(judge(t2, '<Output> below').official.correct).toBe(false);
    expect(judge(t2, '<Output>\n"Below".').official.correct).toBe(true);
  });
  it('maze T3: <Answer>, then **Answer, then Answer; must be exactly A-D', () => {
    const t3 = maze('maze-t3', { choice: 2 });
    expect(judge(t3, '... **Answer:** (C)').official.correct).toBe(true);
    expect(judge(t3, '<Answer> C. Because').official.correct).toBe(false);
  });
  it('maze T4: substring tests, so "not safe" counts as no', () => {
    const t4 = maze('maze-t4', { yn: 'N', moves: 'L' });
    expect(judge(t4, '<Output> Not safe').official.correct).toBe(true);
    expect(judge(t4, '<Output> Not safe').strict.correct).toBe(true);
  });
  it('blocks main: the source is the first character before trimming; "table" must be lower case', () => {
    const item: VspItem = { ...base, id: 'blocks-main/1/0', task: 'blocks-main', level: '1', stacks: [['R'], ['Y', 'B']], goal: [['R', 'B'], ['Y']], truth: { optimal: 1 } };
    expect(judge(item, '<Output>\n1. move(blue,red)').official.correct).toBe(true);
    expect(judge(item, '<Output>\n1. move( blue,red)').official.correct).toBe(false);
    expect(judge(item, '<Output>\n1. move(black,red)').official.correct).toBe(true); // first letter B
    expect(judge(item, '<Output>\n1. move(blue)').official).toMatchObject({ correct: false, valid: false });
  });
  it('collision: the last match per label wins, labels are case-sensitive', () => {
    const item: VspItem = { ...base, id: 'collision/default/0', task: 'collision', level: 'default', question: 'q', truth: { car: 2, person: 4 } };
    expect(judge(item, 'Car: 9\nCar: 2.5\nperson: 4').strict).toMatchObject({ credit: 0.5, valid: false });
  });
  it('google map: net north and east; "North: 1 block" is an error (wrong)', () => {
    const item: VspItem = { ...base, id: 'google-map/1/0', task: 'google-map', level: '1', truth: { north: 1, east: -2 } };
    expect(judge(item, '<Output>\n1. North: 2\n2. West: 2\n3. South: 1').official.correct).toBe(true);
    expect(judge(item, '<Output>\n1. North: 1 block\n2. West: 2').official.correct).toBe(false);
  });
});
