/**
 * `gsr dataset synth vsp-layout`: writes a small benchmark in the folder layout `gsr dataset import
 * vsp` reads (docs/vsp.md, "The generated sample"), made entirely by this project: maze maps and
 * blocks-world arrangements drawn from a seed, their pictures (drawn schematically, layout-draw.ts),
 * their table and text forms, questions, answers, worked in-context examples, and the prompt
 * templates and figures (layout-text.ts). Every task and level the importer reads is present, with
 * `items` items and `examples` examples per level. Ground truth follows the same rules the judge
 * and the oracle use (maze.ts, blocks.ts), so the oracle scores 100%.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';
import { writeFileAtomic } from '../../util/fs.js';
import { Rng } from '../../util/random.js';
import type { ItemSet } from '../types.js';
import { blocksRelation } from './baselines.js';
import { COLOURS, formatPlan, runMoves, solveBlocks, stacksKey, stacksPureText, stacksTable, type BlockMove, type Stacks } from './blocks.js';
import { importVsp, BLOCKS_FIGURE_STACKS, MAZE_FIGURE_MAP } from './import.js';
import type { ExamplePart, VspContext, VspItem } from './item.js';
import { blocksSvg, collisionLegendSvg, collisionSvg, mazeLegendSvg, mazeSvg, streetSvg } from './layout-draw.js';
import {
  TEMPLATES, blocksCandidatesAnswer, blocksColourAnswer, blocksColourQuestion, blocksPlanQuestion, blocksRelationAnswer, blocksRelationQuestion, blocksSequenceAnswer,
  mazeCandidatesAnswer, mazeHoleAnswer, mazeHoleQuestion, mazePlanAnswer, mazeRelativeAnswer, mazeSequenceAnswer,
} from './layout-text.js';
import { MOVES, mazePureText, mazeTable, relativePosition, sequenceSafe, solveMaze, type MazeRows, type Move } from './maze.js';

export const VspLayoutSchema = z.strictObject({
  /** Random seed (same seed, same bytes). */
  seed: z.number().int().min(0).default(1),
  /** Items per task and level. */
  items: z.number().int().min(1).max(100).default(2),
  /** In-context examples per task and level (the prompts' `shots` can use up to this many). */
  examples: z.number().int().min(1).max(8).default(2),
});
export type VspLayoutOptions = z.input<typeof VspLayoutSchema>;

export const MAZE_LEVELS = [3, 4, 5, 6, 7, 8];
export const MAZE_STEPS = [1, 3, 5, 7, 9];
export const BLOCKS_MOVES = [1, 3, 5, 7];
export const BLOCKS_COUNTS = [3, 4, 5];
const CODES = Object.keys(COLOURS);
const LETTERS = 'ABCD';

// sharp is loaded when the first picture is drawn: the VSP plug-in is registered by commands that
// never draw (`gsr pipeline check`; docs/cli.md, "Start-up").
const loadSharp = async () => (await import('sharp')).default;

/** Writes files with a few encodings in flight at once. */
class Writer {
  files = 0;
  private pending: Promise<void>[] = [];
  constructor(readonly root: string) {}
  private add(rel: string, data: Promise<Uint8Array | string> | string): Promise<void> {
    this.files++;
    this.pending.push(Promise.resolve(data).then((d) => writeFileAtomic(join(this.root, rel), d)));
    return this.pending.length >= 32 ? this.flush() : Promise.resolve();
  }
  text = (rel: string, text: string) => this.add(rel, text);
  png = (rel: string, svg: string) => this.add(rel, loadSharp().then((sharp) => sharp(Buffer.from(svg)).png({ compressionLevel: 6 }).toBuffer()));
  jpg = (rel: string, svg: string) => this.add(rel, loadSharp().then((sharp) => sharp(Buffer.from(svg)).flatten().jpeg({ quality: 90 }).toBuffer()));
  async flush(): Promise<void> {
    const all = this.pending;
    this.pending = [];
    await Promise.all(all);
  }
}

