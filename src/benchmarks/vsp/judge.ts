/**
 * VSP answer extraction and judging in two modes. `official` reproduces the official eval.py
 * scripts character for character, quirks included (an exception there is a wrong answer here),
 * reading the output as Python does (src/util/python-str.ts); each rule is in docs/vsp.md. `strict`
 * is the same except for the named fixes in STRICT_FIXES.
 */
import type { BenchPrompt } from '../../formats/chat-prompt.js';
import type { Judgement } from '../types.js';
import { runMoves, stacksKey, type BlockMove } from './blocks.js';
import type { VspItem } from './item.js';
import { findCell, MOVES, step, type Move } from './maze.js';
import { PY_SPACE_CLASS, PyError, pyAt, pyFind, pySlice, pyStrip, pyInt, pyTextModeRoundTrip } from '../../util/python-str.js';

export const VSP_MODES = ['official', 'strict'] as const;
export type VspMode = (typeof VSP_MODES)[number];

/** The known defects of the official scorers that `strict` fixes (name -> what changes). */
export const STRICT_FIXES = {
  'maze-t2-extra-words': 'maze T2: the answer must name exactly the true directions (official passes any answer that also lists extra ones)',
  'blocks-main-illegal-move': 'blocks main: an illegal move fails the plan (official silently skips it)',
  'maze-t4-ten-chars': 'maze T4: the whole answer line after the marker is read, and a missing marker is wrong (official reads only 10 characters, and scores characters 5-14 when the marker is missing)',
  'collision-person': 'collision: the person\'s time is credited (official throws on it and never credits it)',
} as const;

/** Python's str.replace(c, '') for each of `chars` (all ASCII, so units and code points agree). */
const del = (s: string, chars: string) => [...s].filter((c) => !chars.includes(c)).join('');

function wrong(reason: string, extracted: unknown, scriptInvalid: boolean | undefined): Judgement {
  return { valid: false, correct: false, reason, extracted, scriptInvalid };
}

// ---------------------------------------------------------------- maze

/** The moves maze main's script knows; any other token raises (a Map, so "constructor" is no move). */
const MOVE_TOKENS: ReadonlyMap<string, Move> = new Map(MOVES.map((m) => [m, m]));

/** gym FrozenLake-v1 as eval.py drives it: H or G ends the episode; 100 steps truncate it. */
function frozenLake(rows: string[], tokens: readonly string[]): boolean {
  let at = findCell(rows, 'S');
  for (let k = 0; k < tokens.length; k++) {
    const m = MOVE_TOKENS.get(tokens[k]);
    if (m === undefined) throw new PyError(`bad move token ${JSON.stringify(tokens[k])}`);
    at = step(rows, at, m);
    const cell = rows[at[0]][at[1]];
    if (cell === 'G') return true;
    if (cell === 'H' || k + 1 >= 100) return false;
  }
  return false;
}

function judgeMazeMain(item: VspItem, out: string): Judgement {
  let i = pyFind(out, 'Action plan: ');
  if (i === -1) i = pyFind(out, 'Action Plan: ');
  const tokens = pySlice(out, i + 13).split(',').map((t) => pyStrip(del(t, `"'\n.`)));
  try {
    const win = frozenLake(item.maze!, tokens);
    return { valid: i !== -1, correct: win, extracted: tokens, reason: win ? undefined : i === -1 ? 'no "Action plan:"' : 'plan does not reach the goal' };
  } catch (e) {
    if (!(e instanceof PyError)) throw e;
    return wrong(e.message, tokens, undefined);
  }
}

function judgeMazeT1(item: VspItem, out: string): Judgement {
  const a = pyStrip(del(pySlice(out, pyFind(out, '<Output>') + 8), `"'\n.()`)).toLowerCase();
  if (a !== 'yes' && a !== 'no') return wrong('not yes/no', a, true);
  return { valid: true, correct: (a === 'yes') === (item.truth.yn === 'Y'), extracted: a, scriptInvalid: false };
}

function judgeMazeT2(item: VspItem, out: string, mode: VspMode): Judgement {
  let i = pyFind(out, '<Output> ');
  if (i === -1) i = pyFind(out, '<Output>\n');
  if (i === -1) return wrong('no "<Output>"', undefined, true);
  const tokens = pySlice(out, i + 9).split(',').map((t) => pyStrip(del(t, `"'\n.*`)));
  const truth = item.truth.words!;
  const all = truth.every((w) => tokens.includes(w));
  if (mode === 'official') return { valid: true, correct: all, extracted: tokens, scriptInvalid: false };
  const exact = all && tokens.every((t) => truth.includes(t));
  return { valid: true, correct: exact, extracted: tokens, reason: all && !exact ? 'extra directions (maze-t2-extra-words)' : undefined };
}

