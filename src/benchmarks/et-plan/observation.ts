/**
 * The observation as text: the room, what is held and close, the rooms, and the visible objects
 * of the room as names with ids, each object under the visible object it is inside or on
 * (docs/et-plan.md, "The step prompt"). Floors, walls, ceilings, doors and windows are listed apart.
 */
import { sha256Hex } from '../../util/hash.js';
import { REL, roomOf, type EngineGraph, type EngineState } from './engine/index.js';
import { layoutMap } from './layout.js';

const STRUCTURE = new Set(['Floor', 'Floors', 'Walls', 'Ceiling', 'Doors', 'Windows']);

/** Floors, walls, ceilings, doors and windows: listed apart, never explored. */
export function isStructure(graph: EngineGraph, id: number): boolean {
  return STRUCTURE.has(graph.node(id)?.category ?? '');
}
const SHOWN_STATES = ['OPEN', 'CLOSED', 'ON', 'OFF'];

export interface Observation {
  room: number | null;
  /** Visible ids, ascending. */
  visible: number[];
  /** Held ids, right hand first. */
  held: number[];
}

export function observe(state: EngineState, visible: number[]): Observation {
  const c = state.characterId;
  return { room: roomOf(state, c), visible, held: [...state.out(c, REL.HOLDS_RH), ...state.out(c, REL.HOLDS_LH)] };
}

/** Digest of what was seen (room, visible ids, held ids): 16 hex digits of sha256 over canonical JSON. */
export function observationDigest(o: Observation): string {
  return sha256Hex(JSON.stringify([o.room, o.visible, o.held])).slice(0, 16);
}

/** `name (id)`, as the prompt names nodes. */
export function nodeName(graph: EngineGraph, id: number): string {
  return `${graph.node(id)?.className ?? 'unknown'} (${id})`;
}

function stateWords(state: EngineState, id: number): string {
  const s = state.states(id).filter((x) => SHOWN_STATES.includes(x)).map((x) => x.toLowerCase());
  return s.length ? `, ${s.join(', ')}` : '';
}

/**
 * Where an object is listed: under the visible non-room node it is INSIDE (the largest id, as the
 * visibility rule takes parents), else under the visible node it is ON; else at the top of the room.
 */
function displayParent(state: EngineState, id: number, shown: ReadonlySet<number>): { parent: number; how: 'inside' | 'on' } | null {
  const inside = state.out(id, REL.INSIDE).filter((p) => shown.has(p) && !state.graph.isRoom(p));
  if (inside.length) return { parent: inside[inside.length - 1], how: 'inside' };
  const on = state.out(id, REL.ON).filter((p) => shown.has(p) && !state.graph.isRoom(p));
  return on.length ? { parent: on[0], how: 'on' } : null;
}

/** The visible objects of the room, nested by inside/on, one per line. */
export function objectLines(state: EngineState, o: Observation): string[] {
  const g = state.graph;
  const held = new Set(o.held);
  const objects = o.visible.filter((id) => !g.isRoom(id) && !held.has(id) && id !== state.characterId && !isStructure(g, id));
  const shown = new Set(objects);
  const children = new Map<number, Array<{ id: number; how: 'inside' | 'on' }>>();
  const roots: number[] = [];
  for (const id of objects) {
    const p = displayParent(state, id, shown);
    if (p === null) roots.push(id);
    else {
      const list = children.get(p.parent) ?? [];
      list.push({ id, how: p.how });
      children.set(p.parent, list);
    }
  }
  const lines: string[] = [];
  const placed = new Set<number>();
  const put = (id: number, depth: number, how: string) => {
    placed.add(id);
    lines.push(`${'  '.repeat(depth)}- ${how}${nodeName(g, id)}${stateWords(state, id)}`);
    for (const c of children.get(id) ?? []) if (!placed.has(c.id)) put(c.id, depth + 1, `${c.how}: `);
  };
  for (const id of roots) put(id, 0, '');
  // Objects inside each other in a cycle have no root: listed at the top.
  for (const id of objects) if (!placed.has(id)) put(id, 0, '');
  return lines;
}

/** The observation block of a prompt. */
export function observationText(state: EngineState, o: Observation): string {
  const g = state.graph;
  const c = state.characterId;
  const visible = new Set(o.visible);
  const near = state.out(c, REL.CLOSE).filter((id) => visible.has(id) && !g.isRoom(id) && !o.held.includes(id));
  const hands = ['right', 'left'];
  const heldText = o.held.length === 0 ? 'nothing' : o.held.map((id) => `${nodeName(g, id)} in your ${hands[state.has(c, REL.HOLDS_RH, id) ? 0 : 1]} hand`).join(', ');
  const structure = o.visible.filter((id) => !g.isRoom(id) && isStructure(g, id));
  const roomName = o.room === null ? 'no room' : `the ${nodeName(g, o.room)}`;
  const objects = objectLines(state, o);
  return [
    `You are in ${roomName}.`,
    `Next to you: ${near.length ? near.map((id) => nodeName(g, id)).join(', ') : 'nothing'}.`,
    `Holding: ${heldText}.`,
    `Rooms: ${g.rooms.map((id) => nodeName(g, id)).join(', ')}.`,
    `Objects you see in ${roomName}:`,
    ...(objects.length ? objects : ['(none)']),
    ...(structure.length ? [`Floors, walls, doors and windows: ${structure.map((id) => nodeName(g, id)).join(', ')}.`] : []),
  ].join('\n');
}

const at = (c: readonly number[]) => `(${c[0].toFixed(1)}, ${c[2].toFixed(1)})`;

/** The layout map as prompt lines: each room and its large furniture, with positions (x, z) in metres. */
export function layoutText(graph: EngineGraph): string {
  return [
    'Layout map (large furniture by room; positions x, z in metres):',
    ...layoutMap(graph).map((r) => `- ${r.room.class} (${r.room.id}) ${at(r.center)}: ${r.furniture.map((f) => `${f.class} (${f.id}) ${at(f.center)}`).join(', ') || 'nothing large'}`),
  ].join('\n');
}
