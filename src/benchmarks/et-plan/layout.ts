/**
 * The layout map (docs/et-plan.md, "Tasks"): the paper's prior knowledge of "large pieces of furniture
 * (e.g., sofas and refrigerators), which are less frequently moved" (section 3, Navigation with layout
 * map), derived from a graph: per room, its large furniture and appliances with their positions.
 */
import { EngineState, nodePosition, roomOf, type EngineGraph, type Vec3 } from './engine/index.js';
import type { NodeRef } from './task.js';

export interface LayoutRoom {
  room: NodeRef;
  center: Vec3;
  furniture: (NodeRef & { center: Vec3 })[];
}

/** Large furniture: not grabbable, Furniture or Appliances, at least 0.1 m³ or 0.8 m wide (our choice). */
export function isLargeFurniture(graph: EngineGraph, id: number): boolean {
  const n = graph.node(id)!;
  if (n.properties.has('GRABBABLE') || (n.category !== 'Furniture' && n.category !== 'Appliances')) return false;
  const s = n.raw.bounding_box?.size;
  return s !== undefined && (s[0] * s[1] * s[2] >= 0.1 || Math.max(s[0], s[2]) >= 0.8);
}

/** Rooms in id order, each with its large furniture in id order (a piece's room as the engine finds it at the start). */
export function layoutMap(graph: EngineGraph): LayoutRoom[] {
  const s = EngineState.initial(graph);
  const rooms = new Map<number, LayoutRoom>(graph.rooms.map((r) => [r, { room: { id: r, class: graph.node(r)!.className }, center: nodePosition(graph, r), furniture: [] }]));
  for (const id of graph.ids) {
    if (!isLargeFurniture(graph, id) || graph.node(id)!.center === undefined) continue;
    const r = roomOf(s, id);
    if (r !== null) rooms.get(r)?.furniture.push({ id, class: graph.node(id)!.className, center: nodePosition(graph, id) });
  }
  return [...rooms.values()];
}
