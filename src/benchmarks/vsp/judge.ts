/**
 * VSP answer extraction and judging in two modes. `official` reproduces the official eval.py
 * scripts character for character, quirks included (an exception there is a wrong answer here).
 * `strict` is the same except for the named fixes in STRICT_FIXES, each documented in docs/vsp.md.
 */
import type { BenchPrompt } from '../../formats/chat-prompt.js';
import type { Judgement } from '../types.js';
import { runMoves, stacksKey, type BlockMove } from './blocks.js';
import type { VspItem } from './item.js';
import { findCell, type Move } from './maze.js';

export const VSP_MODES = ['official', 'strict'] as const;
export type VspMode = (typeof VSP_MODES)[number];

/** The known defects of the official scorers that `strict` fixes (name -> what changes). */
export const STRICT_FIXES = {
  'maze-t2-extra-words': 'maze T2: the answer must name exactly the true directions (official passes any answer that also lists extra ones)',
  'blocks-main-illegal-move': 'blocks main: an illegal move fails the plan (official silently skips it)',
  'maze-t4-ten-chars': 'maze T4: the whole answer line after the marker is read, and a missing marker is wrong (official reads only 10 characters, and scores characters 5-14 when the marker is missing)',
  'collision-person': 'collision: the person\'s time is credited (official throws on it and never credits it)',
} as const;

/** Python's str.find / str.replace / str.strip as the scripts use them. */
const del = (s: string, chars: string) => [...s].filter((c) => !chars.includes(c)).join('');
const strip = (s: string) => s.replace(/^\s+|\s+$/g, '');
/** Python slice s[start:] / s[start:end] for the non-negative indices the scripts produce. */
const slice = (s: string, start: number, end?: number) => s.slice(Math.max(0, start), end === undefined ? undefined : Math.max(0, end));

/** Thrown where the official script would raise (the item counts as wrong). */
class Raise extends Error {}

function wrong(reason: string, extracted?: unknown): Judgement {
  return { valid: false, correct: false, reason, extracted };
}

// ---------------------------------------------------------------- maze

/** gym FrozenLake-v1 as eval.py drives it: H or G ends the episode; 100 steps truncate it. */
function frozenLake(rows: string[], tokens: readonly string[]): boolean {
  const code: Record<string, Move> = { L: 'L', D: 'D', R: 'R', U: 'U' };
  let [r, c] = findCell(rows, 'S');
  const n = rows.length;
  for (let k = 0; k < tokens.length; k++) {
    const m = code[tokens[k]];
    if (m === undefined) throw new Raise(`bad move token "${tokens[k]}"`);
    if (m === 'L') c = Math.max(c - 1, 0);
    else if (m === 'R') c = Math.min(c + 1, n - 1);
    else if (m === 'U') r = Math.max(r - 1, 0);
    else r = Math.min(r + 1, n - 1);
    const cell = rows[r][c];
    if (cell === 'G') return true;
    if (cell === 'H' || k + 1 >= 100) return false;
  }
  return false;
}

function judgeMazeMain(item: VspItem, out: string): Judgement {
  let i = out.indexOf('Action plan: ');
  if (i === -1) i = out.indexOf('Action Plan: ');
  const tokens = slice(out, i + 13).split(',').map((t) => strip(del(t, `"'\n.`)));
  try {
    const win = frozenLake(item.maze!, tokens);
    return { valid: i !== -1, correct: win, extracted: tokens, reason: win ? undefined : i === -1 ? 'no "Action plan:"' : 'plan does not reach the goal' };
  } catch (e) {
    return wrong((e as Error).message, tokens);
  }
}

function judgeMazeT1(item: VspItem, out: string): Judgement {
  const i = out.indexOf('<Output>');
  const a = strip(del(slice(out, i + 8), `"'\n.()`)).toLowerCase();
  if (a !== 'yes' && a !== 'no') return wrong('not yes/no', a);
  return { valid: true, correct: (a === 'yes') === (item.truth.yn === 'Y'), extracted: a };
}