/** The random stream of one item or example: (level, index, example?) of a task. */
type Streams = (level: number, i: number, example: boolean) => Rng;

interface Entry {
  level: number;
  i: number;
  example: boolean;
  /** The level's folder: `<task>/maps/<prefix><level>` or `<task>/example/<prefix><level>`. */
  dir: string;
  r: Rng;
}

/** Every item and every in-context example of each level, with its folder and its own stream. */
function* entries(task: string, prefix: string, levels: readonly number[], o: Required<VspLayoutOptions>, rng: Streams): Generator<Entry> {
  for (const level of levels) {
    for (const [example, count] of [[false, o.items], [true, o.examples]] as const) {
      for (let i = 0; i < count; i++) yield { level, i, example, dir: `${task}/${example ? 'example' : 'maps'}/${prefix}${level}`, r: rng(level, i, example) };
    }
  }
}

/** The correct choice of a 4-way item: cycles with the index (examples shifted by one). */
const cycledChoice = (i: number, example: boolean) => (i + (example ? 1 : 0)) % 4;

function shuffle<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---- maze -------------------------------------------------------------------------------------

function randomMaze(rng: Rng, n: number, holeShare: number): MazeRows {
  const cells: string[] = Array.from({ length: n * n }, () => (rng.chance(holeShare) ? 'H' : 'F'));
  const [s, g] = shuffle(rng, [...cells.keys()]);
  cells[s] = 'S';
  cells[g] = 'G';
  return Array.from({ length: n }, (_, r) => cells.slice(r * n, r * n + n).join(''));
}

function solvableMaze(rng: Rng, n: number): { rows: MazeRows; plan: Move[] } {
  for (;;) {
    const rows = randomMaze(rng, n, 0.25);
    const plan = solveMaze(rows);
    if (plan !== null) return { rows, plan };
  }
}

async function mazeMapFiles(w: Writer, dir: string, i: number, rows: MazeRows, text = false): Promise<void> {
  await w.png(`${dir}/img/${i}.png`, mazeSvg(rows));
  await w.text(`${dir}/table/${i}.txt`, `${mazeTable(rows)}\n`);
  await w.text(`${dir}/pure_text/${i}.txt`, mazePureText(rows));
  if (text) {
    // S/F/H/G rows and the same grid in table symbols, without a final newline.
    await w.text(`${dir}/text/${i}.txt`, rows.join('\n'));
    await w.text(`${dir}/special_text/${i}.txt`, rows.map((r) => [...r].map((c) => ({ S: '@', G: '*', H: '#', F: '_' })[c]).join('')).join('\n'));
  }
}

async function writeMazeMain(w: Writer, rng: Streams, o: Required<VspLayoutOptions>, task: 'task-main' | 'task2'): Promise<void> {
  for (const { level: n, i, example, dir, r } of entries(`maze/${task}`, 'level', MAZE_LEVELS, o, rng)) {
    const { rows, plan } = solvableMaze(r, n);
    await mazeMapFiles(w, dir, i, rows);
    if (example) await w.text(`${dir}/answer/${i}.txt`, task === 'task-main' ? mazePlanAnswer(rows, plan) : mazeRelativeAnswer(rows, relativePosition(rows)));
  }
}

async function writeMazeHoles(w: Writer, rng: Streams, o: Required<VspLayoutOptions>): Promise<void> {
  for (const { level: n, i, example, dir, r } of entries('maze/task1', 'level', MAZE_LEVELS, o, rng)) {
    const want = i % 2 === 0 ? 'H' : 'F'; // Y and N alternate
    let rows: MazeRows;
    let cells: number[];
    do {
      rows = randomMaze(r, n, 0.5);
      cells = [...rows.join('')].flatMap((c, k) => (c === want ? [k] : []));
    } while (cells.length === 0);
    const k = r.pick(cells);
    const cell: [number, number] = [Math.floor(k / n) + 1, (k % n) + 1];
    await mazeMapFiles(w, dir, i, rows);
    await w.text(`${dir}/question/${i}.txt`, mazeHoleQuestion(cell));
    await w.text(`${dir}/answer/${i}.txt`, example ? mazeHoleAnswer(rows, cell) : want === 'H' ? 'Y' : 'N');
  }
}

