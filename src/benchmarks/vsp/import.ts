/**
 * `gsr dataset import vsp`: reads a VSP copy (the repository's VSP-main/ layout, see docs/vsp.md)
 * into items and their shared context. All or nothing: any missing or malformed file is a GsrError
 * naming it, and nothing is returned.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { confinedRealPathSync, readConfined } from '../../util/confined.js';
import { GsrError, errorMessage } from '../../util/errors.js';
import { parseInfoPlan, parseNumberedPlan, parseState, stacksPureText, stacksTable, colourCode, type Stacks } from './blocks.js';
import { candidates, parseStacksText, spellMoves } from './parse.js';
import type { VspContext, VspExample, VspItem, VspTask, VspTaskContext, ExamplePart } from './item.js';
import { checkMaze, mazePureText, mazeTable, parseMazeTable, parseMoves, relativePosition, sequenceSafe, type MazeRows } from './maze.js';

/** The worked 4x4 map of the maze prompts' second figure (player 1,1; goal 4,4; holes 1,2 and 4,1). */
export const MAZE_FIGURE_MAP: MazeRows = ['SHFF', 'FFFF', 'FFFF', 'HFFG'];
/** The blocks prompts' example photo: purple, blue, and orange under red. */
export const BLOCKS_FIGURE_STACKS: Stacks = [['P'], ['B'], ['O', 'R']];

/** Reads the copy's files; each must resolve inside the root (src/util/confined.ts), links included. */
class Reader {
  constructor(readonly root: string) {}
  async text(rel: string): Promise<string> {
    try {
      return (await readConfined(join(this.root, rel), this.root)).toString('utf8');
    } catch (err) {
      if (err instanceof GsrError) throw err;
      throw new GsrError(`cannot read ${join(this.root, rel)}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
    }
  }
  /** A file that the data names with or without ".txt" (blocks rep files have no extension). */
  async textAny(relNoExt: string): Promise<string> {
    if (existsSync(join(this.root, relNoExt))) return this.text(relNoExt);
    return this.text(`${relNoExt}.txt`);
  }
  async lines(rel: string): Promise<string[]> {
    return (await this.text(rel)).split('\n').map((l) => l.trim()).filter((l) => l !== '');
  }
  need(rel: string): string {
    if (!existsSync(join(this.root, rel))) throw new GsrError(`missing file ${join(this.root, rel)}`);
    confinedRealPathSync(join(this.root, rel), this.root);
    return rel;
  }
  async list(rel: string): Promise<string[]> {
    try {
      return (await readdir(confinedRealPathSync(join(this.root, rel), this.root))).sort();
    } catch (err) {
      if (err instanceof GsrError) throw err;
      throw new GsrError(`cannot list ${join(this.root, rel)}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
    }
  }
  /** Item numbers of the files `N.ext` in a folder, sorted numerically. */
  async ids(rel: string, ext: string): Promise<number[]> {
    const re = new RegExp(`^(\\d+)\\.${ext}$`);
    const ids = (await this.list(rel)).map((f) => re.exec(f)).filter((m) => m !== null).map((m) => Number(m![1])).sort((a, b) => a - b);
    if (ids.length === 0) throw new GsrError(`no ${ext} files in ${join(this.root, rel)}`);
    return ids;
  }
  /** Level folders `prefix<label>` under a folder, sorted numerically. */
  async levels(rel: string, prefix: string): Promise<string[]> {
    const labels = (await this.list(rel)).filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length))).map((f) => f.slice(prefix.length));
    if (labels.length === 0) throw new GsrError(`no ${prefix}N folders in ${join(this.root, rel)}`);
    return labels.sort((a, b) => Number(a) - Number(b));
  }
}

const txt = (text: string): ExamplePart => ({ type: 'text', text });
const img = (image: string): ExamplePart => ({ type: 'image', image });

async function taskBase(r: Reader, dir: string, visuals: Record<string, string>): Promise<Omit<VspTaskContext, 'examples'>> {
  const template = await r.text(`${dir}/prompt-text/prompt-text.txt`);
  const v: Record<string, string> = {};
  for (const [k, file] of Object.entries(visuals)) v[k] = r.need(`${dir}/prompt-visual-images/${file}`);
  return { template, visuals: v };
}

function item(task: VspTask, level: string, index: number, root: string, rest: Omit<VspItem, 'id' | 'benchmark' | 'task' | 'level' | 'index' | 'root'>): VspItem {
  return { id: `${task}/${level}/${index}`, benchmark: 'vsp', task, level, index, root, ...rest };
}

