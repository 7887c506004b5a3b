/**
 * VSP's official scoring, one test per rule of docs/vsp.md ("How the official scripts read an
 * answer"): crafted outputs on constructed items, each expectation what the task's eval.py gives.
 * The Python string behaviour the expectations rest on (text-mode newlines, strip and `\s`
 * whitespace, code-point offsets, int()) is checked against CPython in test/util/python-str.test.ts.
 * The last test checks that the rule table in docs/vsp.md and the tests here name the same rules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VspItem } from '../../../src/benchmarks/vsp/item.js';
import { judgeVsp } from '../../../src/benchmarks/vsp/judge.js';
import type { BenchPrompt } from '../../../src/formats/chat-prompt.js';

const P = {} as BenchPrompt;
const base = { benchmark: 'vsp' as const, level: '3', index: 0, root: '/r', images: ['x.png'] };
const item = (task: VspItem['task'], extra: Partial<VspItem>): VspItem => ({ ...base, id: `${task}/0`, task, truth: {}, ...extra });
const official = (it: VspItem, out: string) => judgeVsp(it, P, out, 'official');
const strict = (it: VspItem, out: string) => judgeVsp(it, P, out, 'strict');
const correct = (it: VspItem, out: string) => official(it, out).correct;

// Player at row 3, column 2; goal at row 1, column 2; a hole at row 2, column 1.
const MAP = ['FGF', 'HFF', 'FSF'];
const mazeMain = item('maze-main', { maze: MAP });
const t1 = item('maze-t1', { maze: MAP, truth: { yn: 'Y', cell: [2, 1] } });
const t2 = item('maze-t2', { maze: MAP, truth: { words: ['Below'] } });
const t3 = item('maze-t3', { maze: MAP, truth: { choice: 2 } });
const t4 = item('maze-t4', { maze: MAP, truth: { yn: 'Y', moves: 'U' } });
// Red alone, blue on yellow; goal: blue on red, yellow alone (one move: blue onto red).
const blocksMain = item('blocks-main', { stacks: [['R'], ['Y', 'B']], goal: [['R', 'B'], ['Y']], truth: { optimal: 1 } });
const b1 = item('blocks-t1', { stacks: [['R']], truth: { colour: 'red', at: [1, 1] } });
const b2 = item('blocks-t2', { stacks: [['R', 'B']], truth: { choice: 0, pair: ['B', 'R'] } });
const b3 = item('blocks-t3', { stacks: [['R']], truth: { choice: 2 } });
const b4 = item('blocks-t4', { stacks: [['R']], truth: { valid: true, sequence: [] } });
const collision = item('collision', { question: 'q', truth: { car: 2, person: 4 } });
const map = item('google-map', { truth: { north: 1, east: -2 } });

const RULES = new Set<string>();
/** One test per documented rule, titled by its id. */
function rule(id: string, title: string, fn: () => void): void {
  RULES.add(id);
  it(`${id}: ${title}`, fn);
}

describe('how every script reads the output file', () => {
  rule('read-crlf', 'text-mode reading turns "\\r\\n" into "\\n"', () => {
    // "<Output>\r\n" is "<Output>\n" once read, so maze T2 finds its marker (in both modes).
    for (const judge of [official, strict]) expect(judge(t2, 'The player is below.\r\n<Output>\r\nBelow')).toMatchObject({ correct: true, valid: true });
    expect(official(t2, '<Output>\r\nBelow').scriptInvalid).toBe(false);
  });

  rule('read-cr', 'text-mode reading turns a lone "\\r" into "\\n"', () => {
    // The lone CR ends the line blocks T1 reads.
    expect(official(b1, '<Output> red\rThe block at stack 1 is red.')).toMatchObject({ correct: true, extracted: 'red' });
  });

  rule('read-whitespace', 'strip() and \\s use Python\'s whitespace: U+0085 and U+001C-U+001F are whitespace', () => {
    expect(official(t1, '<Output> Yes\u0085')).toMatchObject({ correct: true, valid: true, scriptInvalid: false });
    expect(correct(mazeMain, 'Action plan: U,\u001cU\u0085')).toBe(true);
  });

  rule('read-bom', 'U+FEFF is not whitespace to Python: strip() keeps it', () => {
    // "\ufeffyes" is neither yes nor no, so the assertion fails (invalid, wrong).
    expect(official(t1, '<Output> \ufeffYes')).toMatchObject({ correct: false, valid: false, scriptInvalid: true });
    expect(correct(mazeMain, 'Action plan: \ufeffU,U')).toBe(false); // "\ufeffU" is no move
  });

  rule('read-code-points', 'offsets, windows and cuts count code points (an emoji is one)', () => {
    // Blocks T4 without "<Output>" reads from code point 7: "😀Reply: yes"[7:] is " yes".
    expect(official(b4, '\u{1F600}Reply: yes')).toMatchObject({ correct: true, extracted: 'yes' });
    // Maze T4's window is 10 code points: four emoji, a space and "Yes" fit.
    expect(correct(t4, '<Output>\u{1F600}\u{1F600}\u{1F600}\u{1F600} Yes')).toBe(true);
    // Blocks main drops the first 2 code points of a line: "😀move(...)" loses the "m" as well.
    expect(correct(blocksMain, '<Output>\n\u{1F600}move(blue,red)')).toBe(false);
    expect(correct(blocksMain, '<Output>\n\u{1F600} move(blue,red)')).toBe(true);
  });
});