async function writeMazeCandidates(w: Writer, rng: Streams, o: Required<VspLayoutOptions>): Promise<void> {
  let source = 0;
  for (const { level: n, i, example, dir, r } of entries('maze/task3', 'level', MAZE_LEVELS, o, rng)) {
    const rows = randomMaze(r, n, 0.25);
    const others = shuffle(r, MAZE_LEVELS.filter((m) => m !== n)).slice(0, 2);
    let twin: MazeRows;
    do twin = randomMaze(r, n, 0.25);
    while (mazeTable(twin) === mazeTable(rows));
    const choice = cycledChoice(i, example);
    const rest = shuffle(r, [twin, ...others.map((m) => randomMaze(r, m, 0.25))]);
    const cands = [...rest.slice(0, choice), rows, ...rest.slice(choice)];
    await w.png(`${dir}/img/${i}.png`, mazeSvg(rows));
    await w.text(`${dir}/question/${i}.txt`, `\n${cands.map((m, k) => `(${LETTERS[k]})\n${mazeTable(m)}\n`).join('\n')}`);
    // Four "size-id" lines naming each candidate map, then the correct index.
    await w.text(`${dir}/answer/${i}.txt`, `${cands.map((m) => `${m.length}-${source++}`).join('\n')}\n${choice}`);
    if (example) await w.text(`${dir}/analysis/${i}.txt`, mazeCandidatesAnswer(n, cands.map((m) => m.length), choice));
  }
}

async function writeMazeSequences(w: Writer, rng: Streams, o: Required<VspLayoutOptions>): Promise<void> {
  for (const { level: k, i, example, dir, r } of entries('maze/task4', 'level_step', MAZE_STEPS, o, rng)) {
    const safe = i % 2 === 0;
    let rows: MazeRows;
    let moves: Move[];
    do {
      rows = randomMaze(r, 5, 0.25);
      moves = Array.from({ length: k }, () => r.pick(MOVES));
    } while (sequenceSafe(rows, moves) !== safe);
    await mazeMapFiles(w, dir, i, rows, true);
    await w.text(`${dir}/question/${i}.txt`, moves.join(''));
    await w.text(`${dir}/answer/${i}.txt`, safe ? 'Y' : 'N');
    if (example) await w.text(`${dir}/analysis/${i}.txt`, mazeSequenceAnswer(rows, moves));
  }
}

// ---- blocks -----------------------------------------------------------------------------------

/** `n` blocks of distinct colours in random stacks (bottom to top). */
function randomStacks(rng: Rng, n: number, colours: readonly string[] = shuffle(rng, CODES).slice(0, n)): Stacks {
  const stacks: Stacks = [];
  for (const c of colours) {
    const k = rng.int(0, stacks.length);
    if (k === stacks.length) stacks.push([c]);
    else stacks[k].push(c);
  }
  return stacks;
}

/** info.txt's state: 7 "-"-joined slots of 6 characters, bottom to top, 0 for empty. */
const stateText = (s: Stacks) => Array.from({ length: 7 }, (_, k) => (s[k] ?? []).join('').padEnd(6, '0')).join('-');
const shapeText = (s: Stacks) => `${s.length}Towers/${s.map((x) => x.length).sort((a, b) => a - b).join('')}`;
const infoPlan = (plan: readonly BlockMove[]) => plan.map((m, k) => `move(${m.source.toLowerCase()},${m.target === 'table' ? 'table' : m.target.toLowerCase()},${k})`).join(' ');

