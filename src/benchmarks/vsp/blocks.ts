/**
 * Blocks world as the VSP data describes it: stacks of coloured blocks (B Y P O R G), bottom to
 * top; info.txt states (7 "-"-joined slots of 6 chars, 0 = empty); moves move(SOURCE, TARGET).
 * Simulation in the official (illegal moves skipped) and strict (illegal move fails) ways, and a
 * BFS planner.
 */
import { GsrError } from '../../util/errors.js';

export const COLOURS: Record<string, string> = { B: 'blue', Y: 'yellow', P: 'purple', O: 'orange', R: 'red', G: 'green' };
const CODE_OF: Record<string, string> = Object.fromEntries(Object.entries(COLOURS).map(([k, v]) => [v, k]));

/** Non-empty stacks, each bottom to top, as colour codes. */
export type Stacks = string[][];
/** A move: block code onto a block code or 'table'. */
export interface BlockMove {
  source: string;
  target: string;
}

/** Parses an info.txt state ("B00000-P00000-...-000000"). */
export function parseState(s: string, where: string): Stacks {
  const slots = s.split('-');
  if (slots.length !== 7 || slots.some((x) => !/^[BYPORG0]{6}$/.test(x))) throw new GsrError(`${where}: not a blocks state: "${s}"`);
  const stacks = slots.map((x) => x.replace(/0+$/, '')).filter((x) => x !== '');
  if (stacks.some((x) => x.includes('0'))) throw new GsrError(`${where}: a stack has a gap: "${s}"`);
  const all = stacks.join('');
  if (new Set(all).size !== all.length) throw new GsrError(`${where}: a colour appears twice: "${s}"`);
  return stacks.map((x) => [...x]);
}

/** Canonical form: stacks as strings, sorted (stack order does not matter). */
export function stacksKey(stacks: Stacks): string {
  return stacks.map((x) => x.join('')).sort().join('|');
}

/** Applies a move if legal (source on top, target on top or table, target ≠ source); else null. */
export function applyMove(stacks: Stacks, m: BlockMove): Stacks | null {
  const from = stacks.findIndex((s) => s[s.length - 1] === m.source);
  if (from < 0 || m.source === m.target) return null;
  const lifted = stacks.map((s) => [...s]);
  lifted[from].pop();
  if (m.target === 'table') return [...lifted.filter((s) => s.length > 0), [m.source]];
  const to = lifted.findIndex((s) => s.length > 0 && s[s.length - 1] === m.target);
  if (to < 0) return null;
  lifted[to].push(m.source);
  return lifted.filter((s) => s.length > 0);
}

/** Runs moves; `skip` ignores illegal ones (the official scorer), `fail` stops at the first. */
export function runMoves(stacks: Stacks, moves: readonly BlockMove[], illegal: 'skip' | 'fail'): { stacks: Stacks; illegal: number; failedAt?: number } {
  let cur = stacks;
  let skipped = 0;
  for (const [i, m] of moves.entries()) {
    const next = applyMove(cur, m);
    if (next === null) {
      if (illegal === 'fail') return { stacks: cur, illegal: 1, failedAt: i };
      skipped++;
      continue;
    }
    cur = next;
  }
  return { stacks: cur, illegal: skipped };
}

/** A shortest plan from start to goal (BFS over legal moves); null if none. */
export function solveBlocks(start: Stacks, goal: Stacks): BlockMove[] | null {
  const goalKey = stacksKey(goal);
  const seen = new Set([stacksKey(start)]);
  let frontier: Array<{ stacks: Stacks; plan: BlockMove[] }> = [{ stacks: start, plan: [] }];
  if (stacksKey(start) === goalKey) return [];
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const { stacks, plan } of frontier) {
      const tops = stacks.map((s) => s[s.length - 1]);
      for (const source of tops) {
        for (const target of ['table', ...tops]) {
          const moved = applyMove(stacks, { source, target });
          if (moved === null) continue;
          if (target === 'table' && stacks.find((s) => s[s.length - 1] === source)!.length === 1) continue;
          const key = stacksKey(moved);
          if (seen.has(key)) continue;
          const p = [...plan, { source, target }];
          if (key === goalKey) return p;
          seen.add(key);
          next.push({ stacks: moved, plan: p });
        }
      }
    }
    frontier = next;
  }
  return null;
}

export function colourName(code: string): string {
  return code === 'table' ? 'table' : COLOURS[code];
}

export function colourCode(name: string): string | undefined {
  return CODE_OF[name.toLowerCase()];
}

/** "move(red,table) move(p,o,1)" plans of info.txt: single letters, optional step index. */
export function parseInfoPlan(s: string, where: string): BlockMove[] {
  return s.trim().split(/\s+/).map((tok) => {
    const m = /^move\(([a-z]),([a-z]+),\d+\)$/.exec(tok);
    if (!m) throw new GsrError(`${where}: not a plan step: "${tok}"`);
    return { source: m[1].toUpperCase(), target: m[2] === 'table' ? 'table' : m[2].toUpperCase() };
  });
}

/** "1. move(purple,table)" lines, as the example solutions and T4 sequences write them. */
export function formatPlan(moves: readonly BlockMove[]): string {
  return moves.map((m, i) => `${i + 1}. move(${colourName(m.source)},${colourName(m.target)})`).join('\n');
}

/** Parses "1. move(purple,table)" lines (T4 sequences, example solutions). */
export function parseNumberedPlan(text: string, where: string): BlockMove[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '').map((l) => {
    const m = /^\d+\.\s*move\(([a-z]+),\s*([a-z]+)\)$/.exec(l);
    const source = m && colourCode(m[1]);
    const target = m && (m[2] === 'table' ? 'table' : colourCode(m[2]));
    if (!m || !source || !target) throw new GsrError(`${where}: not a move line: "${l}"`);
    return { source, target };
  });
}

/** The pure-text rendering ("- Stack with red block, green block, from bottom to top"). */
export function stacksPureText(stacks: Stacks): string {
  return stacks.map((s) => (s.length === 1 ? `- Stack with ${COLOURS[s[0]]} block` : `- Stack with ${s.map((c) => `${COLOURS[c]} block`).join(', ')}, from bottom to top`)).join('\n');
}

/** The table rendering (" | Stack 1 |..." then "Level k | c |..." rows, top level first). */
export function stacksTable(stacks: Stacks): string {
  const height = Math.max(...stacks.map((s) => s.length));
  const head = ` | ${stacks.map((_, i) => `Stack ${i + 1}`).join(' | ')} |`;
  const rows = [];
  for (let l = height; l >= 1; l--) rows.push(`Level ${l} | ${stacks.map((s) => (s[l - 1] ? COLOURS[s[l - 1]] : '')).join(' | ')} |`);
  return [head, ...rows].join('\n');
}