const MAZE_VISUAL_TEXTS = {
  pure_text: { 'IMAGE-2': `Example Input: ${mazePureText(MAZE_FIGURE_MAP)}` },
  table: { 'IMAGE-2': `Example Input: ${mazeTable(MAZE_FIGURE_MAP)}` },
};

/** Maze tasks 1, 2, 4 and main share most of the layout. */
async function importMaze(r: Reader, task: VspTask, out: VspItem[]): Promise<VspTaskContext> {
  const dir = { 'maze-main': 'maze/task-main', 'maze-t1': 'maze/task1', 'maze-t2': 'maze/task2', 'maze-t3': 'maze/task3', 'maze-t4': 'maze/task4' }[task as string]!;
  const prefix = task === 'maze-t4' ? 'level_step' : 'level';
  const base = await taskBase(r, dir, { 'IMAGE-1': 'system-figure-1.png', 'IMAGE-2': 'system-figure-2.png' });
  const examples: Record<string, VspExample[]> = {};
  for (const label of await r.levels(`${dir}/maps`, prefix)) {
    const level = task === 'maze-t4' ? `step${label}` : label;
    const m = `${dir}/maps/${prefix}${label}`;
    for (const i of await r.ids(`${m}/img`, 'png')) {
      const image = r.need(`${m}/img/${i}.png`);
      if (task === 'maze-t3') {
        const question = await r.text(`${m}/question/${i}.txt`);
        const answer = await r.lines(`${m}/answer/${i}.txt`);
        const choice = Number(answer[4]);
        if (answer.length !== 5 || !Number.isInteger(choice) || choice < 0 || choice > 3) throw new GsrError(`${join(r.root, m, 'answer', `${i}.txt`)}: expected four source lines and the correct index 0-3`);
        const maze = parseMazeTable(candidates(question, join(r.root, m, 'question', `${i}.txt`))[choice], join(r.root, m, 'question', `${i}.txt`));
        out.push(item(task, level, i, r.root, { images: [image], question, maze, truth: { choice } }));
        continue;
      }
      const tablePath = `${m}/table/${i}.txt`;
      const table = await r.text(tablePath);
      const maze = parseMazeTable(table, join(r.root, tablePath));
      const pure = await r.text(`${m}/pure_text/${i}.txt`);
      if (pure.trim() !== mazePureText(maze)) throw new GsrError(`${join(r.root, m, 'pure_text', `${i}.txt`)}: disagrees with ${join(r.root, tablePath)}`);
      const common = { images: [image], pure_text: [pure], table: [table], maze };
      if (task === 'maze-main' || task === 'maze-t2') {
        out.push(item(task, level, i, r.root, { ...common, truth: task === 'maze-t2' ? { words: relativePosition(maze) } : {} }));
      } else if (task === 'maze-t1') {
        const where = join(r.root, m, 'question', `${i}.txt`);
        const question = await r.text(`${m}/question/${i}.txt`);
        const q = /row (\d+), column (\d+)/.exec(question);
        const yn = (await r.text(`${m}/answer/${i}.txt`)).trim();
        if (!q) throw new GsrError(`${where}: no "row r, column c" in the question`);
        if (yn !== 'Y' && yn !== 'N') throw new GsrError(`${join(r.root, m, 'answer', `${i}.txt`)}: expected Y or N, found "${yn}"`);
        out.push(item(task, level, i, r.root, { ...common, question, truth: { yn, cell: [Number(q[1]), Number(q[2])] } }));
      } else {
        const moves = (await r.text(`${m}/question/${i}.txt`)).trim();
        const yn = (await r.text(`${m}/answer/${i}.txt`)).trim();
        if (yn !== 'Y' && yn !== 'N') throw new GsrError(`${join(r.root, m, 'answer', `${i}.txt`)}: expected Y or N, found "${yn}"`);
        parseMoves(moves, join(r.root, m, 'question', `${i}.txt`));
        out.push(item(task, level, i, r.root, { ...common, question: moves, truth: { yn, moves } }));
      }
    }
    examples[level] = await mazeExamples(r, task, `${dir}/example/${prefix}${label}`);
  }
  return { ...base, visual_texts: task === 'maze-t3' ? undefined : MAZE_VISUAL_TEXTS, examples };
}