/** A start and a goal whose shortest plan has exactly `moves` moves. */
function blocksProblem(rng: Rng, moves: number): { start: Stacks; goal: Stacks; plan: BlockMove[] } {
  for (;;) {
    const start = randomStacks(rng, moves >= 5 ? 5 : rng.int(3, 5));
    const goal = randomStacks(rng, 0, shuffle(rng, start.flat()));
    const plan = solveBlocks(start, goal);
    if (plan !== null && plan.length === moves) return { start, goal, plan };
  }
}

async function writeBlocksMain(w: Writer, rng: Streams, o: Required<VspLayoutOptions>): Promise<void> {
  for (const k of BLOCKS_MOVES) {
    const m = `blocks/task-main/maps/level${k}`;
    const info: string[] = [];
    for (let i = 0; i < o.items; i++) {
      const { start, goal, plan } = blocksProblem(rng(k, i, false), k);
      info.push([stateText(start), shapeText(start), stateText(goal), shapeText(goal), String(k), infoPlan(plan)].join('\t'));
      await w.jpg(`${m}/input_img/${i}.jpg`, blocksSvg(start));
      await w.jpg(`${m}/output_img/${i}.jpg`, blocksSvg(goal));
      await w.text(`${m}/input_text/${i}.txt`, `${stacksPureText(start)}\n`);
      await w.text(`${m}/output_text/${i}.txt`, `${stacksPureText(goal)}\n`);
      await w.text(`${m}/input_table/${i}.txt`, `${stacksTable(start)}\n`);
      await w.text(`${m}/output_table/${i}.txt`, `${stacksTable(goal)}\n`);
    }
    await w.text(`${m}/info.txt`, `${info.join('\n')}\n`);
    const e = `blocks/task-main/example/level${k}`;
    for (let i = 0; i < o.examples; i++) {
      const { start, goal, plan } = blocksProblem(rng(k, i, true), k);
      await w.jpg(`${e}/begin/${i}.jpg`, blocksSvg(start));
      await w.jpg(`${e}/end/${i}.jpg`, blocksSvg(goal));
      await w.text(`${e}/sol_${i}.txt`, formatPlan(plan));
      await w.text(`${e}/question${i}.txt`, blocksPlanQuestion(start, goal));
    }
  }
}

/** Blocks T2: a pair whose relation is `choice` (0 higher in one stack, 1 lower, 2 different stacks, 3 one absent). */
function relationPair(rng: Rng, stacks: Stacks, choice: number): [string, string] | null {
  const present = stacks.flat();
  if (choice === 3) {
    const absent = rng.pick(CODES.filter((c) => !present.includes(c)));
    return rng.chance(0.5) ? [rng.pick(present), absent] : [absent, rng.pick(present)];
  }
  const pairs = present.flatMap((a) => present.filter((b) => b !== a).map((b) => [a, b] as [string, string]));
  const fit = pairs.filter(([a, b]) => blocksRelation(stacks, a, b) === choice);
  return fit.length === 0 ? null : rng.pick(fit);
}

/** Blocks T4: `k` moves, all possible in turn, or with the first impossible one at a random step. */
function moveSequence(rng: Rng, start: Stacks, k: number, valid: boolean): BlockMove[] {
  for (;;) {
    const bad = valid ? -1 : rng.int(0, k - 1);
    let cur = start;
    const seq: BlockMove[] = [];
    for (let j = 0; j < k; j++) {
      const tops = cur.map((s) => s[s.length - 1]);
      if (j === bad) {
        seq.push({ source: rng.pick(CODES), target: rng.chance(0.3) ? 'table' : rng.pick(CODES) });
        continue;
      }
      const legal = tops.flatMap((source) =>
        ['table', ...tops].filter((target) => target !== source && !(target === 'table' && cur.find((s) => s[s.length - 1] === source)!.length === 1)).map((target) => ({ source, target })),
      );
      const m = rng.pick(legal);
      seq.push(m);
      if (j < bad || valid) cur = runMoves(cur, [m], 'fail').stacks;
    }
    const failedAt = runMoves(start, seq, 'fail').failedAt;
    if (valid ? failedAt === undefined : failedAt === bad) return seq;
  }
}

