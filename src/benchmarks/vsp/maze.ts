/**
 * Maze maps as the VSP data describes them: rows of S (start), F (safe), H (hole), G (goal),
 * 1-based row/column from the top-left. Parsing of the `table` files, the rebuilt S/F/H/G text the
 * official main/T2 scorers read, the official replay rules, and a BFS planner.
 */
import { GsrError } from '../../util/errors.js';

export type Move = 'L' | 'R' | 'U' | 'D';
export const MOVES: readonly Move[] = ['L', 'R', 'U', 'D'];
export const MOVE_NAMES: Record<Move, string> = { L: 'Left', R: 'Right', U: 'Up', D: 'Down' };
const DELTA: Record<Move, [number, number]> = { L: [0, -1], R: [0, 1], U: [-1, 0], D: [1, 0] };
const TABLE_SYMBOL: Record<string, string> = { '@': 'S', '*': 'G', '#': 'H', _: 'F' };

/** A map as S/F/H/G rows (the `text` format). */
export type MazeRows = string[];

/** Parses a `table` file (`| | Col 1 |...` then `| Row r | x |...`) into S/F/H/G rows. */
export function parseMazeTable(text: string, where: string): MazeRows {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length < 2 || !/^\|\s*\|\s*Col 1\s*\|/.test(lines[0])) throw new GsrError(`${where}: not a maze table (header "| | Col 1 |..." missing)`);
  const n = lines[0].split('|').filter((c) => /Col \d+/.test(c)).length;
  const rows: MazeRows = [];
  for (const [i, line] of lines.slice(1).entries()) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells[0] !== `Row ${i + 1}` || cells.length !== n + 1) throw new GsrError(`${where}: malformed maze table row ${i + 1}: "${line}"`);
    rows.push(cells.slice(1).map((c) => {
      const s = TABLE_SYMBOL[c];
      if (s === undefined) throw new GsrError(`${where}: unknown maze symbol "${c}" in row ${i + 1}`);
      return s;
    }).join(''));
  }
  if (rows.length !== n) throw new GsrError(`${where}: maze table has ${n} columns but ${rows.length} rows`);
  checkMaze(rows, where);
  return rows;
}

/** Exactly one start and one goal. */
export function checkMaze(rows: MazeRows, where: string): void {
  const count = (c: string) => rows.join('').split(c).length - 1;
  if (count('S') !== 1 || count('G') !== 1) throw new GsrError(`${where}: a maze needs one player and one goal (found ${count('S')} and ${count('G')})`);
}

export function findCell(rows: MazeRows, c: 'S' | 'G'): [number, number] {
  for (let r = 0; r < rows.length; r++) {
    const col = rows[r].indexOf(c);
    if (col >= 0) return [r, col];
  }
  throw new GsrError(`maze has no ${c}`);
}

export function holes(rows: MazeRows): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  rows.forEach((row, r) => [...row].forEach((c, col) => c === 'H' && out.push([r, col])));
  return out;
}

/** One move from (r, c); off the edge stays put. */
export function step(rows: MazeRows, [r, c]: [number, number], m: Move): [number, number] {
  const [dr, dc] = DELTA[m];
  const nr = r + dr;
  const nc = c + dc;
  return nr < 0 || nc < 0 || nr >= rows.length || nc >= rows.length ? [r, c] : [nr, nc];
}

/** Replays moves from S: the first hole loses, reaching G wins (later moves ignored). */
export function replayMaze(rows: MazeRows, moves: readonly Move[]): { outcome: 'win' | 'hole' | 'short'; path: Array<[number, number]> } {
  let at = findCell(rows, 'S');
  const path: Array<[number, number]> = [at];
  for (const m of moves) {
    at = step(rows, at, m);
    path.push(at);
    const cell = rows[at[0]][at[1]];
    if (cell === 'H') return { outcome: 'hole', path };
    if (cell === 'G') return { outcome: 'win', path };
  }
  return { outcome: 'short', path };
}

/** Shortest safe plan from S to G (BFS, moves tried in L, R, U, D order); null when none. */
export function solveMaze(rows: MazeRows): Move[] | null {
  const n = rows.length;
  const start = findCell(rows, 'S');
  const prev = new Map<number, { from: number; move: Move }>();
  const id = ([r, c]: [number, number]) => r * n + c;
  const queue: Array<[number, number]> = [start];
  const seen = new Set([id(start)]);
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (rows[at[0]][at[1]] === 'G') {
      const plan: Move[] = [];
      for (let k = id(at); k !== id(start); k = prev.get(k)!.from) plan.unshift(prev.get(k)!.move);
      return plan;
    }
    for (const m of MOVES) {
      const next = step(rows, at, m);
      if (seen.has(id(next)) || rows[next[0]][next[1]] === 'H') continue;
      seen.add(id(next));
      prev.set(id(next), { from: id(at), move: m });
      queue.push(next);
    }
  }
  return null;
}

/** T4's ground truth: safe unless some move lands on a hole; the goal does not stop the walk. */
export function sequenceSafe(rows: MazeRows, moves: readonly Move[]): boolean {
  let at = findCell(rows, 'S');
  for (const m of moves) {
    at = step(rows, at, m);
    if (rows[at[0]][at[1]] === 'H') return false;
  }
  return true;
}

/** T2's ground truth: the player's position relative to the goal (1-2 words). */
export function relativePosition(rows: MazeRows): string[] {
  const [pr, pc] = findCell(rows, 'S');
  const [gr, gc] = findCell(rows, 'G');
  const words: string[] = [];
  if (pr > gr) words.push('Below');
  if (pr < gr) words.push('Above');
  if (pc > gc) words.push('Right');
  if (pc < gc) words.push('Left');
  return words;
}

/** The `table` rendering (as the data files and the T3 candidates write it). */
export function mazeTable(rows: MazeRows): string {
  const sym: Record<string, string> = { S: '@', G: '*', H: '#', F: '_' };
  const n = rows.length;
  const head = `| | ${Array.from({ length: n }, (_, i) => `Col ${i + 1}`).join(' | ')} |`;
  return [head, ...rows.map((row, r) => `| Row ${r + 1} | ${[...row].map((c) => sym[c]).join(' | ')} |`)].join('\n');
}

/** The `pure_text` rendering. */
export function mazePureText(rows: MazeRows): string {
  const n = rows.length;
  const [pr, pc] = findCell(rows, 'S');
  const [gr, gc] = findCell(rows, 'G');
  const hs = holes(rows);
  const holeLine = hs.length === 0 ? 'There is no holes in this map;' : `The hole(s) are at: ${hs.map(([r, c]) => `Row ${r + 1}, Column ${c + 1}`).join('; ')};`;
  return `This is a ${n}x${n} map.\nThe player is at: row ${pr + 1}, column ${pc + 1};\n${holeLine}\nThe goal is at: Row ${gr + 1}, Column ${gc + 1}.`;
}

export function parseMoves(s: string, where: string): Move[] {
  if (!/^[LRUD]*$/.test(s)) throw new GsrError(`${where}: not a move string (L, R, U, D): "${s}"`);
  return [...s] as Move[];
}