async function mazeExamples(r: Reader, task: VspTask, e: string): Promise<VspExample[]> {
  const out: VspExample[] = [];
  for (const i of await r.ids(`${e}/img`, 'png')) {
    const image = img(r.need(`${e}/img/${i}.png`));
    const withText = async (body: (input: ExamplePart) => ExamplePart[]): Promise<VspExample> => ({
      id: i,
      image: body(image),
      pure_text: task === 'maze-t3' ? undefined : body(txt(await r.text(`${e}/pure_text/${i}.txt`))),
      table: task === 'maze-t3' ? undefined : body(txt(await r.text(`${e}/table/${i}.txt`))),
    });
    if (task === 'maze-main' || task === 'maze-t2') {
      const answer = await r.text(`${e}/answer/${i}.txt`);
      out.push(await withText((input) => [input, txt(`${answer}\n`)]));
    } else if (task === 'maze-t1') {
      const question = await r.text(`${e}/question/${i}.txt`);
      const answer = await r.text(`${e}/answer/${i}.txt`);
      out.push(await withText((input) => [input, txt(`${question}\n${answer}\n`)]));
    } else if (task === 'maze-t3') {
      const question = await r.text(`${e}/question/${i}.txt`);
      const analysis = await r.text(`${e}/analysis/${i}.txt`);
      out.push(await withText((input) => [input, txt(`${question}\n${analysis}\n`)]));
    } else {
      const moves = (await r.text(`${e}/question/${i}.txt`)).trim();
      const analysis = await r.text(`${e}/analysis/${i}.txt`);
      out.push(await withText((input) => [input, txt(`\nThe action sequence is:\n${spellMoves(moves)}\n${analysis}\n`)]));
    }
  }
  return out;
}

const BLOCKS_VISUAL_TEXTS = {
  pure_text: { 'IMAGE-1': stacksPureText(BLOCKS_FIGURE_STACKS) },
  table: { 'IMAGE-1': stacksTable(BLOCKS_FIGURE_STACKS) },
};

async function importBlocksMain(r: Reader, out: VspItem[]): Promise<VspTaskContext> {
  const dir = 'blocks/task-main';
  const base = await taskBase(r, dir, { 'IMAGE-1': 'example0.jpg' });
  const examples: Record<string, VspExample[]> = {};
  for (const level of await r.levels(`${dir}/maps`, 'level')) {
    const m = `${dir}/maps/level${level}`;
    const info = await r.lines(`${m}/info.txt`);
    const where = join(r.root, m, 'info.txt');
    for (const i of await r.ids(`${m}/input_img`, 'jpg')) {
      const line = info[i];
      if (line === undefined) throw new GsrError(`${where}: no line for item ${i}`);
      const f = line.split('\t');
      if (f.length < 6) throw new GsrError(`${where}:${i + 1}: expected start, shape, goal, shape, length and plans`);
      const stacks = parseState(f[0], `${where}:${i + 1}`);
      const goal = parseState(f[2], `${where}:${i + 1}`);
      const optimal = Number(f[4]);
      if (!Number.isInteger(optimal)) throw new GsrError(`${where}:${i + 1}: optimal length "${f[4]}" is not an integer`);
      const plans = f.slice(5).map((p) => parseInfoPlan(p, `${where}:${i + 1}`));
      const texts = await Promise.all(['input_text', 'output_text', 'input_table', 'output_table'].map((d) => r.text(`${m}/${d}/${i}.txt`)));
      out.push(item('blocks-main', level, i, r.root, {
        images: [r.need(`${m}/input_img/${i}.jpg`), r.need(`${m}/output_img/${i}.jpg`)],
        pure_text: texts.slice(0, 2), table: texts.slice(2), stacks, goal, truth: { optimal, plans },
      }));
    }
    const e = `${dir}/example/level${level}`;
    examples[level] = await Promise.all((await r.ids(`${e}/begin`, 'jpg')).map(async (i): Promise<VspExample> => {
      const sol = await r.text(`${e}/sol_${i}.txt`);
      const question = await r.text(`${e}/question${i}.txt`);
      return {
        id: i,
        image: [txt('Please generate the moving plan. The beginning state is:\n'), img(r.need(`${e}/begin/${i}.jpg`)), txt('\nThe end state is:\n'), img(r.need(`${e}/end/${i}.jpg`)), txt(`\n<Output>\n${sol}\n`)],
        pure_text: [txt(`${question}\n<Output>\n${sol}\n`)],
      };
    }));
  }
  return { ...base, visual_texts: BLOCKS_VISUAL_TEXTS, examples };
}

