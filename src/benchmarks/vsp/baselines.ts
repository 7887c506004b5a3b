/**
 * VSP baselines. `oracle` reads the item's map or blocks state and answers every task in the
 * expected format (BFS plans for the main tasks); it bounds the benchmark from above. `random`
 * picks uniformly among each task's answer options (seeded by the prompt key); its expected score
 * per item is `randomExpectation`.
 */
import { createHash } from 'node:crypto';
import { seededRandom } from '../../util/random.js';
import { isBenchPrompt, type AnyPrompt } from '../../formats/prompts.js';
import { GsrError } from '../../util/errors.js';
import { AnswerError } from '../../mllm/errors.js';
import type { Answerer } from '../../mllm/types.js';
import type { BaselineOptions } from '../types.js';
import { COLOURS, formatPlan, runMoves, solveBlocks, stacksKey, type Stacks } from './blocks.js';
import { candidates, parseStacksText } from './parse.js';
import type { VspItem } from './item.js';
import { MOVES, mazeTable, parseMazeTable, parseMoves, relativePosition, sequenceSafe, solveMaze } from './maze.js';

function vspItem(items: ReadonlyMap<string, VspItem>, p: AnyPrompt, name: string): VspItem {
  if (!isBenchPrompt(p) || p.benchmark !== 'vsp') throw new AnswerError(`${name} answers VSP prompts only`, false);
  const item = items.get(p.item);
  if (item === undefined) throw new AnswerError(`${name}: item ${p.item} is not in the items file`, false);
  return item;
}

/** Blocks T2's relation of a to b: 0 above in one stack, 1 below, 2 different stacks, 3 one absent. */
export function blocksRelation(stacks: Stacks, a: string, b: string): number {
  const where = (c: string) => stacks.findIndex((s) => s.includes(c));
  const sa = where(a);
  const sb = where(b);
  if (sa < 0 || sb < 0) return 3;
  if (sa !== sb) return 2;
  return stacks[sa].indexOf(a) > stacks[sa].indexOf(b) ? 0 : 1;
}

function northEast(north: number, east: number): string {
  const ns = north >= 0 ? `North: ${north}` : `South: ${-north}`;
  const ew = east >= 0 ? `East: ${east}` : `West: ${-east}`;
  return `<Output>\n1. ${ns}\n2. ${ew}`;
}

/** The oracle's answer to an item, in the format its task asks for. */
export function oracleAnswer(item: VspItem): string {
  const t = item.truth;
  switch (item.task) {
    case 'maze-main': {
      const plan = solveMaze(item.maze!);
      if (plan === null) throw new GsrError(`${item.id}: the maze has no safe path`);
      return `Action plan: ${plan.join(',')}`;
    }
    case 'maze-t1': {
      const [r, c] = t.cell!;
      return `<Output> ${item.maze![r - 1][c - 1] === 'H' ? 'Yes' : 'No'}`;
    }
    case 'maze-t2': return `<Output> ${relativePosition(item.maze!).join(',')}`;
    case 'maze-t3': {
      const map = mazeTable(item.maze!);
      const k = candidates(item.question!, item.id).findIndex((c) => mazeTable(parseMazeTable(c, item.id)) === map);
      return `<Answer> ${'ABCD'[k]}`;
    }
    case 'maze-t4': return `<Output> ${sequenceSafe(item.maze!, parseMoves(t.moves!, item.id)) ? 'Yes' : 'No'}`;
    case 'blocks-main': {
      const plan = solveBlocks(item.stacks!, item.goal!);
      if (plan === null) throw new GsrError(`${item.id}: the goal is unreachable`);
      return `<Output>\n${formatPlan(plan)}`;
    }
    case 'blocks-t1': {
      const [s, l] = t.at!;
      return `<Output> ${COLOURS[item.stacks![s - 1]?.[l - 1]] ?? 'none'}`;
    }
    case 'blocks-t2': return `<Output> ${'ABCD'[blocksRelation(item.stacks!, t.pair![0], t.pair![1])]}`;
    case 'blocks-t3': {
      const key = stacksKey(item.stacks!);
      const k = candidates(item.question!, item.id).findIndex((c) => stacksKey(parseStacksText(c, item.id)) === key);
      return `<Output> ${'ABCD'[k]}`;
    }
    case 'blocks-t4': return `<Output> ${runMoves(item.stacks!, t.sequence!, 'fail').failedAt === undefined ? 'Yes' : 'No'}`;
    case 'collision': return `Car: ${t.car}\nPerson: ${t.person}`;
    case 'google-map': return northEast(t.north!, t.east!);
  }
}