describe('maze main (task-main/eval.py)', () => {
  rule('maze-main-marker', 'reads after the first "Action plan: ", else "Action Plan: ", else from code point 12, to the end', () => {
    expect(correct(mazeMain, 'Action plan: U,U')).toBe(true);
    expect(correct(mazeMain, 'Action Plan: U,U')).toBe(true);
    expect(correct(mazeMain, 'Action plan: L,U\nAction plan: U,U')).toBe(false); // the first marker only
    expect(official(mazeMain, 'My plan is: U,U')).toMatchObject({ correct: true, valid: false }); // [12:] is "U,U"
  });

  rule('maze-main-tokens', 'splits on ",", deletes " \' \\n . in each piece and strips it', () => {
    expect(correct(mazeMain, `Action plan: "U". , 'U'`)).toBe(true);
    expect(correct(mazeMain, 'Action plan: U,U\nDone')).toBe(false); // "UDone": the newline is deleted
    expect(correct(mazeMain, 'Action plan: U,U,R\nDone')).toBe(true); // the goal comes before "RDone"
  });

  rule('maze-main-moves', 'only L, D, R, U are moves; any other token reached raises (wrong), "constructor" included', () => {
    // On this map a token misread as D would win twice over.
    const down = item('maze-main', { maze: ['FSF', 'FFF', 'FGF'] });
    expect(correct(down, 'Action plan: D,D')).toBe(true);
    for (const t of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'd', 'Down', '']) {
      expect(official(down, `Action plan: ${t},${t}`), t).toMatchObject({ correct: false, valid: false });
    }
  });

  rule('maze-main-replay', 'FrozenLake: off the edge stays put, a hole loses, the goal wins and ends the replay, running out loses', () => {
    expect(correct(mazeMain, 'Action plan: D,U,U')).toBe(true); // D at the bottom edge stays put
    expect(correct(mazeMain, 'Action plan: L,U')).toBe(false); // the hole at row 2, column 1
    expect(correct(mazeMain, 'Action plan: R,L,U,U,D,"garbage"')).toBe(true); // later tokens are not read
    expect(correct(mazeMain, 'Action plan: U')).toBe(false);
  });

  rule('maze-main-steps', 'the episode is truncated at 100 steps', () => {
    expect(correct(mazeMain, `Action plan: ${Array(97).fill('R').join(',')},L,U,U`)).toBe(true); // the goal at step 100
    expect(correct(mazeMain, `Action plan: ${Array(98).fill('R').join(',')},L,U,U`)).toBe(false); // step 101
  });
});

