/**
 * The texts of the generated VSP-layout sample (layout.ts): prompt templates, questions and worked
 * answers, in this project's own words. They keep what the importer, the prompt builder and the
 * judge rely on (docs/vsp.md): the placeholders in each task's order, a final "Now ..." or "Please ..."
 * line before the test input, and the answer markers the scorers look for ("Action plan:",
 * "<Output>", "<Answer>", "Car:", "North:"). The published benchmark's wording is its own and is not
 * reproduced here.
 */
import { COLOURS, colourName, formatPlan, stacksPureText, type BlockMove, type Stacks } from './blocks.js';
import { MOVE_NAMES, findCell, holes, step, type MazeRows, type Move } from './maze.js';

const MAZE_INTRO = `You are shown a square grid map. One square holds the player, one holds the goal, and every other square is either safe ground or a hole. Rows are counted from the top and columns from the left, both starting at 1.
The map symbols, from left to right, are: the player, a hole, safe ground and the goal.

<IMAGE-1>

Moves: L goes one square left, R right, U up and D down. A move off the edge leaves the player where it is. Stepping into a hole loses; reaching the goal wins.
A worked 4x4 map follows.

<IMAGE-2>

In the worked map the player is at row 1, column 1 and the goal at row 4, column 4; the holes are at row 1, column 2 and row 4, column 1. From the start, D is safe, R falls into a hole, and U or L leave the player in place.
`;

const BLOCKS_INTRO = `You are shown coloured blocks in stacks on a table. A stack is read from the bottom up; stacks are counted from the left, levels from the table up, both starting at 1. The colours are ${Object.values(COLOURS).join(', ')}.
For instance, this picture shows three stacks: a purple block, a blue block, and an orange block with a red block on top.

<IMAGE-1>
`;