async function importBlocksSub(r: Reader, task: VspTask, out: VspItem[]): Promise<VspTaskContext> {
  const dir = { 'blocks-t1': 'blocks/task1', 'blocks-t2': 'blocks/task2', 'blocks-t3': 'blocks/task3', 'blocks-t4': 'blocks/task4' }[task as string]!;
  const base = await taskBase(r, dir, { 'IMAGE-1': 'example0.jpg' });
  const examples: Record<string, VspExample[]> = {};
  for (const level of await r.levels(`${dir}/maps`, 'level')) {
    const m = `${dir}/maps/level${level}`;
    const annotation = await r.lines(`${m}/annotation.txt`);
    const annWhere = join(r.root, m, 'annotation.txt');
    const validIds = task === 'blocks-t4' ? new Set(annotation.map(Number)) : undefined;
    for (const i of await r.ids(`${m}/image_input`, 'jpg')) {
      const image = r.need(`${m}/image_input/${i}.jpg`);
      const qWhere = join(r.root, m, 'text_input', `${i}.txt`);
      const question = await r.text(`${m}/text_input/${i}.txt`);
      if (task === 'blocks-t3') {
        const choice = Number(annotation[i]);
        if (!(choice >= 0 && choice <= 3)) throw new GsrError(`${annWhere}:${i + 1}: expected 0-3, found "${annotation[i]}"`);
        const stacks = parseStacksText(candidates(question, qWhere)[choice], qWhere);
        out.push(item(task, level, i, r.root, { images: [image], question, stacks, truth: { choice } }));
        continue;
      }
      const pure = await r.textAny(`${m}/pure_text_rep_input/${i}`);
      const table = await r.textAny(`${m}/table_rep_input/${i}`);
      const stacks = parseStacksText(pure, join(r.root, m, 'pure_text_rep_input', String(i)));
      const common = { images: [image], pure_text: [pure], table: [table], question, stacks };
      if (task === 'blocks-t1') {
        const q = /stack (\d+), level (\d+)/.exec(question);
        if (!q) throw new GsrError(`${qWhere}: no "stack s, level l" in the question`);
        const colour = annotation[i];
        if (colour === undefined || colourCode(colour) === undefined) throw new GsrError(`${annWhere}:${i + 1}: expected a colour name, found "${colour}"`);
        out.push(item(task, level, i, r.root, { ...common, truth: { colour, at: [Number(q[1]), Number(q[2])] } }));
      } else if (task === 'blocks-t2') {
        const q = /between?e?n the (\w+) block and the (\w+) block/.exec(question);
        const a = q && colourCode(q[1]);
        const b = q && colourCode(q[2]);
        if (!a || !b) throw new GsrError(`${qWhere}: no "the X block and the Y block" in the question`);
        const choice = Number(annotation[i]);
        if (!(choice >= 0 && choice <= 3)) throw new GsrError(`${annWhere}:${i + 1}: expected 0-3, found "${annotation[i]}"`);
        out.push(item(task, level, i, r.root, { ...common, truth: { choice, pair: [a, b] } }));
      } else {
        const sequence = parseNumberedPlan(question, qWhere);
        out.push(item(task, level, i, r.root, { ...common, truth: { sequence, valid: validIds!.has(i) } }));
      }
    }
    examples[level] = await blocksExamples(r, task, `${dir}/example/level${level}`);
  }
  return { ...base, visual_texts: task === 'blocks-t3' ? undefined : BLOCKS_VISUAL_TEXTS, examples };
}

async function blocksExamples(r: Reader, task: VspTask, e: string): Promise<VspExample[]> {
  return Promise.all((await r.ids(`${e}/image_input`, 'jpg')).map(async (i): Promise<VspExample> => {
    const question = await r.text(`${e}/text_input/${i}.txt`);
    const answer = await r.text(`${e}/answer/${i}.txt`);
    const body = task === 'blocks-t4' ? `\nThe action sequence is:\n${question}\n${answer}\n` : `${question}\n${answer}\n`;
    const image = [img(r.need(`${e}/image_input/${i}.jpg`)), txt(body)];
    if (task === 'blocks-t3') return { id: i, image };
    const pure = await r.textAny(`${e}/pure_text_rep_input/${i}`);
    const ex: VspExample = { id: i, image, pure_text: [txt(pure), txt(body)] };
    if (existsSync(join(r.root, e, 'table_rep_input'))) ex.table = [txt(await r.textAny(`${e}/table_rep_input/${i}`)), txt(body)];
    return ex;
  }));
}