async function writeBlocksSub(w: Writer, rng: Streams, o: Required<VspLayoutOptions>, task: 1 | 2 | 3 | 4): Promise<void> {
  const annotations = new Map<string, string[]>();
  for (const { level, i, example, dir, r } of entries(`blocks/task${task}`, 'level', task === 4 ? BLOCKS_MOVES : BLOCKS_COUNTS, o, rng)) {
    // T1 and T2 maps' text forms have no extension (as in the published copy); the others have .txt.
    const rep = (kind: string) => `${dir}/${kind}/${i}${example || task === 4 ? '.txt' : ''}`;
    const annotation = annotations.get(dir) ?? [];
    if (!example) annotations.set(dir, annotation);
    let stacks = randomStacks(r, task === 4 ? r.int(3, 5) : level);
    let question: string;
    let answer: string;
    if (task === 1) {
      const s = r.int(1, stacks.length);
      const l = r.int(1, stacks[s - 1].length);
      question = blocksColourQuestion(s, l);
      annotation.push(COLOURS[stacks[s - 1][l - 1]]);
      answer = blocksColourAnswer(stacks, s, l);
    } else if (task === 2) {
      const choice = cycledChoice(i, example);
      let pair = relationPair(r, stacks, choice);
      while (pair === null) pair = relationPair(r, (stacks = randomStacks(r, level)), choice);
      question = blocksRelationQuestion(pair[0], pair[1]);
      annotation.push(String(choice));
      answer = blocksRelationAnswer(stacks, choice);
    } else if (task === 3) {
      const choice = cycledChoice(i, example);
      const seen = new Set([stacksKey(stacks)]);
      const rest: Stacks[] = [];
      while (rest.length < 3) {
        const d = randomStacks(r, r.int(3, 5));
        if (seen.has(stacksKey(d))) continue;
        rest.push(d);
        seen.add(stacksKey(d));
      }
      const cands = [...rest.slice(0, choice), stacks, ...rest.slice(choice)];
      question = cands.map((c, k) => `(${LETTERS[k]})\n${stacksPureText(c)}\n`).join('\n');
      annotation.push(String(choice));
      answer = blocksCandidatesAnswer(stacks, choice);
    } else {
      const valid = i % 2 === 0;
      const seq = moveSequence(r, stacks, level, valid);
      question = formatPlan(seq);
      if (valid) annotation.push(String(i));
      answer = blocksSequenceAnswer(stacks, seq, runMoves(stacks, seq, 'fail').failedAt);
    }
    await w.jpg(`${dir}/image_input/${i}.jpg`, blocksSvg(stacks));
    await w.text(`${dir}/text_input/${i}.txt`, `${question}\n`);
    if (task !== 3) await w.text(rep('pure_text_rep_input'), `${stacksPureText(stacks)}\n`);
    // The published blocks T4 examples have no table form; the sample keeps that gap.
    if (task !== 3 && !(task === 4 && example)) await w.text(rep('table_rep_input'), `${stacksTable(stacks)}\n`);
    if (example) await w.text(`${dir}/answer/${i}.txt`, answer);
  }
  for (const [dir, lines] of annotations) await w.text(`${dir}/annotation.txt`, lines.map((l) => `${l}\n`).join(''));
}

// ---- collision and street map -------------------------------------------------------------------

const CAR_SPEEDS = ['1.0', '2.0', '3.0'];
const PERSON_SPEEDS = ['0.25', '0.5', '1.0'];