function judgeMazeT2(item: VspItem, out: string, mode: VspMode): Judgement {
  let i = out.indexOf('<Output> ');
  if (i === -1) i = out.indexOf('<Output>\n');
  if (i === -1) return wrong('no "<Output>"');
  const tokens = slice(out, i + 9).split(',').map((t) => strip(del(t, `"'\n.*`)));
  const truth = item.truth.words!;
  const all = truth.every((w) => tokens.includes(w));
  if (mode === 'official') return { valid: true, correct: all, extracted: tokens };
  const exact = all && tokens.every((t) => truth.includes(t));
  return { valid: true, correct: exact, extracted: tokens, reason: all && !exact ? 'extra directions (maze-t2-extra-words)' : undefined };
}

function judgeMazeT3(item: VspItem, out: string): Judgement {
  let i = out.indexOf('<Answer>');
  let a = slice(out, i + 8);
  if (i === -1) {
    i = out.indexOf('**Answer');
    a = slice(out, i + 8);
  }
  if (i === -1) {
    i = out.indexOf('Answer');
    a = slice(out, i + 6);
  }
  a = strip(del(a, `"*:'\n.()<>\``));
  if (!['A', 'B', 'C', 'D'].includes(a)) return wrong('not A-D', a);
  return { valid: true, correct: a === 'ABCD'[item.truth.choice!], extracted: a };
}

