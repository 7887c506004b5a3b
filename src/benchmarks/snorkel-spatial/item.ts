/**
 * SnorkelSpatial items (items.jsonl): the board width, the particles' start (world coordinates of
 * tile centres and a facing), the actions, one query and its answer as the oracle computes it. The
 * query type is the item's task, the number of actions its level. Answers go under entity-specific
 * keys, as in the published sample (`particle_P1_orientation`).
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';
import { absoluteFacing, absoluteLocation, ANGLES, BOARD, DIRECTIONS, initialWorld, MOVES, relativeLocation, relativeOrientation, run, startTile, tileOf, type Action, type World } from './world.js';

export const QUERY_TYPES = ['absolute-location', 'tile', 'absolute-orientation', 'relative-location', 'relative-orientation'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

/** How an action is worded in the prompt; the published sample uses both. */
export const PHRASINGS = ['imperative', 'passive'] as const;

const Name = z.string().regex(/^P[1-9][0-9]*$/, 'a particle name P1, P2, ...');
const Actor = z.union([z.literal(BOARD), Name]);
const Phrasing = z.enum(PHRASINGS).optional();
const ActionSchema = z.union([
  z.strictObject({ actor: Actor, move: z.enum(MOVES), phrasing: Phrasing }),
  z.strictObject({ actor: Actor, rotate: z.literal(ANGLES), phrasing: Phrasing }),
]);
const Point = z.tuple([z.number(), z.number()]);

export const SnorkelItemSchema = z.strictObject({
  id: z.string().min(1),
  benchmark: z.literal('snorkel-spatial'),
  task: z.enum(QUERY_TYPES),
  /** The number of actions. */
  level: z.string().regex(/^\d+$/),
  /** Given by loadItemSet to items read back (src/benchmarks/run.ts); a text-only item resolves nothing against it. */
  root: z.string().optional(),
  /** Tiles per side of the board B1, which starts facing NORTH with its centroid at (width / 2, width / 2). */
  width: z.number().int().min(2).max(100),
  /** Start: the centre of a tile, in world coordinates (x east, y north), and a facing. */
  particles: z.array(z.strictObject({ name: Name, at: Point, facing: z.enum(DIRECTIONS) })).min(2),
  actions: z.array(ActionSchema),
  /** Whom the query is about (B1 or a particle) and, for relative queries, seen from which particle. */
  query: z.strictObject({ subject: Actor, from: Name.optional() }),
  /** The oracle's answer: the JSON object a correct response holds. */
  answer: z.record(z.string(), z.unknown()),
});
export type SnorkelItem = z.infer<typeof SnorkelItemSchema>;
type Query = Pick<SnorkelItem, 'task' | 'query'>;

const isRelative = (task: QueryType) => task === 'relative-location' || task === 'relative-orientation';

export function parseSnorkelItem(raw: unknown): SnorkelItem {
  const r = SnorkelItemSchema.safeParse(raw);
  const id = (raw as { id?: unknown })?.id;
  const fail = (why: string): never => {
    throw new GsrError(`SnorkelSpatial item ${typeof id === 'string' ? id : '(no id)'}: ${why}`);
  };
  if (!r.success) {
    const issue = r.error.issues[0];
    return fail(`${issue.path.join('.') || '(record)'}: ${issue.message}`);
  }
  const item = r.data;
  const names = new Set(item.particles.map((p) => p.name));
  if (names.size !== item.particles.length) fail('two particles share a name');
  const bad = [...item.actions.map((a) => a.actor), item.query.subject, item.query.from].find((n) => n !== undefined && n !== BOARD && !names.has(n));
  if (bad !== undefined) fail(`${bad} is not one of its particles`);
  const off = item.particles.find((p) => startTile(item.width, p.at) === null);
  if (off !== undefined) fail(`${off.name} at (${off.at.join(', ')}) is not the centre of a tile of a board of width ${item.width} with its south-west corner at (0, 0)`);
  if (Number(item.level) !== item.actions.length) fail(`level ${item.level} but ${item.actions.length} actions`);
  const { subject, from } = item.query;
  if (isRelative(item.task) !== (from !== undefined)) fail(isRelative(item.task) ? `a ${item.task} query needs "from"` : `a ${item.task} query takes no "from"`);
  if ((item.task === 'tile' || isRelative(item.task)) && subject === BOARD) fail(`a ${item.task} query is about a particle, not the board`);
  if (from !== undefined && from === subject) fail('a relative query compares two different particles');
  return item;
}