describe('maze T1-T4 (task1-task4/eval.py)', () => {
  rule('maze-t1-marker', 'reads after the first "<Output>", else from code point 7, to the end', () => {
    expect(correct(t1, 'Row 2 has it. <Output> Yes')).toBe(true);
    expect(correct(t1, 'Answer:yes')).toBe(true); // [7:] is "yes"
    expect(official(t1, '<Output> Yes\nbecause').extracted).toBe('yesbecause');
  });

  rule('maze-t1-clean', 'deletes " \' \\n . ( ), strips, lower-cases', () => {
    expect(correct(t1, `<Output> ("Yes.")`)).toBe(true);
    expect(correct(t1, '<Output> YES')).toBe(true);
  });

  rule('maze-t1-answer', 'must be exactly yes or no; anything else fails the assertion (script: invalid)', () => {
    expect(official(t1, '<Output> Yes, there is')).toMatchObject({ correct: false, valid: false, scriptInvalid: true });
    expect(official(t1, '<Output> No')).toMatchObject({ correct: false, valid: true, scriptInvalid: false });
  });

  rule('maze-t2-marker', 'needs "<Output> " (first choice, wherever it is) or "<Output>\\n" and reads 9 code points after it, to the end; neither: invalid', () => {
    expect(official(t2, '<Output>Below')).toMatchObject({ correct: false, valid: false, scriptInvalid: true });
    expect(correct(t2, '<Output>\nBelow')).toBe(true);
    expect(correct(t2, 'First <Output>\nAbove, then <Output> Below')).toBe(true); // "<Output> " wins though later
  });

  rule('maze-t2-tokens', 'splits on ",", deletes " \' \\n . * in each piece and strips it', () => {
    expect(correct(t2, '<Output> **"Below".**')).toBe(true);
    expect(official(t2, '<Output> Below, Left').extracted).toEqual(['Below', 'Left']);
  });

  rule('maze-t2-answer', 'correct when every true direction is a token (case-sensitive); extra tokens are ignored', () => {
    expect(correct(t2, '<Output> below')).toBe(false);
    expect(correct(t2, '<Output> Above,Below,Left,Right')).toBe(true);
    expect(correct(item('maze-t2', { maze: MAP, truth: { words: ['Below', 'Left'] } }), '<Output> Below')).toBe(false);
  });

  rule('maze-t3-marker', 'reads after "<Answer>", else "**Answer", else "Answer", else from code point 5, to the end', () => {
    expect(correct(t3, '<Answer> C')).toBe(true);
    expect(correct(t3, '**Answer:** (C)')).toBe(true);
    expect(correct(t3, 'Answer: C')).toBe(true);
    expect(correct(t3, 'Answer: A\n<Answer> C')).toBe(true); // "<Answer>" first, wherever it is
    expect(correct(t3, 'Pick C')).toBe(true); // no marker: [5:] is "C"
  });

  rule('maze-t3-clean', 'deletes " * : \' \\n . ( ) < > and backticks, strips', () => {
    expect(correct(t3, '<Answer> `<(C)>`.')).toBe(true);
    expect(official(t3, '<Answer> C. Because').extracted).toBe('C Because');
  });

  rule('maze-t3-answer', 'must be exactly A-D (case-sensitive); else the assertion fails (script: invalid)', () => {
    expect(official(t3, '<Answer> c')).toMatchObject({ correct: false, valid: false, scriptInvalid: true });
    expect(official(t3, '<Answer> A')).toMatchObject({ correct: false, valid: true, scriptInvalid: false });
  });

  rule('maze-t4-marker', 'reads the 10 code points after "<Output>", else "**Output**", else "Output"', () => {
    expect(correct(t4, '<Output> Yes')).toBe(true);
    expect(correct(t4, '**Output**: Yes')).toBe(true);
    expect(correct(t4, 'Output - yes')).toBe(true);
    expect(correct(t4, 'Output no\n<Output> yes')).toBe(true); // "<Output>" first, wherever it is
    expect(correct(t4, '<Output> The sequence is Yes')).toBe(false); // " The seque"
  });

  rule('maze-t4-no-marker', 'without any marker it reads code points 5-14, counts the answer invalid, and still scores it', () => {
    expect(official(t4, 'Safe: Yes, fine')).toMatchObject({ correct: true, valid: false, scriptInvalid: true, extracted: 'yes, fine' });
  });

  rule('maze-t4-clean', 'deletes " \' \\n . : - *, strips, lower-cases', () => {
    expect(official(t4, '<Output>**Y-e-s**')).toMatchObject({ correct: true, extracted: 'yes' });
  });

  rule('maze-t4-answer', 'substring tests: yes without no, or no without yes ("not safe" is no)', () => {
    const unsafe = item('maze-t4', { maze: MAP, truth: { yn: 'N', moves: 'L' } });
    expect(correct(unsafe, '<Output> Not safe')).toBe(true);
    expect(correct(t4, '<Output> yes, no')).toBe(false);
    expect(correct(unsafe, '<Output> yes, no')).toBe(false);
  });
});