const QUADRANTS = ['Above,Left', 'Above,Right', 'Below,Left', 'Below,Right'];
const COLOUR_NAMES = Object.values(COLOURS);

/** The options the random answerer draws from, per task (uniformly). */
export function randomOptions(item: VspItem): string[] {
  switch (item.task) {
    case 'maze-t1': case 'maze-t4': case 'blocks-t4': return ['<Output> Yes', '<Output> No'];
    case 'maze-t2': return QUADRANTS.map((q) => `<Output> ${q}`);
    case 'maze-t3': return ['A', 'B', 'C', 'D'].map((c) => `<Answer> ${c}`);
    case 'blocks-t1': return COLOUR_NAMES.map((c) => `<Output> ${c}`);
    case 'blocks-t2': case 'blocks-t3': return ['A', 'B', 'C', 'D'].map((c) => `<Output> ${c}`);
    default: return [];
  }
}

/** A random answer for the planning and repository-only tasks (their option space is unbounded). */
function randomFree(item: VspItem, rand: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  if (item.task === 'maze-main') {
    const n = item.maze!.length;
    return `Action plan: ${Array.from({ length: 2 * n }, () => pick(MOVES)).join(',')}`;
  }
  if (item.task === 'blocks-main') {
    let stacks = item.stacks!;
    const moves = [];
    for (let k = 0; k < Number(item.level); k++) {
      const tops = stacks.map((s) => s[s.length - 1]);
      const source = pick(tops);
      const target = pick(['table', ...tops.filter((x) => x !== source)]);
      moves.push({ source, target });
      stacks = runMoves(stacks, [{ source, target }], 'skip').stacks;
    }
    return `<Output>\n${formatPlan(moves)}`;
  }
  if (item.task === 'collision') return `Car: ${pick([1, 2, 3, 4])}\nPerson: ${pick([1, 2, 3, 4])}`;
  return northEast(pick([-3, -2, -1, 0, 1, 2, 3]), pick([-3, -2, -1, 0, 1, 2, 3]));
}

/** Same seed and prompt key, same answer (order-independent). */
function promptRandom(seed: number, key: string): () => number {
  return seededRandom(createHash('sha256').update(`${seed}\0${key}`).digest().readUInt32BE(0));
}

export function createOracle(items: ReadonlyMap<string, VspItem>, o: BaselineOptions): Answerer {
  return { name: o.name, answer: async (p) => oracleAnswer(vspItem(items, p, o.name)) };
}

export function createRandom(items: ReadonlyMap<string, VspItem>, o: BaselineOptions): Answerer {
  return {
    name: o.name,
    async answer(p) {
      const item = vspItem(items, p, o.name);
      const rand = promptRandom(o.seed, p.key);
      const options = randomOptions(item);
      return options.length > 0 ? options[Math.floor(rand() * options.length)] : randomFree(item, rand);
    },
  };
}

/**
 * The oracle on some tasks and random on the rest: `oracle-perception` (T1-T3) and
 * `oracle-reasoning` (T4) separate what perfect perception or perfect reasoning alone buys.
 */
export function createPartialOracle(tasks: readonly string[]) {
  return (items: ReadonlyMap<string, VspItem>, o: BaselineOptions): Answerer => {
    const oracle = createOracle(items, o);
    const random = createRandom(items, o);
    return { name: o.name, answer: (p, signal) => (tasks.includes(vspItem(items, p, o.name).task) ? oracle : random).answer(p, signal) };
  };
}