function judgeMazeT4(item: VspItem, out: string, mode: VspMode): Judgement {
  let valid = true;
  let a: string;
  const markers = ['<Output>', '**Output**', 'Output'];
  const found = markers.map((m) => [m, out.indexOf(m)] as const).find(([, i]) => i !== -1);
  if (mode === 'strict') {
    if (found === undefined) return wrong('no "Output" marker (maze-t4-ten-chars)');
    const [m, i] = found;
    a = slice(out, i + m.length).replace(/^[\s:*\-"'.]+/, '').split('\n')[0];
  } else if (found !== undefined) {
    const [m, i] = found;
    a = slice(out, i + m.length, i + m.length + 10);
  } else {
    a = slice(out, 5, 15);
    valid = false;
  }
  a = strip(del(a, `"'\n.:-*`)).toLowerCase();
  const yes = a.includes('yes') && !a.includes('no');
  const no = a.includes('no') && !a.includes('yes');
  const correct = item.truth.yn === 'Y' ? yes : no;
  return { valid: valid && (yes || no), correct, extracted: a };
}

// ---------------------------------------------------------------- blocks

/** eval.py's move(): parses one cleaned "move(...)" line the way the script does, or raises. */
function officialMove(line: string): BlockMove {
  const elems = line.slice('move('.length, -1).split(',');
  if (elems.length < 2) throw new Raise(`"${line}": fewer than two arguments`);
  if (elems[0] === '') throw new Raise(`"${line}": empty source`);
  const source = strip(elems[0][0]);
  let target = strip(elems[1]);
  if (target !== 'table') {
    if (target === '') throw new Raise(`"${line}": empty target`);
    target = target[0];
  }
  return { source: source.toUpperCase(), target: target === 'table' ? 'table' : target.toUpperCase() };
}

function judgeBlocksMain(item: VspItem, out: string, mode: VspMode): Judgement {
  const i = out.indexOf('<Output>');
  const lines = slice(out, i + 9).split('\n').map((l) => strip(del(l.slice(2), `"'\n.`))).filter((l) => l.startsWith('move'));
  let moves: BlockMove[];
  try {
    moves = lines.map(officialMove);
  } catch (e) {
    return wrong((e as Error).message, lines);
  }
  // The scripts' source '' (e.g. "( red") never matches a stack top: an illegal move.
  const run = runMoves(item.stacks!, moves, mode === 'official' ? 'skip' : 'fail');
  if (run.failedAt !== undefined) return { valid: true, correct: false, extracted: lines, reason: `illegal move ${run.failedAt + 1} (blocks-main-illegal-move)` };
  const correct = stacksKey(run.stacks) === stacksKey(item.goal!);
  return { valid: i !== -1, correct, extracted: lines, reason: correct ? undefined : 'does not reach the goal' };
}

function afterMarker(out: string, markers: Array<[string, number]>, fallbackStart: number): string {
  for (const [m, len] of markers) {
    const i = out.indexOf(m);
    if (i !== -1) return slice(out, i + len);
  }
  return slice(out, fallbackStart);
}

function judgeBlocksT1(item: VspItem, out: string): Judgement {
  const a = strip(del(afterMarker(out, [['<Output>', 8]], 7).split('\n')[0], `"'.*`));
  const correct = a.toLowerCase() === item.truth.colour!.toLowerCase();
  return { valid: out.includes('<Output>'), correct, extracted: a };
}

function judgeBlocksChoice(item: VspItem, out: string, chars: string, upper: boolean): Judgement {
  let a = strip(del(afterMarker(out, [['<Output>', 8], ['Output', 6]], 5).split('\n')[0], chars));
  if (upper) a = a.toUpperCase();
  if (!['A', 'B', 'C', 'D'].includes(a)) return wrong('not A-D', a);
  return { valid: true, correct: a === 'ABCD'[item.truth.choice!], extracted: a };
}

function judgeBlocksT4(item: VspItem, out: string): Judgement {
  const a = strip(del(afterMarker(out, [['<Output>', 8]], 7), `"'\n.`)).toLowerCase();
  if (a !== 'yes' && a !== 'no') return wrong('not yes/no', a);
  return { valid: true, correct: (a === 'yes') === item.truth.valid, extracted: a };
}

// ---------------------------------------------------------------- repository-only tasks

function judgeCollision(item: VspItem, out: string, mode: VspMode): Judgement {
  const found: Record<string, number> = {};
  for (const m of out.matchAll(/(Car|Person):\s*([0-9]*\.?[0-9]+)/g)) found[m[1]] = Number(m[2]);
  const car = found.Car !== undefined && Math.abs(item.truth.car! - found.Car) <= 1;
  const person = found.Person !== undefined && Math.abs(item.truth.person! - found.Person) <= 1;
  // Official: the person check raises (it indexes a float), so only the car can score.
  const points = (car ? 1 : 0) + (mode === 'strict' && person ? 1 : 0);
  return { valid: found.Car !== undefined && found.Person !== undefined, correct: points === 2, credit: points / 2, extracted: found, reason: mode === 'official' && person ? 'person not credited (collision-person)' : undefined };
}

function pyInt(s: string): number {
  if (!/^\s*[+-]?\d+(_\d+)*\s*$/.test(s)) throw new Raise(`int("${s}")`);
  return Number(s.replace(/_/g, ''));
}

function judgeGoogleMap(item: VspItem, out: string): Judgement {
  let i = out.indexOf('Output');
  if (i === -1) i = out.indexOf('Path');
  const lines = strip(del(slice(out, i + 7), `"'.`)).split('\n');
  const net = { north: 0, east: 0 };
  try {
    for (const raw of lines) {
      const line = raw.toLowerCase();
      for (const [dir, axis, sign] of [['north', 'north', 1], ['south', 'north', -1], ['east', 'east', 1], ['west', 'east', -1]] as const) {
        if (!line.includes(dir)) continue;
        const at = line.indexOf(`${dir}:`);
        if (at === -1) throw new Raise(`"${raw}": no "${dir}:"`);
        net[axis] += sign * pyInt(line.slice(at + dir.length + 1));
      }
    }
  } catch (e) {
    return wrong((e as Error).message);
  }
  return { valid: i !== -1, correct: net.north === item.truth.north && net.east === item.truth.east, extracted: net };
}

/** Judges one output of one VSP prompt in one mode. */
export function judgeVsp(item: VspItem, _prompt: BenchPrompt, output: string, mode: string): Judgement {
  const m = mode as VspMode;
  switch (item.task) {
    case 'maze-main': return judgeMazeMain(item, output);
    case 'maze-t1': return judgeMazeT1(item, output);
    case 'maze-t2': return judgeMazeT2(item, output, m);
    case 'maze-t3': return judgeMazeT3(item, output);
    case 'maze-t4': return judgeMazeT4(item, output, m);
    case 'blocks-main': return judgeBlocksMain(item, output, m);
    case 'blocks-t1': return judgeBlocksT1(item, output);
    case 'blocks-t2': return judgeBlocksChoice(item, output, `"'.*<>:`, false);
    case 'blocks-t3': return judgeBlocksChoice(item, output, `"'.*`, true);
    case 'blocks-t4': return judgeBlocksT4(item, output);
    case 'collision': return judgeCollision(item, output, m);
    case 'google-map': return judgeGoogleMap(item, output);
  }
}