async function importCollision(r: Reader, out: VspItem[]): Promise<VspTaskContext> {
  const dir = 'collision/task-main';
  const base = await taskBase(r, dir, { 'IMAGE-1': 'icon.png', 'IMAGE-2': 'example.png' });
  const m = `${dir}/maps/level-default`;
  const cols = Object.fromEntries(await Promise.all(['car-dir', 'person-dir', 'car-speed', 'person-speed', 'car-answer', 'person-answer'].map(async (f) => [f, await r.lines(`${m}/${f}.txt`)] as const)));
  for (const i of await r.ids(m, 'png')) {
    const v = (f: string) => {
      const s = cols[f][i];
      if (s === undefined) throw new GsrError(`${join(r.root, m, `${f}.txt`)}: no line for item ${i}`);
      return s;
    };
    const num = (f: string) => {
      const x = Number(v(f));
      if (!Number.isFinite(x)) throw new GsrError(`${join(r.root, m, `${f}.txt`)}:${i + 1}: not a number: "${v(f)}"`);
      return x;
    };
    const question = `The car is moving ${v('car-dir')} with speed ${v('car-speed')}, and the person is moving ${v('person-dir')} with speed ${v('person-speed')}.`;
    out.push(item('collision', 'default', i, r.root, { images: [r.need(`${m}/${i}.png`)], question, truth: { car: num('car-answer'), person: num('person-answer') } }));
  }
  return { ...base, examples: {} };
}

async function importGoogleMap(r: Reader, out: VspItem[]): Promise<VspTaskContext> {
  const dir = 'google_map/task-main';
  const base = await taskBase(r, dir, { 'IMAGE-1': 'example.png' });
  const file = 'derived/google_map_answers.json';
  let parsed: { items?: Array<{ id: number; image: string; net_north: number; net_east: number }> };
  try {
    parsed = JSON.parse(await r.text(file));
  } catch (err) {
    throw err instanceof GsrError ? err : new GsrError(`${join(r.root, file)}: malformed JSON`);
  }
  if (!Array.isArray(parsed.items)) throw new GsrError(`${join(r.root, file)}: no "items" list`);
  for (const a of parsed.items) {
    if (!Number.isInteger(a.id) || !Number.isInteger(a.net_north) || !Number.isInteger(a.net_east) || typeof a.image !== 'string') throw new GsrError(`${join(r.root, file)}: malformed entry ${JSON.stringify(a).slice(0, 80)}`);
    out.push(item('google-map', '1', a.id, r.root, { images: [r.need(a.image)], truth: { north: a.net_north, east: a.net_east } }));
  }
  return { ...base, examples: {} };
}

/** Reads every task of a VSP copy. */
export async function importVsp(rootArg: string, onProgress?: (done: number, total: number) => void): Promise<{ items: VspItem[]; context: VspContext }> {
  const root = resolve(rootArg);
  if (!existsSync(root)) throw new GsrError(`VSP root ${root} does not exist`);
  const r = new Reader(root);
  const items: VspItem[] = [];
  const tasks: Record<string, VspTaskContext> = {};
  const steps: Array<[VspTask, () => Promise<VspTaskContext>]> = [
    ...(['maze-main', 'maze-t1', 'maze-t2', 'maze-t3', 'maze-t4'] as const).map((t) => [t, () => importMaze(r, t, items)] as [VspTask, () => Promise<VspTaskContext>]),
    ['blocks-main', () => importBlocksMain(r, items)],
    ...(['blocks-t1', 'blocks-t2', 'blocks-t3', 'blocks-t4'] as const).map((t) => [t, () => importBlocksSub(r, t, items)] as [VspTask, () => Promise<VspTaskContext>]),
    ['collision', () => importCollision(r, items)],
    ['google-map', () => importGoogleMap(r, items)],
  ];
  for (const [k, [task, run]] of steps.entries()) {
    tasks[task] = await run();
    onProgress?.(k + 1, steps.length);
  }
  for (const it of items) if (it.maze) checkMaze(it.maze, it.id);
  for (const it of items) if (it.task === 'maze-t4' && (it.truth.yn === 'Y') !== sequenceSafe(it.maze!, parseMoves(it.truth.moves!, it.id))) throw new GsrError(`${it.id}: the answer file disagrees with the map (moves ${it.truth.moves})`);
  return { items, context: { benchmark: 'vsp', root, tasks } };
}
