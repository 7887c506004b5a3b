/**
 * The SnorkelSpatial generator: `count` items cycling through the action counts (fastest) and the
 * query types, each drawn from its own seeded stream (seed, index), so the same settings give the
 * same items byte for byte and a larger count only appends items. The draws where the published page
 * is silent (docs/snorkel-spatial.md) are uniform: start tiles and facings, each action's actor, kind,
 * direction or angle and wording, and whom the query is about.
 */
import { z } from 'zod';
import { GsrError } from '../../util/errors.js';
import { Rng } from '../../util/random.js';
import type { ItemSet } from '../types.js';
import { oracleAnswer, PHRASINGS, QUERY_TYPES, type SnorkelItem } from './item.js';
import { ANGLES, BOARD, DIRECTIONS, MOVES } from './world.js';

/** The published set's action counts. */
export const DEFAULT_ACTIONS = [10, 20, 50, 100, 200];

// Pipeline files fill settings from the environment as text ("${SNORKEL_COUNT:-330}"): digits count as numbers.
const int = (t: z.ZodNumber) => z.preprocess((v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v), t);

export const SnorkelGenerateSchema = z.strictObject({
  count: int(z.number().int().positive().max(1_000_000)),
  actions: z.array(int(z.number().int().nonnegative().max(100_000))).min(1).default(DEFAULT_ACTIONS),
  seed: int(z.number().int().min(0).max(0xffffffff)).default(0),
  /** Tiles per board side. */
  board_width: int(z.number().int().min(2).max(100)).default(20),
  /** Particles on the board (P1, P2, ...). */
  particles: int(z.number().int().min(2).max(9)).default(3),
});
export type SnorkelGenerateSettings = z.infer<typeof SnorkelGenerateSchema>;

export function parseSnorkelGenerateSettings(raw: unknown): SnorkelGenerateSettings {
  const r = SnorkelGenerateSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`SnorkelSpatial generation settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

/** Item `index` of a generated set. */
export function generateItem(s: SnorkelGenerateSettings, index: number): SnorkelItem {
  const rng = new Rng(s.seed, index);
  const nActions = s.actions[index % s.actions.length];
  const task = QUERY_TYPES[Math.floor(index / s.actions.length) % QUERY_TYPES.length];
  const names = Array.from({ length: s.particles }, (_, i) => `P${i + 1}`);
  // A tile centre of the board in its start pose (south-west corner at (0, 0)).
  const centre = () => rng.int(0, s.board_width - 1) + 0.5;
  const particles = names.map((name) => ({ name, at: [centre(), centre()] as [number, number], facing: rng.pick(DIRECTIONS) }));
  const actors = [BOARD, ...names];
  const actions: SnorkelItem['actions'] = [];
  for (let i = 0; i < nActions; i++) {
    const actor = rng.pick(actors);
    const phrasing = rng.pick(PHRASINGS);
    actions.push(rng.chance(0.5) ? { actor, move: rng.pick(MOVES), phrasing } : { actor, rotate: rng.pick(ANGLES), phrasing });
  }
  let query: SnorkelItem['query'];
  if (task === 'relative-location' || task === 'relative-orientation') {
    const from = rng.pick(names);
    const subject = rng.pick(names.filter((n) => n !== from));
    query = { subject, from };
  } else {
    // The board has a location (its centroid) and an orientation, but no tile.
    query = { subject: task === 'tile' ? rng.pick(names) : rng.pick(actors) };
  }
  const item = { id: `ss-${String(index).padStart(6, '0')}`, benchmark: 'snorkel-spatial' as const, task, level: String(nActions), width: s.board_width, particles, actions, query };
  return { ...item, answer: oracleAnswer(item) };
}

export function generateSnorkelItems(raw: unknown): ItemSet<SnorkelItem> {
  const s = parseSnorkelGenerateSettings(raw);
  return { items: Array.from({ length: s.count }, (_, i) => generateItem(s, i)), context: { benchmark: 'snorkel-spatial', generated: s } };
}
