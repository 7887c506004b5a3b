/** Parsing of the item texts (pure): T3 candidates, pure-text stacks, T4 move names. */
import { GsrError } from '../../util/errors.js';
import { colourCode, type Stacks } from './blocks.js';

/** The four "(A)\n..." candidates of a T3 question. */
export function candidates(question: string, where: string): string[] {
  const parts = question.split(/^\(([A-D])\)\s*$/m);
  const out: string[] = [];
  for (let k = 1; k + 1 < parts.length; k += 2) out.push(parts[k + 1].trim());
  if (out.length !== 4) throw new GsrError(`${where}: expected four candidates (A)-(D), found ${out.length}`);
  return out;
}

/** Spelled-out moves, as the T4 runner writes them ("Right, Left, Down"). */
export function spellMoves(moves: string): string {
  return [...moves].map((m) => ({ L: 'Left', R: 'Right', U: 'Up', D: 'Down' })[m]).join(', ');
}

/** Parses a pure-text stacks rendering back (the blocks rep files and T3 candidates). */
export function parseStacksText(text: string, where: string): Stacks {
  const stacks: Stacks = [];
  for (const line of text.split('\n').map((l) => l.trim()).filter((l) => l !== '')) {
    const m = /^- Stack with (.+?)(, from bottom to top)?$/.exec(line);
    if (!m) throw new GsrError(`${where}: not a stack line: "${line}"`);
    const codes = m[1].split(', ').map((b) => colourCode(b.replace(/ block$/, '')));
    if (codes.some((c) => c === undefined)) throw new GsrError(`${where}: unknown colour in "${line}"`);
    stacks.push(codes as string[]);
  }
  if (stacks.length === 0) throw new GsrError(`${where}: no stacks`);
  return stacks;
}
