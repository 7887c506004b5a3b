/**
 * A small hand-written apartment in VirtualHome's graph format, for hand-worked engine cases: three
 * rooms in a row joined by a door and a doorjamb, furniture, a closed openable fridge with an apple
 * inside, a table with things on it, two apples, a switchable microwave, a sofa and a chair, a
 * closed cabinet that cannot be opened, a curtain pair INSIDE each other, and a body part in no room.
 */
import type { VhGraph } from '../../../src/formats/vh-graph.js';

type Box = [number, number, number];

/** Node ids, by name, for readable tests. */
export const ID = {
  kitchen: 1, livingroom: 2, bedroom: 3, door: 4, doorjamb: 5,
  character: 10,
  fridge: 20, apple: 21, table: 22, plate: 23, mug: 24, apple2: 25, microwave: 26, coffeemaker: 27, cabinet: 28, cereal: 29,
  tv: 30, sofa: 31, chair: 32, coffeetable: 33, book: 34, pillow: 35, lamp: 36, cushion: 37, remote: 38,
  bed: 40, closet: 41, shirt: 42, curtain1: 43, curtain2: 44, desk: 45,
  hand: 50,
} as const;

interface Spec {
  id: number;
  class_name: string;
  category: string;
  center: Box;
  size?: Box;
  properties?: string[];
  states?: string[];
}

const NODES: Spec[] = [
  { id: ID.kitchen, class_name: 'kitchen', category: 'Rooms', center: [0, 1.25, 0], size: [6, 2.5, 6] },
  { id: ID.livingroom, class_name: 'livingroom', category: 'Rooms', center: [6, 1.25, 0], size: [6, 2.5, 6] },
  { id: ID.bedroom, class_name: 'bedroom', category: 'Rooms', center: [12, 1.25, 0], size: [6, 2.5, 6] },
  { id: ID.door, class_name: 'door', category: 'Doors', center: [3, 1, 2], properties: ['CAN_OPEN'], states: ['OPEN'] },
  { id: ID.doorjamb, class_name: 'doorjamb', category: 'Doors', center: [9, 1, -2] },
  { id: ID.character, class_name: 'character', category: 'Characters', center: [6, 0.9, 0], size: [0.5, 1.8, 0.5] },
  { id: ID.fridge, class_name: 'fridge', category: 'Appliances', center: [-2, 1, -2], properties: ['CAN_OPEN', 'CONTAINERS'], states: ['CLOSED'] },
  { id: ID.apple, class_name: 'apple', category: 'Food', center: [-2, 1, -2], size: [0.1, 0.1, 0.1], properties: ['GRABBABLE', 'EATABLE'] },
  { id: ID.table, class_name: 'kitchentable', category: 'Furniture', center: [0, 0.4, 1], properties: ['SURFACES'] },
  { id: ID.plate, class_name: 'plate', category: 'Props', center: [0.2, 0.8, 1], properties: ['GRABBABLE', 'RECIPIENT', 'SURFACES'] },
  { id: ID.mug, class_name: 'mug', category: 'Props', center: [-0.2, 0.8, 1], properties: ['GRABBABLE', 'RECIPIENT'] },
  { id: ID.apple2, class_name: 'apple', category: 'Food', center: [0, 0.8, 1.2], size: [0.1, 0.1, 0.1], properties: ['GRABBABLE', 'EATABLE'] },
  { id: ID.microwave, class_name: 'microwave', category: 'Appliances', center: [-2, 1, 2], properties: ['CAN_OPEN', 'CONTAINERS', 'HAS_SWITCH'], states: ['CLOSED', 'OFF'] },
  { id: ID.coffeemaker, class_name: 'coffeemaker', category: 'Appliances', center: [-2, 1, 1.5], properties: ['CAN_OPEN', 'HAS_SWITCH', 'RECIPIENT'], states: ['OFF', 'PLUGGED_OUT'] },
  { id: ID.cabinet, class_name: 'kitchencabinets', category: 'Furniture', center: [2, 1.5, -2.5], states: ['CLOSED'] },
  { id: ID.cereal, class_name: 'cereal', category: 'Food', center: [2, 1.5, -2.5], properties: ['GRABBABLE'] },
  { id: ID.tv, class_name: 'tv', category: 'Electronics', center: [6, 1, -2.8], properties: ['HAS_SWITCH', 'LOOKABLE'], states: ['OFF'] },
  { id: ID.sofa, class_name: 'sofa', category: 'Furniture', center: [6, 0.4, 2], properties: ['SITTABLE', 'SURFACES'] },
  { id: ID.chair, class_name: 'chair', category: 'Furniture', center: [8, 0.4, 2], properties: ['SITTABLE'] },
  { id: ID.coffeetable, class_name: 'coffeetable', category: 'Furniture', center: [6, 0.2, 0.8], properties: ['SURFACES'] },
  { id: ID.book, class_name: 'book', category: 'Props', center: [6, 0.45, 0.8], properties: ['GRABBABLE', 'READABLE'] },
  { id: ID.pillow, class_name: 'pillow', category: 'Props', center: [5.5, 0.6, 2], properties: ['GRABBABLE'] },
  { id: ID.lamp, class_name: 'tablelamp', category: 'Lamps', center: [8.5, 1, 2.5], properties: ['HAS_SWITCH', 'HAS_PLUG'], states: ['ON'] },
  { id: ID.cushion, class_name: 'cushion', category: 'Props', center: [8, 0.6, 2], properties: ['GRABBABLE'] },
  { id: ID.remote, class_name: 'remotecontrol', category: 'Electronics', center: [6.3, 0.45, 0.8], properties: ['GRABBABLE'] },
  { id: ID.bed, class_name: 'bed', category: 'Furniture', center: [12, 0.4, 2], properties: ['SITTABLE', 'LIEABLE', 'SURFACES'] },
  { id: ID.closet, class_name: 'closet', category: 'Furniture', center: [14, 1, -2], properties: ['CAN_OPEN', 'CONTAINERS'], states: ['OPEN'] },
  { id: ID.shirt, class_name: 'shirt', category: 'Props', center: [14, 1, -2], properties: ['GRABBABLE', 'CLOTHES'] },
  { id: ID.curtain1, class_name: 'curtains', category: 'Decor', center: [12, 1.5, -2.9], properties: ['CAN_OPEN'], states: ['CLOSED'] },
  { id: ID.curtain2, class_name: 'curtains', category: 'Decor', center: [12.5, 1.5, -2.9], properties: ['CAN_OPEN'], states: ['CLOSED'] },
  { id: ID.desk, class_name: 'desk', category: 'Furniture', center: [10, 0.4, 2], properties: ['SURFACES'] },
  { id: ID.hand, class_name: 'hand', category: 'Characters', center: [7, 1, 0], properties: ['BODY_PART'] },
];

