/**
 * SnorkelSpatial items (items.jsonl): the board width, the particles' start, the actions, one query
 * and its answer as the oracle computes it. The query type is the item's task, the number of actions
 * its level.
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';
import { absoluteFacing, absoluteLocation, ANGLES, BOARD, DIRECTIONS, initialWorld, MOVES, relativeLocation, relativeOrientation, run, tileOf, type Action, type World } from './world.js';

export const QUERY_TYPES = ['absolute-location', 'tile', 'absolute-orientation', 'relative-location', 'relative-orientation'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

/** The JSON key each query type's answer goes under. */
export const ANSWER_KEYS: Record<QueryType, string> = {
  'absolute-location': 'location',
  tile: 'tile',
  'absolute-orientation': 'orientation',
  'relative-location': 'relative_location',
  'relative-orientation': 'relative_orientation',
};

const Name = z.string().regex(/^P[1-9][0-9]*$/, 'a particle name P1, P2, ...');
const ActionSchema = z.union([
  z.strictObject({ actor: z.union([z.literal(BOARD), Name]), move: z.enum(MOVES) }),
  z.strictObject({ actor: z.union([z.literal(BOARD), Name]), rotate: z.literal(ANGLES) }),
]);

export const SnorkelItemSchema = z.strictObject({
  id: z.string().min(1),
  benchmark: z.literal('snorkel-spatial'),
  task: z.enum(QUERY_TYPES),
  /** The number of actions. */
  level: z.string().regex(/^\d+$/),
  /** Given by loadItemSet to items read back (src/benchmarks/run.ts); a text-only item resolves nothing against it. */
  root: z.string().optional(),
  width: z.number().int().min(2).max(100),
  particles: z.array(z.strictObject({ name: Name, tile: z.number().int().positive(), facing: z.enum(DIRECTIONS) })).min(2),
  actions: z.array(ActionSchema),
  /** Whom the query is about (BOARD or a particle) and, for relative queries, seen from whom. */
  query: z.strictObject({ subject: z.union([z.literal(BOARD), Name]), from: Name.optional() }),
  /** The oracle's answer: the JSON object a correct response holds. */
  answer: z.record(z.string(), z.unknown()),
});
export type SnorkelItem = z.infer<typeof SnorkelItemSchema>;

export function parseSnorkelItem(raw: unknown): SnorkelItem {
  const r = SnorkelItemSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const id = (raw as { id?: unknown })?.id;
    throw new GsrError(`SnorkelSpatial item ${typeof id === 'string' ? id : '(no id)'}: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
  }
  const item = r.data;
  const names = new Set(item.particles.map((p) => p.name));
  const bad = [...item.actions.map((a) => a.actor), item.query.subject, item.query.from].find((n) => n !== undefined && n !== BOARD && !names.has(n));
  if (bad !== undefined) throw new GsrError(`SnorkelSpatial item ${item.id}: ${bad} is not one of its particles`);
  if (item.particles.some((p) => p.tile > item.width * item.width)) throw new GsrError(`SnorkelSpatial item ${item.id}: a tile number is beyond ${item.width * item.width}`);
  if (Number(item.level) !== item.actions.length) throw new GsrError(`SnorkelSpatial item ${item.id}: level ${item.level} but ${item.actions.length} actions`);
  return item;
}

export function startWorld(item: Pick<SnorkelItem, 'width' | 'particles'>): World {
  return initialWorld(item.width, item.particles);
}

/** The oracle: replays the actions and answers the query. */
export function oracleAnswer(item: Pick<SnorkelItem, 'task' | 'width' | 'particles' | 'actions' | 'query'>): Record<string, unknown> {
  const w = run(startWorld(item), item.actions as Action[]);
  const { subject, from } = item.query;
  const key = ANSWER_KEYS[item.task];
  switch (item.task) {
    case 'absolute-location': return { [key]: absoluteLocation(w, subject) };
    case 'tile': return { [key]: tileOf(w, subject) };
    case 'absolute-orientation': return { [key]: absoluteFacing(w, subject) };
    case 'relative-location': return { [key]: relativeLocation(w, from!, subject) };
    case 'relative-orientation': return { [key]: relativeOrientation(w, from!, subject) };
  }
}

/**
 * How many answers a uniform guesser chooses among for this item (the random baseline's space; its
 * expected accuracy is 1 / size). Absolute locations: every world cell a board tile can reach with
 * the item's board moves.
 */
export function answerSpaceSize(item: Pick<SnorkelItem, 'task' | 'width' | 'actions'>): number {
  const w = item.width;
  switch (item.task) {
    case 'absolute-location': {
      const m = item.actions.filter((a) => a.actor === BOARD && 'move' in a).length;
      return (w + 2 * m) ** 2;
    }
    case 'tile': return w * w;
    case 'absolute-orientation': case 'relative-orientation': return 4;
    case 'relative-location': return (2 * w - 1) ** 2;
  }
}

/** The `index`-th answer of that space (the random baseline draws an index uniformly). */
export function answerAt(item: Pick<SnorkelItem, 'task' | 'width' | 'actions'>, index: number): Record<string, unknown> {
  const w = item.width;
  const key = ANSWER_KEYS[item.task];
  switch (item.task) {
    case 'absolute-location': {
      const side = Math.sqrt(answerSpaceSize(item));
      const m = (side - w) / 2;
      return { [key]: [(index % side) - m, Math.floor(index / side) - m] };
    }
    case 'tile': return { [key]: index + 1 };
    case 'absolute-orientation': return { [key]: DIRECTIONS[index] };
    case 'relative-orientation': return { [key]: index * 90 };
    case 'relative-location': {
      const side = 2 * w - 1;
      return { [key]: { front: (index % side) - (w - 1), right: Math.floor(index / side) - (w - 1) } };
    }
  }
}