async function writeCollision(w: Writer, rng: Streams, o: Required<VspLayoutOptions>): Promise<void> {
  const m = 'collision/task-main/maps/level-default';
  const cols: Record<string, string[]> = { 'car-dir': [], 'person-dir': [], 'car-speed': [], 'person-speed': [], 'car-answer': [], 'person-answer': [] };
  for (let i = 0; i < o.items; i++) {
    const r = rng(0, i, false);
    const goal: [number, number] = [r.int(0, 5), r.int(0, 5)];
    const carCols = [0, 1, 2, 3, 4, 5].filter((c) => Math.abs(c - goal[1]) >= 1 && Math.abs(c - goal[1]) <= 4);
    const personRows = [0, 1, 2, 3, 4, 5].filter((x) => Math.abs(x - goal[0]) >= 1 && Math.abs(x - goal[0]) <= 4);
    const car: [number, number] = [goal[0], r.pick(carCols)];
    const person: [number, number] = [r.pick(personRows), goal[1]];
    const [cs, ps] = [r.pick(CAR_SPEEDS), r.pick(PERSON_SPEEDS)];
    cols['car-dir'].push(car[1] < goal[1] ? 'right' : 'left');
    cols['person-dir'].push(person[0] < goal[0] ? 'down' : 'up');
    cols['car-speed'].push(cs);
    cols['person-speed'].push(ps);
    cols['car-answer'].push(String(Math.abs(car[1] - goal[1]) / Number(cs)));
    cols['person-answer'].push(String(Math.abs(person[0] - goal[0]) / Number(ps)));
    await w.png(`${m}/${i}.png`, collisionSvg(car, person, goal));
  }
  for (const [f, lines] of Object.entries(cols)) await w.text(`${m}/${f}.txt`, `${lines.join('\n')}\n`);
  await w.png('collision/task-main/prompt-visual-images/icon.png', collisionLegendSvg());
  // The worked map of the template: the car 2 squares left of the goal, the person 1 square below.
  await w.png('collision/task-main/prompt-visual-images/example.png', collisionSvg([2, 1], [3, 3], [2, 3]));
}

async function writeStreets(w: Writer, rng: Streams, o: Required<VspLayoutOptions>): Promise<void> {
  const items = [];
  for (let i = 0; i < o.items; i++) {
    const r = rng(1, i, false);
    const [a, b] = shuffle(r, [...Array(36).keys()]);
    const start: [number, number] = [Math.floor(a / 6), a % 6];
    const goal: [number, number] = [Math.floor(b / 6), b % 6];
    // Named as in the published copy: map M of [1, 4, 5, 6, 9] by twenties.
    const image = `google_map/task-main/maps/level1/test${[1, 4, 5, 6, 9][Math.floor(i / 20) % 5]}-${i % 20}.png`;
    await w.png(image, streetSvg(6, start, goal));
    items.push({ id: i, image, net_north: start[0] - goal[0], net_east: goal[1] - start[1] });
  }
  await w.text('derived/google_map_answers.json', `${JSON.stringify({ note: 'made by gsr dataset synth vsp-layout (src/benchmarks/vsp/layout.ts)', items }, null, 1)}\n`);
  // The worked map of the template: the start one crossing north and one east of the goal.
  await w.png('google_map/task-main/prompt-visual-images/example.png', streetSvg(4, [1, 2], [2, 1]));
}