/** prompt-text/prompt-text.txt of each task folder. */
export const TEMPLATES: Record<string, string> = {
  'maze/task-main': `${MAZE_INTRO}
Find a sequence of moves that brings the player to the goal without entering a hole, as short as you can. Think it through square by square, then end with the line "Action plan: <PLAN>", where <PLAN> is the moves separated by commas (for example "Action plan: D,R,R"). Write nothing after that line.

Please plan the moves for the following map:

<TEST-IMAGE>
`,
  'maze/task1': `${MAZE_INTRO}
Answer a question about one square of a map. End with "<Output> Yes" or "<Output> No".

Now look at the following map and answer the question:

<TEST-IMAGE>

<QUESTION>
`,
  'maze/task2': `${MAZE_INTRO}
Say where the player is relative to the goal: above or below it (by row), and left or right of it (by column). Leave out a direction when the two share that row or column. End with "<Output> " followed by the words separated by commas, for example "<Output> Below,Right".

Now tell where the player is relative to the goal on the following map:

<TEST-IMAGE>
`,
  'maze/task3': `${MAZE_INTRO}
Maps can also be written as tables: "@" is the player, "*" the goal, "#" a hole and "_" safe ground. Pick the one table of four that describes the map in the picture, and end with "<Answer> " and its letter.

Now choose the table for the following map:

<TEST-IMAGE>

The candidate tables:

<CANDIDATES>
`,
  'maze/task4': `${MAZE_INTRO}
Decide whether a given sequence of moves is safe: it is safe when no move enters a hole. Reaching the goal does not end the sequence. Follow the player move by move, then end with "<Output> Yes" or "<Output> No".

Now decide whether the sequence is safe on the following map:

<TEST-IMAGE>

The action sequence is:

<ACTION-SEQ>
`,
  'blocks/task-main': `${BLOCKS_INTRO}
Plan how to turn the start arrangement into the goal arrangement. Only the top block of a stack may be moved, one at a time, onto another stack or onto the table (where it starts a new stack). Describe both arrangements first, then write "<Output>" on its own line followed by one numbered move per line, as "1. move(red,table)" or "2. move(blue,green)" (the block moved, then where it goes).

Now plan the moves. The start arrangement is:

<TEST-IMAGE-1>

The goal arrangement is:

<TEST-IMAGE-2>
`,
  'blocks/task1': `${BLOCKS_INTRO}
Answer a question about the colour of one block. End with "<Output> " and the colour name.

Now answer the question about the picture below.
<QUESTION>

<TEST-IMAGE>
`,
  'blocks/task2': `${BLOCKS_INTRO}
Answer a question about how two blocks are placed, choosing one of the options (A) to (D). End with "<Output> " and the letter.

Now answer the question about the picture below.
<QUESTION>

<TEST-IMAGE>
`,
  'blocks/task3': `${BLOCKS_INTRO}
Arrangements can also be written as text, one line per stack, from the bottom up. Pick the one text of four that describes the picture, and end with "<Output> " and its letter.

Now choose the text for the picture below.

<TEST-IMAGE>

The candidate texts:

<CANDIDATES>
`,
  'blocks/task4': `${BLOCKS_INTRO}
Decide whether a sequence of moves can be carried out from the arrangement shown. A move is possible when the block moved is on top of its stack and the target is the table or the top of another stack. End with "<Output> Yes" if every move is possible in turn, else "<Output> No".

Now decide about the arrangement below.

<TEST-IMAGE>

The action sequence is:
<ACTION-SEQ>
`,
  'collision/task-main': `You are shown a grid of roads with a car, a person and a goal square. The car drives along its row and the person walks along their column, both towards the goal, at the speeds given (squares per second). Work out how many seconds each needs to reach the goal.
The figure shows, from left to right, the car, the person and the goal.

<IMAGE-1>

A worked map follows.

<IMAGE-2>

In the worked map the car is 2 squares left of the goal and drives right at 1.0 square per second: 2 / 1.0 = 2 seconds. The person is 1 square below the goal and walks up at 0.5 square per second: 1 / 0.5 = 2 seconds.

Answer with two lines, "Car: <seconds>" and "Person: <seconds>", for example "Car: 2.0" and "Person: 2.0", and nothing after them.

Please work out the times for the following map:

<TEST-IMAGE-1>
`,
  'google_map/task-main': `You are shown a street map with north at the top. The blue dot marks the start and the red dot the goal, both at crossings. Give a route from the start to the goal as moves along the streets, each with the number of crossings passed.
In the worked map below the start is one crossing north and one crossing east of the goal, so the route is one crossing south, then one crossing west.

<IMAGE-1>

Write "<Output>" on its own line, then one numbered move per line as "<Direction>: <crossings>", for example:
<Output>
1. South: 1
2. West: 1
Write nothing after the route.

Please give the route for the following map:

<TEST-IMAGE-1>
`,
};

const at = ([r, c]: [number, number]) => `row ${r + 1}, column ${c + 1}`;

function mazeFacts(rows: MazeRows): string {
  const hs = holes(rows);
  return `Player: ${at(findCell(rows, 'S'))}. Goal: ${at(findCell(rows, 'G'))}. Holes: ${hs.length === 0 ? 'none' : hs.map(at).join('; ')}.`;
}

/** A worked answer to a maze main item, ending "Action plan: ...". */
export function mazePlanAnswer(rows: MazeRows, plan: readonly Move[]): string {
  let cur = findCell(rows, 'S');
  const lines = plan.map((m, i) => {
    cur = step(rows, cur, m);
    return `${i + 1}. ${MOVE_NAMES[m]} to ${at(cur)}: ${rows[cur[0]][cur[1]] === 'G' ? 'the goal' : 'safe'}.`;
  });
  return `Reading the map. ${mazeFacts(rows)}\nPlanning.\n${lines.join('\n')}\nAction plan: ${plan.join(',')}`;
}

export const mazeHoleQuestion = ([r, c]: [number, number]) => `Is there a hole at row ${r}, column ${c}?`;