describe('blocks main (task-main/eval.py)', () => {
  rule('blocks-main-marker', 'reads from 9 code points after the first "<Output>" (one more than the marker), else from code point 8, to the end', () => {
    expect(correct(blocksMain, '<Output>\n1. move(blue,red)')).toBe(true);
    expect(correct(blocksMain, '<Output>1. move(blue,red)')).toBe(true); // ". move(blue,red)" is read
    expect(correct(blocksMain, '<Output> move(blue,red)')).toBe(false); // "move(...)" loses "mo"
    expect(official(blocksMain, 'My plan:1. move(blue,red)')).toMatchObject({ correct: true, valid: false });
  });

  rule('blocks-main-lines', 'per line: drops 2 code points, deletes " \' \\n ., strips, keeps it only if it starts with "move"', () => {
    expect(correct(blocksMain, '<Output>\n1. "move(blue,red)".\nDone.')).toBe(true);
    expect(correct(blocksMain, '<Output>\nStep 1: move(blue,red)')).toBe(false);
    expect(correct(blocksMain, '<Output>\n1. Move(blue,red)')).toBe(false);
  });

  rule('blocks-main-args', 'splits between "move(" and the last code point on ","; fewer than two parts, an empty source or target raises (wrong; script: invalid)', () => {
    for (const line of ['move(blue)', 'move(,red)', 'move(blue, )', 'move']) {
      expect(official(blocksMain, `<Output>\n1. ${line}`), line).toMatchObject({ correct: false, valid: false, scriptInvalid: true });
    }
    expect(correct(blocksMain, '<Output>\n1. move(blue,red,1)')).toBe(true); // a third part is ignored
    expect(correct(blocksMain, '<Output>\n1. move(blue,red')).toBe(true); // "blue,re": the last code point goes, whatever it is
  });

  rule('blocks-main-source', 'the source is the first code point of the first part, stripped, upper-cased', () => {
    expect(correct(blocksMain, '<Output>\n1. move(black,red)')).toBe(true); // B
    expect(correct(blocksMain, '<Output>\n1. move( blue,red)')).toBe(false); // " " strips to "": no block
  });

  rule('blocks-main-target', 'the target is the second part stripped: "table" as written, else its first code point upper-cased', () => {
    const split = item('blocks-main', { stacks: [['R', 'B']], goal: [['R'], ['B']], truth: { optimal: 1 } });
    expect(correct(split, '<Output>\n1. move(blue, table )')).toBe(true);
    expect(correct(split, '<Output>\n1. move(blue,Table)')).toBe(false); // "T": no such block, skipped
    expect(correct(split, '<Output>\n1. move(blue,tabletop)')).toBe(false);
    expect(correct(blocksMain, '<Output>\n1. move(blue, ruby)')).toBe(true); // R
  });

  rule('blocks-main-simulate', 'the source must be on top and the target on top after lifting it (or the table); illegal moves are skipped', () => {
    expect(correct(blocksMain, '<Output>\n1. move(yellow,red)\n2. move(blue,red)')).toBe(true);
    expect(correct(blocksMain, '<Output>\n1. move(blue,blue)')).toBe(false);
  });

  rule('blocks-main-goal', 'success is the goal\'s stacks as a multiset; the plan\'s length is not checked', () => {
    expect(correct(blocksMain, '<Output>\n1. move(blue,table)\n2. move(blue,red)')).toBe(true);
    expect(correct(blocksMain, '<Output>\n1. move(blue,table)')).toBe(false);
  });
});