async function isEmptyOrAbsent(dir: string): Promise<boolean> {
  try {
    // The command's own output lock (src/util/lock.ts: `.gsr.lock` and its notes) does not count.
    return (await readdir(dir)).every((name) => name.startsWith('.gsr.lock'));
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Writes the sample into `out`, which must be absent or empty. Returns the number of files written. */
export async function writeVspLayout(out: string, raw: VspLayoutOptions = {}): Promise<{ files: number }> {
  const parsed = VspLayoutSchema.safeParse(raw);
  if (!parsed.success) throw new GsrError(`VSP layout settings: ${parsed.error.issues[0].path.join('.') || '(settings)'}: ${parsed.error.issues[0].message}`);
  const o = parsed.data;
  if (!(await isEmptyOrAbsent(out))) throw new GsrError(`${out} is not empty (the VSP layout is written into a new folder)`);
  const w = new Writer(out);
  // Each task, level, item and example draws from its own stream, so one part never shifts another.
  const streams = (task: number) => (level: number, i: number, example: boolean) => new Rng(o.seed, task, level, i, example ? 1 : 0);
  for (const [k, t] of (['task-main', 'task1', 'task2', 'task3', 'task4'] as const).entries()) {
    await w.text(`maze/${t}/prompt-text/prompt-text.txt`, TEMPLATES[`maze/${t}`]);
    await w.png(`maze/${t}/prompt-visual-images/system-figure-1.png`, mazeLegendSvg());
    await w.png(`maze/${t}/prompt-visual-images/system-figure-2.png`, mazeSvg(MAZE_FIGURE_MAP));
    if (t === 'task-main' || t === 'task2') await writeMazeMain(w, streams(k), o, t);
    else if (t === 'task1') await writeMazeHoles(w, streams(k), o);
    else if (t === 'task3') await writeMazeCandidates(w, streams(k), o);
    else await writeMazeSequences(w, streams(k), o);
  }
  for (const [k, t] of (['task-main', 'task1', 'task2', 'task3', 'task4'] as const).entries()) {
    await w.text(`blocks/${t}/prompt-text/prompt-text.txt`, TEMPLATES[`blocks/${t}`]);
    await w.jpg(`blocks/${t}/prompt-visual-images/example0.jpg`, blocksSvg(BLOCKS_FIGURE_STACKS));
    if (t === 'task-main') await writeBlocksMain(w, streams(5), o);
    else await writeBlocksSub(w, streams(5 + k), o, k as 1 | 2 | 3 | 4);
  }
  await w.text('collision/task-main/prompt-text/prompt-text.txt', TEMPLATES['collision/task-main']);
  await writeCollision(w, streams(10), o);
  await w.text('google_map/task-main/prompt-text/prompt-text.txt', TEMPLATES['google_map/task-main']);
  await writeStreets(w, streams(11), o);
  await w.flush();
  return { files: w.files };
}

/** An example part with its image path moved under `prefix`. */
const moved = (prefix: string) => (p: ExamplePart): ExamplePart => (p.type === 'image' ? { type: 'image', image: `${prefix}/${p.image}` } : p);

/**
 * The VSP plug-in's generator (`benchmark: { name: vsp, generate: {...} }` in a pipeline): writes the
 * sample under OUT/layout and imports it. Items carry no `root` and their paths start with
 * `layout/`, so they resolve against the item set's folder wherever it is moved.
 */
export async function generateVsp(raw: Record<string, unknown>, onProgress?: (done: number, total: number) => void): Promise<ItemSet<VspItem>> {
  const { out, ...settings } = raw as { out: string } & Record<string, unknown>;
  const layout = join(out, 'layout');
  await rm(layout, { recursive: true, force: true }); // an interrupted earlier run's files
  await writeVspLayout(layout, settings);
  const { items, context } = await importVsp(layout, onProgress);
  const m = moved('layout');
  const tasks: VspContext['tasks'] = {};
  for (const [name, t] of Object.entries(context.tasks)) {
    tasks[name] = {
      ...t,
      visuals: Object.fromEntries(Object.entries(t.visuals).map(([k, v]) => [k, `layout/${v}`])),
      examples: Object.fromEntries(Object.entries(t.examples).map(([lv, exs]) => [lv, exs.map((e) => ({ ...e, image: e.image.map(m), pure_text: e.pure_text?.map(m), table: e.table?.map(m) }))])),
    };
  }
  return {
    items: items.map(({ root: _root, ...it }) => ({ ...it, images: it.images.map((p) => `layout/${p}`) }) as VspItem),
    context: { benchmark: 'vsp', root: 'layout', tasks },
  };
}