/** How an entity is named in prompts and keys: `particle P1`, `board B1`. */
export const entityName = (who: string) => `${who === BOARD ? 'board' : 'particle'} ${who}`;
const entityKey = (who: string) => entityName(who).replace(' ', '_');

/** The JSON key of the query's answer: entity and property, as in the published `particle_P1_orientation`. */
export function answerKey({ task, query: { subject, from } }: Query): string {
  const relativeTo = from === undefined ? '' : `_relative_to_${entityKey(from)}`;
  switch (task) {
    case 'absolute-location': return `${entityKey(subject)}_location`;
    case 'tile': return `${entityKey(subject)}_tile`;
    case 'absolute-orientation': return `${entityKey(subject)}_orientation`;
    case 'relative-location': return `${entityKey(subject)}_location${relativeTo}`;
    case 'relative-orientation': return `${entityKey(subject)}_orientation${relativeTo}`;
  }
}

export function startWorld(item: Pick<SnorkelItem, 'width' | 'particles'>): World {
  return initialWorld(item.width, item.particles);
}

/** The oracle: replays the actions and answers the query. */
export function oracleAnswer(item: Pick<SnorkelItem, 'task' | 'width' | 'particles' | 'actions' | 'query'>): Record<string, unknown> {
  const w = run(startWorld(item), item.actions as Action[]);
  const { subject, from } = item.query;
  const key = answerKey(item);
  switch (item.task) {
    case 'absolute-location': return { [key]: absoluteLocation(w, subject) };
    case 'tile': return { [key]: tileOf(w, subject) };
    case 'absolute-orientation': return { [key]: absoluteFacing(w, subject) };
    case 'relative-location': return { [key]: relativeLocation(w, from!, subject) };
    case 'relative-orientation': return { [key]: relativeOrientation(w, from!, subject) };
  }
}

type Space = Pick<SnorkelItem, 'task' | 'width' | 'actions' | 'query'>;
const boardMoves = (item: Space) => item.actions.filter((a) => a.actor === BOARD && 'move' in a).length;

/**
 * How many answers a uniform guesser chooses among for this item (the random baseline's space; its
 * expected accuracy is 1 / size). Absolute locations: every tile centre a board tile can reach with
 * the item's m board moves, or for the board itself every centroid it can reach.
 */
export function answerSpaceSize(item: Space): number {
  const w = item.width;
  const m = boardMoves(item);
  switch (item.task) {
    case 'absolute-location': return item.query.subject === BOARD ? (2 * m + 1) ** 2 : (w + 2 * m) ** 2;
    case 'tile': return w * w;
    case 'absolute-orientation': case 'relative-orientation': return 4;
    case 'relative-location': return (2 * w - 1) ** 2;
  }
}

/** The `index`-th answer of that space (the random baseline draws an index uniformly). */
export function answerAt(item: Space, index: number): Record<string, unknown> {
  const w = item.width;
  const key = answerKey(item);
  const grid = (side: number, first: number): [number, number] => [first + (index % side), first + Math.floor(index / side)];
  switch (item.task) {
    case 'absolute-location': {
      const m = boardMoves(item);
      return { [key]: item.query.subject === BOARD ? grid(2 * m + 1, w / 2 - m) : grid(w + 2 * m, 0.5 - m) };
    }
    case 'tile': return { [key]: index + 1 };
    case 'absolute-orientation': return { [key]: DIRECTIONS[index] };
    case 'relative-orientation': return { [key]: index * 90 };
    case 'relative-location': return { [key]: grid(2 * w - 1, 1 - w) };
  }
}