describe('blocks T1-T4 (task1-task4/eval.py)', () => {
  rule('blocks-t1-marker', 'reads after the first "<Output>", else from code point 7, to the first newline', () => {
    expect(correct(b1, '<Output> red\nbecause it is red')).toBe(true);
    expect(official(b1, 'Colour: red')).toMatchObject({ correct: true, valid: false });
    expect(correct(b1, '<Output>\nred')).toBe(false); // the line after the marker is empty
  });

  rule('blocks-t1-answer', 'deletes " \' . *, strips, compares without case; the script never counts an answer invalid', () => {
    expect(official(b1, '<Output> **"Red".**')).toMatchObject({ correct: true, scriptInvalid: false });
    expect(official(b1, '<Output> red block')).toMatchObject({ correct: false, scriptInvalid: false });
  });

  rule('blocks-t2-marker', 'reads after "<Output>", else "Output", else from code point 5, to the first newline', () => {
    expect(correct(b2, '<Output> A\n(directly above)')).toBe(true);
    expect(correct(b2, 'Output: A')).toBe(true);
    expect(correct(b2, 'Pick A')).toBe(true); // [5:] is "A"
  });

  rule('blocks-t2-answer', 'deletes " \' . * < > :, strips, must equal the letter exactly; never invalid for the script', () => {
    expect(correct(b2, '<Output> <A>')).toBe(true);
    expect(official(b2, '<Output> (A)')).toMatchObject({ correct: false, valid: false, scriptInvalid: false });
    expect(correct(b2, '<Output> a')).toBe(false);
  });

  rule('blocks-t3-answer', 'markers as T2; deletes only " \' . *, strips, upper-cases; never invalid for the script', () => {
    expect(correct(b3, '<Output> c')).toBe(true);
    expect(correct(b3, 'Output: C')).toBe(false); // ":" stays
    expect(official(b3, '<Output> <C>')).toMatchObject({ correct: false, scriptInvalid: false });
  });

  rule('blocks-t4-marker', 'reads after the first "<Output>", else from code point 7, to the end', () => {
    expect(correct(b4, '<Output> Yes\n')).toBe(true);
    expect(correct(b4, '<Output> Yes\nIt is')).toBe(false); // "yesit is"
  });

  rule('blocks-t4-answer', 'deletes " \' \\n ., strips, lower-cases, must be exactly yes or no; never invalid for the script', () => {
    expect(correct(b4, '<Output> "Yes."')).toBe(true);
    expect(official(b4, '<Output> Yes!')).toMatchObject({ correct: false, valid: false, scriptInvalid: false });
  });
});

describe('collision and google-map (repository-only)', () => {
  rule('collision-match', '(Car|Person):\\s*number anywhere, case-sensitive, with Python\'s \\s and ASCII digits; the last match per label wins', () => {
    const credit = (out: string) => official(collision, out).credit;
    expect(credit('Car: 9\nCar: 2.5')).toBe(0.5);
    expect(credit('car: 2')).toBe(0);
    expect(credit('Car:\u00852')).toBe(0.5); // U+0085 is \s in Python
    expect(credit('Car:\ufeff2')).toBe(0); // U+FEFF is not
    expect(credit('Car: \uff12')).toBe(0); // [0-9] is ASCII
  });

  rule('collision-credit', 'a point when the car is within 1 second; the person check raises, so it never scores; no car, no point', () => {
    const credit = (out: string) => official(collision, out).credit;
    expect(credit('Car: 3')).toBe(0.5);
    expect(credit('Car: 3.5')).toBe(0);
    expect(credit('Person: 4')).toBe(0);
    expect(official(collision, 'Car: 2\nPerson: 4').scriptInvalid).toBeUndefined(); // the script keeps no invalid count
  });

  rule('google-map-marker', 'reads from 7 code points after "Output", else after "Path", else from code point 6', () => {
    expect(correct(map, '<Output>\n1. North: 1\n2. West: 2')).toBe(true);
    expect(correct(map, 'Path:\nNorth: 1\nWest: 2')).toBe(false); // "Path:\nN" is skipped: "orth: 1" names no direction
    expect(correct(map, 'Path:  \nNorth: 1\nWest: 2')).toBe(true);
    expect(official(map, 'Moves:\nNorth: 1\nWest: 2')).toMatchObject({ correct: true, valid: false });
  });

  rule('google-map-lines', 'deletes " \' ., strips, splits on "\\n", lower-cases each line', () => {
    expect(correct(map, '<Output>\n"NORTH": 1\nWest: 2')).toBe(true);
    expect(correct(map, '<Output>\nNorth: 1.0\nWest: 2')).toBe(false); // "." deleted: int("10")
  });

  rule('google-map-last-marker', 'for each direction a line names, int() of the text after its last "dir:"', () => {
    expect(correct(map, '<Output>\nNorth: 3 north: 1\nWest: 2')).toBe(true);
    expect(correct(map, '<Output>\nSouth: 1\nNorth: 2\nWest: 1, west: 2')).toBe(true);
  });

  rule('google-map-int', 'int(): any Unicode decimal digits, a sign, whitespace around, single underscores between digits', () => {
    expect(correct(map, '<Output>\nNorth: \uff11\nWest: \uff12')).toBe(true); // full-width １, ２
    expect(correct(map, '<Output>\nNorth: +1\u3000\nWest: \u0662')).toBe(true);
    expect(correct(map, '<Output>\nNorth: 0_1\nEast: -2')).toBe(true);
    expect(correct(map, '<Output>\nNorth: 1 block\nWest: 2')).toBe(false); // raises
  });

  rule('google-map-net', 'nets north-south and east-west must both match; a direction named without its colon raises', () => {
    expect(correct(map, '<Output>\nGo north 1\nWest: 2')).toBe(false);
    expect(correct(map, '<Output>\nNortheast: 1\nNorth: 1\nWest: 3')).toBe(false);
    expect(official(map, '<Output>\nNorth: 1\nWest: 2').scriptInvalid).toBeUndefined(); // no invalid count
  });
});

