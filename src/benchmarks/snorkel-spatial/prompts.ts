/**
 * SnorkelSpatial prompts in the published form (docs/snorkel-spatial.md): one text part with the four
 * sections of the published sample (`# Initial States`, `# Actions`, `# Question`, `# Response format -
 * JSON schema`), worded as the sample words them, and a JSON schema for endpoints that take
 * `response_format`. The `conventions` setting adds this toolkit's statement of what the page leaves
 * unsaid (where tile 1 is, the axes, the wrap-around) to the initial states.
 */
import { z } from 'zod';
import type { ResponseFormat } from '../../formats/chat-prompt.js';
import { GsrError } from '../../util/errors.js';
import type { DraftPrompt } from '../types.js';
import { answerKey, entityName, type QueryType, type SnorkelItem } from './item.js';
import { BOARD, DIRECTIONS } from './world.js';

export const SnorkelPromptSettingsSchema = z.strictObject({
  /** Add the conventions the published page leaves unsaid to `# Initial States` (off: the published text only). */
  conventions: z.boolean().default(false),
});
export type SnorkelPromptSettings = z.infer<typeof SnorkelPromptSettingsSchema>;

export function parseSnorkelPromptSettings(raw: unknown): SnorkelPromptSettings {
  const r = SnorkelPromptSettingsSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`SnorkelSpatial prompt settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

const COUNT_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** A coordinate as the published sample prints it: 2.5, and a whole number with one decimal (10.0). */
export const coordinate = (v: number) => (Number.isInteger(v) ? v.toFixed(1) : String(v));
const point = ([x, y]: readonly [number, number]) => `(${coordinate(x)}, ${coordinate(y)})`;

function initialStates(item: SnorkelItem, conventions: boolean): string {
  const w = item.width;
  const names = item.particles.map((p) => p.name);
  const n = names.length;
  const lines = [
    `The environment consists of ${COUNT_WORDS[n] ?? n} particle${n === 1 ? '' : 's'} ${names.join(', ')} and a square board ${BOARD} of width ${w}, with 1x1 tiles numbered from 1 to ${w * w} in a zigzag pattern.`,
    `The board's location and orientation are determined by its centroid's location and orientation.`,
    `Initially the board is at location ${point([w / 2, w / 2])} and oriented towards north.`,
    ...item.particles.map((p) => `${p.name} is at ${point(p.at)} and facing ${p.facing.toLowerCase()}.`),
  ];
  if (conventions) {
    lines.push(
      `Locations are (x, y) in tile units, with x growing to the east and y to the north; a particle's location is the centre of its tile.`,
      `Tile 1 is the board's front-left corner tile, seen from the centroid looking the way the board is oriented; the front row is numbered from left to right, the next row from right to left, and so on. The numbers stay with the board as it moves and rotates.`,
      `Moving or rotating the board carries its particles: each keeps its tile and turns with the board, which rotates about its centroid.`,
      `A particle that moves over the edge of the board comes back on the opposite edge. Rotations are counterclockwise.`,
    );
  }
  return lines.join(' ');
}

function describeAction(a: SnorkelItem['actions'][number]): string {
  const who = entityName(a.actor);
  const passive = a.phrasing === 'passive';
  if ('move' in a) return passive ? `${who} is moved ${a.move} by 1 unit` : `move ${who} ${a.move} by 1 unit`;
  return passive ? `${who} is rotated by ${a.rotate} degrees` : `rotate ${who} by ${a.rotate} degrees`;
}

function actionsText(item: SnorkelItem): string {
  if (item.actions.length === 0) return 'There are no actions.';
  return item.actions.map((a, i) => `${i === 0 ? 'First' : 'Then'}, ${describeAction(a)}.`).join(' ');
}

function question(item: SnorkelItem): string {
  const { subject, from } = item.query;
  const who = entityName(subject);
  const after = 'after all the actions?';
  switch (item.task) {
    case 'absolute-location': return `What is the location of ${who} ${after}`;
    case 'tile': return `Which tile is ${who} on ${after}`;
    case 'absolute-orientation': return `What is the orientation of ${who} ${after}`;
    case 'relative-location':
      return `What is the location of ${who} relative to ${entityName(from!)} ${after} Give it in ${from}'s own frame: x is the distance to ${from}'s right and y the distance ahead of ${from}, in tiles (negative: left, behind).`;
    case 'relative-orientation':
      return `What is the orientation of ${who} relative to ${entityName(from!)} ${after} Give the counterclockwise angle in degrees from ${from}'s orientation to ${subject}'s: 0, 90, 180 or 270.`;
  }
}

/** The `Type:` line of the response format (the published sample shows `String`). */
const TYPE_LINE: Record<QueryType, string> = {
  'absolute-location': 'Array of two numbers [x, y]',
  tile: 'Integer',
  'absolute-orientation': 'String',
  'relative-location': 'Array of two numbers [x, y]',
  'relative-orientation': 'Integer',
};

const POINT_SCHEMA = { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 };
const VALUE_SCHEMA: Record<QueryType, Record<string, unknown>> = {
  'absolute-location': POINT_SCHEMA,
  tile: { type: 'integer' },
  'absolute-orientation': { type: 'string', enum: [...DIRECTIONS] },
  'relative-location': POINT_SCHEMA,
  'relative-orientation': { type: 'integer', enum: [0, 90, 180, 270] },
};

export function responseFormat(item: Pick<SnorkelItem, 'task' | 'query'>): ResponseFormat {
  const key = answerKey(item);
  return { name: `snorkel_${item.task.replace('-', '_')}`, strict: true, schema: { type: 'object', properties: { [key]: VALUE_SCHEMA[item.task] }, required: [key], additionalProperties: false } };
}

/** The prompt text: the published sample's four sections. */
export function snorkelPromptText(item: SnorkelItem, settings: SnorkelPromptSettings = { conventions: false }): string {
  return [
    '# Initial States',
    initialStates(item, settings.conventions),
    '',
    '# Actions',
    'The actions are the following:',
    actionsText(item),
    '',
    '# Question',
    question(item),
    '',
    '# Response format - JSON schema',
    'You must get the final answer and convert it to the following JSON data structure.',
    'Follow the schema exactly.',
    `Key: \`${answerKey(item)}\``,
    `Type: ${TYPE_LINE[item.task]}`,
  ].join('\n');
}

export function buildSnorkelPrompts(item: SnorkelItem, settings?: SnorkelPromptSettings): DraftPrompt[] {
  const s = settings ?? { conventions: false };
  return [{
    item: item.id, task: item.task, level: item.level, variant: s.conventions ? 'text+conventions' : 'text',
    parts: [{ type: 'text', text: snorkelPromptText(item, s) }], response_format: responseFormat(item),
  }];
}
