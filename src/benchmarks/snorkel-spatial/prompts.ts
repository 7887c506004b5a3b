/**
 * SnorkelSpatial prompts: one text part (no image), the rules, the start, the actions, the question and
 * the JSON answer format, with a JSON schema for endpoints that take `response_format`.
 */
import type { ResponseFormat } from '../../formats/chat-prompt.js';
import type { DraftPrompt } from '../types.js';
import { ANSWER_KEYS, type QueryType, type SnorkelItem } from './item.js';
import { BOARD, DIRECTIONS } from './world.js';

function rules(width: number): string {
  return [
    `A square board of ${width} x ${width} tiles lies in a world with the directions NORTH, EAST, SOUTH and WEST. The world is a grid of cells the size of a tile; x counts cells to the east and y cells to the north.`,
    `At the start the board faces NORTH and its south-west corner tile is at (x, y) = (0, 0).`,
    `Tiles are numbered from 1 to ${width * width} in a zigzag: the row along the board's front edge from left to right, the next row from right to left, and so on, always as seen by someone standing on the board facing its front. The numbers belong to the board and turn with it.`,
    `Particles sit on tiles and each faces a direction. Several particles may share a tile.`,
    `Actions:`,
    `- "X moves FORWARD/BACKWARD/LEFT/RIGHT": X moves one tile (the board: one cell of the world) in that direction relative to the way X faces now. Moving does not change where anything faces.`,
    `- When the board moves, every particle moves with it and stays on its tile.`,
    `- A particle that moves over the edge of the board comes back on the opposite edge of the same row or column.`,
    `- "X rotates A degrees": X turns A degrees counter-clockwise (A is 0, 90, 180, 270 or 360). The board turns about its centre and carries its particles: each keeps its tile and turns by the same angle.`,
  ].join('\n');
}

function question(item: SnorkelItem): { text: string; example: string } {
  const { subject, from } = item.query;
  const key = ANSWER_KEYS[item.task];
  const who = subject === BOARD ? 'the board' : subject;
  switch (item.task) {
    case 'absolute-location': return { text: `What are the world coordinates (x, y) of the cell ${who} is on?`, example: `{"${key}": [3, -2]}` };
    case 'tile': return { text: `What is the number of the tile ${who} is on?`, example: `{"${key}": 17}` };
    case 'absolute-orientation': return { text: `Which direction of the world does ${who} face (${DIRECTIONS.join(', ')})?`, example: `{"${key}": "WEST"}` };
    case 'relative-location': return { text: `Where is ${subject} as seen from ${from}: how many tiles in front of ${from} (negative: behind) and how many to its right (negative: left), counted on the board without going round the edge?`, example: `{"${key}": {"front": 2, "right": -1}}` };
    case 'relative-orientation': return { text: `By how many degrees counter-clockwise must ${from} turn to face the way ${subject} faces (0, 90, 180 or 270)?`, example: `{"${key}": 90}` };
  }
}

const VALUE_SCHEMA: Record<QueryType, Record<string, unknown>> = {
  'absolute-location': { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 },
  tile: { type: 'integer' },
  'absolute-orientation': { type: 'string', enum: [...DIRECTIONS] },
  'relative-location': { type: 'object', properties: { front: { type: 'integer' }, right: { type: 'integer' } }, required: ['front', 'right'], additionalProperties: false },
  'relative-orientation': { type: 'integer', enum: [0, 90, 180, 270] },
};

export function responseFormat(task: QueryType): ResponseFormat {
  const key = ANSWER_KEYS[task];
  return { name: `snorkel_${key}`, strict: true, schema: { type: 'object', properties: { [key]: VALUE_SCHEMA[task] }, required: [key], additionalProperties: false } };
}

function describeAction(a: SnorkelItem['actions'][number]): string {
  return 'move' in a ? `${a.actor} moves ${a.move}` : `${a.actor} rotates ${a.rotate} degrees`;
}

export function buildSnorkelPrompts(item: SnorkelItem): DraftPrompt[] {
  const q = question(item);
  const text = [
    rules(item.width),
    '',
    `Start: ${item.particles.map((p) => `${p.name} is on tile ${p.tile} facing ${p.facing}`).join('; ')}.`,
    '',
    `Actions, in order:`,
    ...item.actions.map((a, i) => `${i + 1}. ${describeAction(a)}`),
    '',
    `Question: after all the actions, ${q.text.charAt(0).toLowerCase()}${q.text.slice(1)}`,
    `Answer with a JSON object holding the key "${ANSWER_KEYS[item.task]}", for example ${q.example}.`,
  ].join('\n');
  return [{ item: item.id, task: item.task, level: item.level, variant: 'text', parts: [{ type: 'text', text }], response_format: responseFormat(item.task) }];
}