describe('invalid counts', () => {
  rule('script-invalid', 'each script\'s own count: maze T1/T3 not exact, T2/T4 no marker, blocks main a raise, blocks T1-T4 never; none for maze main, collision, google-map; official mode only', () => {
    const garbage = 'no answer here';
    const counts = [mazeMain, t1, t2, t3, t4, blocksMain, b1, b2, b3, b4, collision, map].map((i) => [i.task, official(i, garbage).scriptInvalid]);
    expect(Object.fromEntries(counts)).toEqual({
      'maze-main': undefined, 'maze-t1': true, 'maze-t2': true, 'maze-t3': true, 'maze-t4': true, 'blocks-main': false,
      'blocks-t1': false, 'blocks-t2': false, 'blocks-t3': false, 'blocks-t4': false, collision: undefined, 'google-map': undefined,
    });
    expect(official(blocksMain, '<Output>\n1. move(blue)').scriptInvalid).toBe(true);
    expect(strict(t1, garbage).scriptInvalid).toBeUndefined();
  });
});

describe('any text', () => {
  it('every task and mode judges any output without throwing, and "\\r\\n" or "\\r" for "\\n" changes nothing', () => {
    const items = [mazeMain, t1, t2, t3, t4, blocksMain, b1, b2, b3, b4, collision, map];
    // Fragments of real answers mixed with arbitrary text, line ends and the characters the reading treats specially.
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom('<Output>', '<Output> ', 'Output', '**Output**', '<Answer>', 'Answer', 'Action plan: ', 'Path', 'move(', ')', ',', 'table', 'North:', 'west:',
        'Car:', 'Person:', 'U', 'L', 'yes', 'No', 'A', 'red', '1', '\uff12', '_', '\n', '\r\n', '\r', '\u0085', '\ufeff', '\u{1F600}', '\ud800', 'constructor'),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 30 }).map((ps) => ps.join('')), fc.constantFrom(...items), fc.constantFrom('official', 'strict'), (out, it, mode) => {
      expect(typeof judgeVsp(it, P, out, mode).correct).toBe('boolean');
      const lf = out.replaceAll('\r', '');
      const j = judgeVsp(it, P, lf, mode);
      expect(judgeVsp(it, P, lf.replaceAll('\n', '\r\n'), mode)).toEqual(j);
      expect(judgeVsp(it, P, lf.replaceAll('\n', '\r'), mode)).toEqual(j);
    }), { numRuns: 3000, seed: 27 });
  });
});

describe('docs/vsp.md', () => {
  it('lists exactly the rules tested here', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/vsp.md'), 'utf8');
    const section = doc.split('### How the official scripts read an answer')[1].split(/^##/m)[0];
    const ids = [...section.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(new Set(ids)).toEqual(RULES);
    expect(ids).toHaveLength(RULES.size);
  });
});