/** The text from the first marker found plus its script's offset; with none, find's -1 plus the last offset. */
function afterMarker(out: string, markers: ReadonlyArray<readonly [string, number]>): string {
  for (const [m, skip] of markers) {
    const i = pyFind(out, m);
    if (i !== -1) return pySlice(out, i + skip);
  }
  return pySlice(out, -1 + markers[markers.length - 1][1]);
}

function judgeMazeT3(item: VspItem, out: string): Judgement {
  const a = pyStrip(del(afterMarker(out, [['<Answer>', 8], ['**Answer', 8], ['Answer', 6]]), `"*:'\n.()<>\``));
  if (!['A', 'B', 'C', 'D'].includes(a)) return wrong('not A-D', a, true);
  return { valid: true, correct: a === 'ABCD'[item.truth.choice!], extracted: a, scriptInvalid: false };
}

/** Strict maze T4 drops these before reading the answer line: Python whitespace and the deleted marks. */
const T4_LEAD = new RegExp(`^(?:${PY_SPACE_CLASS}|[:*\\-"'.])+`);

function judgeMazeT4(item: VspItem, out: string, mode: VspMode): Judgement {
  let a: string;
  const markers = ['<Output>', '**Output**', 'Output'];
  const found = markers.map((m) => [m, pyFind(out, m)] as const).find(([, i]) => i !== -1);
  if (mode === 'strict') {
    if (found === undefined) return wrong('no "Output" marker (maze-t4-ten-chars)', undefined, undefined);
    const [m, i] = found;
    a = pySlice(out, i + m.length).replace(T4_LEAD, '').split('\n')[0];
  } else if (found !== undefined) {
    const [m, i] = found;
    a = pySlice(out, i + m.length, i + m.length + 10);
  } else {
    a = pySlice(out, 5, 15);
  }
  a = pyStrip(del(a, `"'\n.:-*`)).toLowerCase();
  const yes = a.includes('yes') && !a.includes('no');
  const no = a.includes('no') && !a.includes('yes');
  const correct = item.truth.yn === 'Y' ? yes : no;
  // The script counts a missing marker as invalid, yet still scores the text it read.
  return { valid: found !== undefined && (yes || no), correct, extracted: a, scriptInvalid: found === undefined };
}

// ---------------------------------------------------------------- blocks

/** eval.py's move(): parses one cleaned "move(...)" line the way the script does, or raises. */
function officialMove(line: string): BlockMove {
  const elems = pySlice(line, 'move('.length, -1).split(',');
  const source = pyStrip(pyAt(elems[0], 0));
  if (elems.length < 2) throw new PyError(`"${line}": fewer than two arguments`);
  let target = pyStrip(elems[1]);
  if (target !== 'table') target = pyAt(target, 0);
  return { source: source.toUpperCase(), target: target === 'table' ? 'table' : target.toUpperCase() };
}

function judgeBlocksMain(item: VspItem, out: string, mode: VspMode): Judgement {
  const i = pyFind(out, '<Output>');
  const lines = pySlice(out, i + 9).split('\n').map((l) => pyStrip(del(pySlice(l, 2), `"'\n.`))).filter((l) => l.startsWith('move'));
  let moves: BlockMove[];
  try {
    moves = lines.map(officialMove);
  } catch (e) {
    if (!(e instanceof PyError)) throw e;
    return wrong(e.message, lines, true);
  }
  // The scripts' source '' (e.g. "( red") never matches a stack top: an illegal move.
  const run = runMoves(item.stacks!, moves, mode === 'official' ? 'skip' : 'fail');
  if (run.failedAt !== undefined) return { valid: true, correct: false, extracted: lines, reason: `illegal move ${run.failedAt + 1} (blocks-main-illegal-move)` };
  const correct = stacksKey(run.stacks) === stacksKey(item.goal!);
  return { valid: i !== -1, correct, extracted: lines, reason: correct ? undefined : 'does not reach the goal', scriptInvalid: false };
}

/** Blocks T1-T3 read the line after the marker (to the first newline). */
const firstLine = (s: string) => s.split('\n')[0];

// Blocks T1-T4: nothing the scripts do with the text can raise, so their invalid count stays 0.
function judgeBlocksT1(item: VspItem, out: string): Judgement {
  const a = pyStrip(del(firstLine(afterMarker(out, [['<Output>', 8]])), `"'\n.*`));
  const correct = a.toLowerCase() === item.truth.colour!.toLowerCase();
  return { valid: out.includes('<Output>'), correct, extracted: a, scriptInvalid: false };
}

function judgeBlocksChoice(item: VspItem, out: string, chars: string, upper: boolean): Judgement {
  let a = pyStrip(del(firstLine(afterMarker(out, [['<Output>', 8], ['Output', 6]])), chars));
  if (upper) a = a.toUpperCase();
  if (!['A', 'B', 'C', 'D'].includes(a)) return wrong('not A-D', a, false);
  return { valid: true, correct: a === 'ABCD'[item.truth.choice!], extracted: a, scriptInvalid: false };
}

