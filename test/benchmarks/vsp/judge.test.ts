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