export function mazeHoleAnswer(rows: MazeRows, [r, c]: [number, number]): string {
  const hole = rows[r - 1][c - 1] === 'H';
  return `The square at row ${r}, column ${c} is ${hole ? 'a hole' : rows[r - 1][c - 1] === 'F' ? 'safe ground' : 'not a hole'}.\n<Output> ${hole ? 'Yes' : 'No'}`;
}

export function mazeRelativeAnswer(rows: MazeRows, words: readonly string[]): string {
  return `Reading the map. ${mazeFacts(rows)}\nComparing rows, then columns, of the player and the goal.\n<Output> ${words.join(',')}`;
}

export function mazeCandidatesAnswer(size: number, sizes: readonly number[], choice: number): string {
  const letters = 'ABCD';
  const same = sizes.flatMap((s, k) => (s === size ? [letters[k]] : []));
  return `The picture shows a ${size}x${size} map. Candidates of that size: ${same.join(', ')}. Comparing the player, goal and holes of those with the picture, candidate ${letters[choice]} matches.\n<Answer> ${letters[choice]}`;
}

export function mazeSequenceAnswer(rows: MazeRows, moves: readonly Move[]): string {
  let cur = findCell(rows, 'S');
  const lines: string[] = [`Start: ${at(cur)}.`];
  let safe = true;
  for (const m of moves) {
    cur = step(rows, cur, m);
    const hole = rows[cur[0]][cur[1]] === 'H';
    lines.push(`${MOVE_NAMES[m]}: ${at(cur)}, ${hole ? 'a hole' : 'no hole'}.`);
    if (hole) {
      safe = false;
      break;
    }
  }
  return `${lines.join('\n')}\n<Output> ${safe ? 'Yes' : 'No'}`;
}

export const blocksColourQuestion = (stack: number, level: number) => `What colour is the block at stack ${stack}, level ${level}?`;

export function blocksColourAnswer(stacks: Stacks, stack: number, level: number): string {
  return `${stacksPureText(stacks)}\nStack ${stack}, level ${level} holds the ${COLOURS[stacks[stack - 1][level - 1]]} block.\n<Output> ${COLOURS[stacks[stack - 1][level - 1]]}`;
}

export function blocksRelationQuestion(a: string, b: string): string {
  const [x, y] = [colourName(a), colourName(b)];
  return [
    `What is the relation between the ${x} block and the ${y} block?`,
    `(A) The ${x} block is higher than the ${y} block, in the same stack.`,
    `(B) The ${x} block is lower than the ${y} block, in the same stack.`,
    `(C) The ${x} block and the ${y} block are in different stacks.`,
    `(D) The ${x} block or the ${y} block is not in the picture.`,
  ].join('\n');
}

export function blocksRelationAnswer(stacks: Stacks, choice: number): string {
  return `${stacksPureText(stacks)}\n<Output> ${'ABCD'[choice]}`;
}

export function blocksCandidatesAnswer(stacks: Stacks, choice: number): string {
  return `The picture shows:\n${stacksPureText(stacks)}\n<Output> ${'ABCD'[choice]}`;
}

export function blocksSequenceAnswer(start: Stacks, moves: readonly BlockMove[], failedAt: number | undefined): string {
  const steps = moves.slice(0, failedAt === undefined ? moves.length : failedAt + 1).map((m, i) => `${formatPlan([m]).replace(/^1\./, `${i + 1}.`)}: ${i === failedAt ? 'not possible' : 'possible'}.`);
  return `Start:\n${stacksPureText(start)}\n${steps.join('\n')}\n<Output> ${failedAt === undefined ? 'Yes' : 'No'}`;
}

/** The question of a blocks main example (its text form). */
export function blocksPlanQuestion(start: Stacks, goal: Stacks): string {
  return `Plan the moves. The start arrangement is:\n${stacksPureText(start)}\n\nThe goal arrangement is:\n${stacksPureText(goal)}`;
}