function judgeBlocksT4(item: VspItem, out: string): Judgement {
  const a = pyStrip(del(afterMarker(out, [['<Output>', 8]]), `"'\n.`)).toLowerCase();
  if (a !== 'yes' && a !== 'no') return wrong('not yes/no', a, false);
  return { valid: true, correct: (a === 'yes') === item.truth.valid, extracted: a, scriptInvalid: false };
}

// ---------------------------------------------------------------- repository-only tasks

/** Collision's pattern: case-sensitive labels, Python's `\s`, ASCII digits. */
const COLLISION = new RegExp(`(Car|Person):${PY_SPACE_CLASS}*([0-9]*\\.?[0-9]+)`, 'g');

function judgeCollision(item: VspItem, out: string, mode: VspMode): Judgement {
  const found: Record<string, number> = {};
  for (const m of out.matchAll(COLLISION)) found[m[1]] = Number(m[2]);
  const car = found.Car !== undefined && Math.abs(item.truth.car! - found.Car) <= 1;
  const person = found.Person !== undefined && Math.abs(item.truth.person! - found.Person) <= 1;
  // Official: the person check raises (it indexes a float), so only the car can score.
  const points = (car ? 1 : 0) + (mode === 'strict' && person ? 1 : 0);
  return { valid: found.Car !== undefined && found.Person !== undefined, correct: points === 2, credit: points / 2, extracted: found, reason: mode === 'official' && person ? 'person not credited (collision-person)' : undefined };
}

const GOOGLE_DIRECTIONS = [['north', 'north', 1n], ['south', 'north', -1n], ['east', 'east', 1n], ['west', 'east', -1n]] as const;
/** Nets as JSON numbers where exact (int() has no bound; the extracted value goes to scores.jsonl). */
const jsonInt = (x: bigint) => (x >= BigInt(Number.MIN_SAFE_INTEGER) && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x.toString());

function judgeGoogleMap(item: VspItem, out: string): Judgement {
  let i = pyFind(out, 'Output');
  if (i === -1) i = pyFind(out, 'Path');
  const lines = pyStrip(del(pySlice(out, i + 7), `"'.`)).split('\n');
  const net = { north: 0n, east: 0n };
  try {
    for (const raw of lines) {
      const line = raw.toLowerCase();
      for (const [dir, axis, sign] of GOOGLE_DIRECTIONS) {
        // int() of what follows the last "dir:" (the whole line when there is none, which raises).
        if (line.includes(dir)) net[axis] += sign * pyInt(line.split(`${dir}:`).at(-1)!);
      }
    }
  } catch (e) {
    if (!(e instanceof PyError)) throw e;
    return wrong(e.message, undefined, undefined);
  }
  const extracted = { north: jsonInt(net.north), east: jsonInt(net.east) };
  return { valid: i !== -1, correct: net.north === BigInt(item.truth.north!) && net.east === BigInt(item.truth.east!), extracted };
}

/**
 * Judges one output of one VSP prompt in one mode. The output is first read the way the scripts
 * read their output files (text mode: "\r\n" and "\r" become "\n"), then cut, stripped and parsed
 * with Python's string semantics (src/util/python-str.ts). `scriptInvalid` is the official script's
 * own invalid count (official mode, tasks whose script keeps one); `valid` is ours.
 */
export function judgeVsp(item: VspItem, _prompt: BenchPrompt, output: string, mode: string): Judgement {
  const m = mode as VspMode;
  const out = pyTextModeRoundTrip(output);
  const j = judgeTask(item, out, m);
  if (m !== 'official') delete j.scriptInvalid;
  return j;
}

function judgeTask(item: VspItem, out: string, m: VspMode): Judgement {
  switch (item.task) {
    case 'maze-main': return judgeMazeMain(item, out);
    case 'maze-t1': return judgeMazeT1(item, out);
    case 'maze-t2': return judgeMazeT2(item, out, m);
    case 'maze-t3': return judgeMazeT3(item, out);
    case 'maze-t4': return judgeMazeT4(item, out, m);
    case 'blocks-main': return judgeBlocksMain(item, out, m);
    case 'blocks-t1': return judgeBlocksT1(item, out);
    case 'blocks-t2': return judgeBlocksChoice(item, out, `"'\n.*<>:`, false);
    case 'blocks-t3': return judgeBlocksChoice(item, out, `"'\n.*`, true);
    case 'blocks-t4': return judgeBlocksT4(item, out);
    case 'collision': return judgeCollision(item, out, m);
    case 'google-map': return judgeGoogleMap(item, out);
  }
}