const room: Record<number, number> = {};
for (const [ids, r] of [
  [[ID.door, ID.fridge, ID.apple, ID.table, ID.plate, ID.mug, ID.apple2, ID.microwave, ID.coffeemaker, ID.cabinet, ID.cereal], ID.kitchen],
  [[ID.character, ID.tv, ID.sofa, ID.chair, ID.coffeetable, ID.book, ID.pillow, ID.lamp, ID.cushion, ID.remote], ID.livingroom],
  [[ID.doorjamb, ID.bed, ID.closet, ID.shirt, ID.curtain1, ID.curtain2, ID.desk], ID.bedroom],
] as const) for (const id of ids) room[id] = r;

/** [from, relation, to], room edges first as in VirtualHome's files. */
const EDGES: [number, string, number][] = [
  ...Object.entries(room).map(([id, r]) => [Number(id), 'INSIDE', r] as [number, string, number]),
  [ID.apple, 'INSIDE', ID.fridge],
  [ID.cereal, 'INSIDE', ID.cabinet],
  [ID.shirt, 'INSIDE', ID.closet],
  [ID.curtain1, 'INSIDE', ID.curtain2],
  [ID.curtain2, 'INSIDE', ID.curtain1],
  [ID.plate, 'ON', ID.table],
  [ID.mug, 'ON', ID.table],
  [ID.apple2, 'ON', ID.table],
  [ID.book, 'ON', ID.coffeetable],
  [ID.pillow, 'ON', ID.sofa],
  [ID.cushion, 'ON', ID.chair],
  [ID.sofa, 'FACING', ID.tv],
  // One way only: the remote is close to the table, but names nothing close (no grab anchor).
  [ID.coffeetable, 'CLOSE', ID.remote],
  [ID.door, 'BETWEEN', ID.kitchen],
  [ID.door, 'BETWEEN', ID.livingroom],
  [ID.doorjamb, 'BETWEEN', ID.livingroom],
  [ID.doorjamb, 'BETWEEN', ID.bedroom],
];

/** Groups whose members are CLOSE to each other (both ways). */
const CLOSE_GROUPS: number[][] = [
  [ID.fridge, ID.apple],
  [ID.table, ID.plate, ID.mug, ID.apple2],
  [ID.microwave, ID.coffeemaker],
  [ID.cabinet, ID.cereal],
  [ID.sofa, ID.coffeetable, ID.book, ID.pillow],
  // The cushion is ON the chair but CLOSE to nothing: reachable only through closeness by ON.
  [ID.chair, ID.lamp],
  [ID.bed, ID.desk],
  [ID.closet, ID.shirt],
  [ID.curtain1, ID.curtain2],
];
for (const g of CLOSE_GROUPS) for (const a of g) for (const b of g) if (a !== b) EDGES.push([a, 'CLOSE', b]);

/** The apartment as a graph file's JSON value (a fresh copy each call). */
export function apartment(): VhGraph {
  return {
    nodes: NODES.map((n) => ({
      id: n.id,
      class_name: n.class_name,
      category: n.category,
      prefab_name: `test_${n.class_name}`,
      bounding_box: { center: n.center, size: n.size ?? [1, 1, 1] },
      properties: (n.properties ?? []) as VhGraph['nodes'][number]['properties'],
      states: (n.states ?? []) as VhGraph['nodes'][number]['states'],
    })),
    edges: EDGES.map(([from_id, relation_type, to_id]) => ({ from_id, relation_type: relation_type as VhGraph['edges'][number]['relation_type'], to_id })),
  };
}
