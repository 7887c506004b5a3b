/**
 * The project's own class table for procedural apartments (docs/et-plan.md, "Apartments"): for each
 * class its category, properties, the states it may start in, a typical size in metres (x, y, z with
 * y up), and where it goes: furniture by room and placement, small things by the holders they may lie
 * on or in. Written by hand for this project; the numbers are rough household sizes.
 */
import type { VhProperty, VhState } from '../../formats/vh-graph.js';

type Size = readonly [number, number, number];

/** How a piece of furniture is placed in its room. */
export type Placement =
  /** Back against a wall, on the floor. */
  | { kind: 'wall' }
  /** Against a wall, hanging with its bottom at this height. */
  | { kind: 'mounted'; height: number }
  /** Anywhere on the floor away from the walls. */
  | { kind: 'center' }
  /** On the floor beside one of these pieces (chairs by tables). */
  | { kind: 'beside'; of: readonly string[] }
  /** Standing on one of these pieces (a television on its stand). */
  | { kind: 'on'; of: readonly string[] };

export interface ClassSpec {
  readonly name: string;
  /** Words for instructions ("kitchen table"). */
  readonly label: string;
  readonly category: string;
  readonly properties: readonly VhProperty[];
  /** Initial states: one drawn from each group. */
  readonly states: readonly (readonly VhState[])[];
  readonly size: Size;
  /** Small things: the classes they may lie on and in. */
  readonly on?: readonly string[];
  readonly in?: readonly string[];
}

const OPENABLE: readonly VhState[] = ['CLOSED', 'OPEN'];
/** Closed containers are the common case (objects hidden in them). */
const MOSTLY_CLOSED: readonly VhState[] = ['CLOSED', 'CLOSED', 'OPEN'];
const SWITCH_OFF: readonly VhState[] = ['OFF'];
const SWITCH_ANY: readonly VhState[] = ['ON', 'OFF'];

const cls = (name: string, label: string, category: string, properties: VhProperty[], size: Size, states: (readonly VhState[])[] = [], where: { on?: string[]; in?: string[] } = {}): ClassSpec => ({
  name,
  label,
  category,
  properties,
  states,
  size,
  ...where,
});

/** Structural nodes every room has, and doors. */
export const STRUCTURE = {
  floor: cls('floor', 'floor', 'Floor', [], [1, 0.02, 1]),
  wall: cls('wall', 'wall', 'Walls', [], [1, 2.8, 0.1]),
  ceiling: cls('ceiling', 'ceiling', 'Ceiling', [], [1, 0.02, 1]),
  ceilinglamp: cls('ceilinglamp', 'ceiling lamp', 'Lamps', ['HAS_SWITCH'], [0.5, 0.2, 0.5], [SWITCH_ANY]),
  door: cls('door', 'door', 'Doors', ['CAN_OPEN'], [1.0, 2.1, 0.08], [['OPEN']]),
  doorjamb: cls('doorjamb', 'doorjamb', 'Doors', [], [1.1, 2.2, 0.15]),
  character: cls('character', 'character', 'Characters', [], [0.5, 1.8, 0.4]),
} as const;

/** Furniture and appliances. */
export const FURNITURE: readonly ClassSpec[] = [
  cls('fridge', 'fridge', 'Appliances', ['CAN_OPEN', 'CONTAINERS'], [0.8, 1.8, 0.7], [MOSTLY_CLOSED]),
  cls('stove', 'stove', 'Appliances', ['CAN_OPEN', 'CONTAINERS', 'HAS_SWITCH', 'SURFACES'], [0.7, 0.9, 0.65], [['CLOSED'], SWITCH_OFF]),
  cls('microwave', 'microwave', 'Appliances', ['CAN_OPEN', 'CONTAINERS', 'HAS_SWITCH'], [0.5, 0.3, 0.4], [MOSTLY_CLOSED, SWITCH_OFF]),
  cls('dishwasher', 'dishwasher', 'Appliances', ['CAN_OPEN', 'CONTAINERS', 'HAS_SWITCH'], [0.6, 0.85, 0.6], [MOSTLY_CLOSED, SWITCH_OFF]),
  cls('toaster', 'toaster', 'Appliances', ['HAS_SWITCH'], [0.3, 0.2, 0.2], [SWITCH_OFF]),
  cls('coffeemaker', 'coffee maker', 'Appliances', ['HAS_SWITCH', 'RECIPIENT'], [0.25, 0.35, 0.25], [SWITCH_OFF]),
  cls('kitchencounter', 'kitchen counter', 'Furniture', ['SURFACES'], [1.8, 0.9, 0.65]),
  cls('kitchencabinet', 'kitchen cabinet', 'Furniture', ['CAN_OPEN', 'CONTAINERS'], [1.0, 0.9, 0.6], [MOSTLY_CLOSED]),
  cls('sink', 'sink', 'Furniture', ['CONTAINERS', 'RECIPIENT'], [0.7, 0.9, 0.55]),
  cls('bathroomsink', 'bathroom sink', 'Furniture', ['CONTAINERS', 'RECIPIENT'], [0.6, 0.85, 0.45]),
  cls('kitchentable', 'kitchen table', 'Furniture', ['SURFACES'], [1.4, 0.75, 0.85]),
  cls('chair', 'chair', 'Furniture', ['SITTABLE'], [0.45, 0.9, 0.45]),
  cls('garbagecan', 'garbage can', 'Furniture', ['CAN_OPEN', 'CONTAINERS'], [0.35, 0.6, 0.35], [['CLOSED']]),
  cls('sofa', 'sofa', 'Furniture', ['SITTABLE', 'LIEABLE', 'SURFACES'], [2.0, 0.85, 0.9]),
  cls('armchair', 'armchair', 'Furniture', ['SITTABLE'], [0.85, 0.9, 0.85]),
  cls('coffeetable', 'coffee table', 'Furniture', ['SURFACES'], [1.1, 0.45, 0.6]),
  cls('tvstand', 'TV stand', 'Furniture', ['SURFACES'], [1.4, 0.5, 0.45]),
  cls('tv', 'TV', 'Electronics', ['HAS_SWITCH', 'LOOKABLE'], [1.2, 0.7, 0.1], [SWITCH_OFF]),
  cls('bookshelf', 'bookshelf', 'Furniture', ['SURFACES', 'CONTAINERS'], [0.9, 1.8, 0.35]),
  cls('cabinet', 'cabinet', 'Furniture', ['CAN_OPEN', 'CONTAINERS', 'SURFACES'], [1.0, 1.0, 0.45], [MOSTLY_CLOSED]),
  cls('floorlamp', 'floor lamp', 'Lamps', ['HAS_SWITCH'], [0.4, 1.6, 0.4], [SWITCH_ANY]),
  cls('sidetable', 'side table', 'Furniture', ['SURFACES'], [0.5, 0.6, 0.5]),
  cls('tablelamp', 'table lamp', 'Lamps', ['HAS_SWITCH'], [0.3, 0.45, 0.3], [SWITCH_ANY]),
  cls('wallshelf', 'wall shelf', 'Furniture', ['SURFACES'], [1.0, 0.04, 0.3]),
  cls('bed', 'bed', 'Furniture', ['SITTABLE', 'LIEABLE', 'SURFACES'], [1.6, 0.6, 2.1]),
  cls('nightstand', 'nightstand', 'Furniture', ['CAN_OPEN', 'CONTAINERS', 'SURFACES'], [0.5, 0.55, 0.4], [MOSTLY_CLOSED]),
  cls('closet', 'closet', 'Furniture', ['CAN_OPEN', 'CONTAINERS'], [1.2, 2.0, 0.6], [MOSTLY_CLOSED]),
  cls('dresser', 'dresser', 'Furniture', ['CAN_OPEN', 'CONTAINERS', 'SURFACES'], [1.2, 0.85, 0.5], [MOSTLY_CLOSED]),
  cls('desk', 'desk', 'Furniture', ['SURFACES'], [1.3, 0.75, 0.65]),
  cls('computer', 'computer', 'Electronics', ['HAS_SWITCH', 'LOOKABLE'], [0.5, 0.45, 0.2], [SWITCH_OFF]),
  cls('filingcabinet', 'filing cabinet', 'Furniture', ['CAN_OPEN', 'CONTAINERS'], [0.5, 1.2, 0.6], [MOSTLY_CLOSED]),
  cls('toilet', 'toilet', 'Furniture', ['SITTABLE'], [0.4, 0.8, 0.7]),
  cls('bathtub', 'bathtub', 'Furniture', ['CONTAINERS'], [1.7, 0.6, 0.8]),
  cls('bathroomcabinet', 'bathroom cabinet', 'Furniture', ['CAN_OPEN', 'CONTAINERS'], [0.7, 0.7, 0.3], [MOSTLY_CLOSED]),
  cls('bathroomcounter', 'bathroom counter', 'Furniture', ['SURFACES'], [1.2, 0.85, 0.55]),
  cls('washingmachine', 'washing machine', 'Appliances', ['CAN_OPEN', 'CONTAINERS', 'HAS_SWITCH'], [0.6, 0.85, 0.6], [MOSTLY_CLOSED, SWITCH_OFF]),
  cls('towelrack', 'towel rack', 'Furniture', ['SURFACES'], [0.6, 1.0, 0.3]),
  cls('diningtable', 'dining table', 'Furniture', ['SURFACES'], [1.8, 0.75, 0.95]),
  cls('sideboard', 'sideboard', 'Furniture', ['CAN_OPEN', 'CONTAINERS', 'SURFACES'], [1.6, 0.85, 0.45], [MOSTLY_CLOSED]),
];

/** Grabbable things, with the holders they may lie on and in. */
export const OBJECTS: readonly ClassSpec[] = [
  // Food.
  cls('apple', 'apple', 'Food', ['GRABBABLE', 'EATABLE'], [0.08, 0.08, 0.08], [], { on: ['kitchentable', 'kitchencounter', 'diningtable', 'coffeetable', 'plate'], in: ['fridge', 'bowl', 'basket'] }),
  cls('banana', 'banana', 'Food', ['GRABBABLE', 'EATABLE'], [0.2, 0.04, 0.05], [], { on: ['kitchencounter', 'kitchentable', 'diningtable', 'plate'], in: ['basket', 'bowl'] }),
  cls('orange', 'orange', 'Food', ['GRABBABLE', 'EATABLE'], [0.08, 0.08, 0.08], [], { on: ['kitchentable', 'kitchencounter', 'diningtable', 'plate'], in: ['fridge', 'bowl', 'basket'] }),
  cls('bread', 'loaf of bread', 'Food', ['GRABBABLE', 'EATABLE', 'CUTTABLE'], [0.3, 0.12, 0.12], [], { on: ['kitchencounter', 'kitchentable', 'cuttingboard'], in: ['kitchencabinet', 'fridge'] }),
  cls('cereal', 'box of cereal', 'Food', ['GRABBABLE'], [0.2, 0.3, 0.07], [], { on: ['kitchencounter'], in: ['kitchencabinet'] }),
  cls('milk', 'carton of milk', 'Food', ['GRABBABLE', 'DRINKABLE', 'POURABLE'], [0.1, 0.25, 0.1], [], { on: ['kitchentable'], in: ['fridge'] }),
  cls('juice', 'bottle of juice', 'Food', ['GRABBABLE', 'DRINKABLE', 'POURABLE'], [0.1, 0.22, 0.1], [], { on: ['kitchentable', 'diningtable'], in: ['fridge'] }),
  cls('cheese', 'piece of cheese', 'Food', ['GRABBABLE', 'EATABLE', 'CUTTABLE'], [0.12, 0.06, 0.1], [], { on: ['kitchencounter', 'plate', 'cuttingboard'], in: ['fridge'] }),
  cls('cupcake', 'cupcake', 'Food', ['GRABBABLE', 'EATABLE'], [0.07, 0.07, 0.07], [], { on: ['plate', 'kitchentable', 'diningtable'], in: ['fridge'] }),
  cls('chips', 'bag of chips', 'Food', ['GRABBABLE', 'EATABLE'], [0.2, 0.28, 0.08], [], { on: ['coffeetable'], in: ['kitchencabinet', 'cabinet'] }),
  cls('chocolate', 'chocolate bar', 'Food', ['GRABBABLE', 'EATABLE'], [0.15, 0.02, 0.07], [], { on: ['coffeetable'], in: ['kitchencabinet', 'nightstand', 'box'] }),
  // Kitchenware.
  cls('plate', 'plate', 'Props', ['GRABBABLE', 'RECIPIENT', 'SURFACES'], [0.26, 0.03, 0.26], [], { on: ['kitchentable', 'diningtable', 'kitchencounter'], in: ['kitchencabinet', 'dishwasher', 'sideboard', 'sink'] }),
  cls('bowl', 'bowl', 'Props', ['GRABBABLE', 'RECIPIENT', 'CONTAINERS'], [0.18, 0.08, 0.18], [], { on: ['kitchentable', 'diningtable', 'kitchencounter', 'coffeetable'], in: ['kitchencabinet', 'dishwasher', 'sideboard'] }),
  cls('mug', 'mug', 'Props', ['GRABBABLE', 'RECIPIENT'], [0.09, 0.1, 0.09], [], { on: ['kitchentable', 'diningtable', 'kitchencounter', 'coffeetable', 'desk', 'nightstand'], in: ['kitchencabinet', 'dishwasher', 'sink'] }),
  cls('glass', 'glass', 'Props', ['GRABBABLE', 'RECIPIENT'], [0.07, 0.12, 0.07], [], { on: ['kitchentable', 'diningtable', 'nightstand', 'bathroomcounter'], in: ['kitchencabinet', 'sideboard', 'dishwasher'] }),
  cls('fork', 'fork', 'Props', ['GRABBABLE'], [0.02, 0.02, 0.19], [], { on: ['kitchentable', 'diningtable', 'plate'], in: ['kitchencabinet', 'dishwasher', 'sideboard', 'sink'] }),
  cls('knife', 'knife', 'Props', ['GRABBABLE'], [0.02, 0.02, 0.21], [], { on: ['kitchentable', 'diningtable', 'cuttingboard'], in: ['kitchencabinet', 'dishwasher', 'sideboard'] }),
  cls('spoon', 'spoon', 'Props', ['GRABBABLE'], [0.04, 0.02, 0.17], [], { on: ['kitchentable', 'diningtable', 'plate'], in: ['kitchencabinet', 'dishwasher', 'sideboard', 'sink'] }),
  cls('cookingpot', 'cooking pot', 'Props', ['GRABBABLE', 'RECIPIENT', 'CONTAINERS'], [0.28, 0.18, 0.28], [], { on: ['stove', 'kitchencounter'], in: ['kitchencabinet'] }),
  cls('fryingpan', 'frying pan', 'Props', ['GRABBABLE', 'RECIPIENT'], [0.3, 0.06, 0.3], [], { on: ['stove', 'kitchencounter'], in: ['kitchencabinet'] }),
  cls('cuttingboard', 'cutting board', 'Props', ['GRABBABLE', 'SURFACES'], [0.4, 0.02, 0.25], [], { on: ['kitchencounter'], in: ['kitchencabinet'] }),
  cls('dishsoap', 'bottle of dish soap', 'Props', ['GRABBABLE', 'POURABLE'], [0.07, 0.2, 0.05], [], { on: ['kitchencounter'], in: ['kitchencabinet'] }),
  // Living room and decoration.
  cls('book', 'book', 'Props', ['GRABBABLE', 'READABLE'], [0.16, 0.03, 0.23], [], { on: ['coffeetable', 'nightstand', 'desk', 'sidetable', 'wallshelf', 'bed', 'sofa'], in: ['bookshelf', 'cabinet', 'nightstand', 'box'] }),
  cls('magazine', 'magazine', 'Props', ['GRABBABLE', 'READABLE'], [0.21, 0.01, 0.28], [], { on: ['coffeetable', 'sofa', 'sidetable', 'desk'], in: ['cabinet', 'basket'] }),
  cls('remotecontrol', 'remote control', 'Electronics', ['GRABBABLE'], [0.05, 0.02, 0.18], [], { on: ['coffeetable', 'sofa', 'tvstand', 'sidetable'], in: ['cabinet'] }),
  cls('pillow', 'pillow', 'Props', ['GRABBABLE'], [0.5, 0.15, 0.4], [], { on: ['sofa', 'bed'], in: ['closet'] }),
  cls('cushion', 'cushion', 'Props', ['GRABBABLE'], [0.4, 0.12, 0.4], [], { on: ['sofa', 'bed'], in: ['closet', 'basket'] }),
  cls('blanket', 'blanket', 'Props', ['GRABBABLE', 'COVER_OBJECT'], [0.6, 0.15, 0.4], [], { on: ['bed', 'sofa'], in: ['closet', 'dresser'] }),
  cls('candle', 'candle', 'Decor', ['GRABBABLE'], [0.07, 0.12, 0.07], [], { on: ['coffeetable', 'diningtable', 'wallshelf', 'sideboard', 'sidetable', 'bathroomcounter'], in: ['cabinet', 'sideboard', 'box'] }),
  cls('vase', 'vase', 'Decor', ['GRABBABLE', 'RECIPIENT'], [0.15, 0.3, 0.15], [], { on: ['coffeetable', 'diningtable', 'sideboard', 'wallshelf', 'sidetable', 'dresser'], in: ['cabinet'] }),
  cls('photoframe', 'photo frame', 'Decor', ['GRABBABLE', 'LOOKABLE'], [0.2, 0.25, 0.05], [], { on: ['wallshelf', 'nightstand', 'desk', 'dresser', 'sidetable', 'bookshelf'] }),
  cls('plant', 'potted plant', 'Decor', ['GRABBABLE'], [0.3, 0.5, 0.3], [], { on: ['sidetable', 'desk', 'sideboard', 'coffeetable'] }),
  cls('boardgame', 'board game', 'Props', ['GRABBABLE'], [0.4, 0.08, 0.4], [], { on: ['coffeetable'], in: ['cabinet', 'closet', 'bookshelf'] }),
  cls('clock', 'clock', 'Electronics', ['GRABBABLE', 'LOOKABLE'], [0.2, 0.2, 0.06], [], { on: ['wallshelf', 'nightstand', 'bookshelf', 'desk', 'sideboard'] }),
  // Office.
  cls('pen', 'pen', 'Props', ['GRABBABLE'], [0.01, 0.01, 0.14], [], { on: ['desk', 'nightstand', 'kitchentable'], in: ['box', 'cabinet', 'filingcabinet'] }),
  cls('pencil', 'pencil', 'Props', ['GRABBABLE'], [0.01, 0.01, 0.18], [], { on: ['desk', 'kitchentable'], in: ['box', 'filingcabinet'] }),
  cls('notebook', 'notebook', 'Props', ['GRABBABLE', 'READABLE'], [0.15, 0.02, 0.21], [], { on: ['desk', 'nightstand', 'coffeetable', 'bookshelf'], in: ['filingcabinet', 'cabinet', 'box'] }),
  cls('paper', 'sheet of paper', 'Props', ['GRABBABLE', 'HAS_PAPER', 'READABLE'], [0.21, 0.005, 0.3], [], { on: ['desk'], in: ['folder', 'filingcabinet', 'box'] }),
  cls('folder', 'folder', 'Props', ['GRABBABLE', 'CONTAINERS'], [0.24, 0.03, 0.32], [], { on: ['desk', 'bookshelf'], in: ['filingcabinet', 'cabinet'] }),
  cls('laptop', 'laptop', 'Electronics', ['GRABBABLE', 'HAS_SWITCH'], [0.35, 0.03, 0.25], [SWITCH_OFF], { on: ['desk', 'coffeetable', 'bed', 'sofa'], in: ['cabinet'] }),
  cls('cellphone', 'phone', 'Electronics', ['GRABBABLE', 'HAS_SWITCH'], [0.07, 0.01, 0.15], [SWITCH_ANY], { on: ['nightstand', 'desk', 'coffeetable', 'sofa', 'kitchentable', 'bed', 'sidetable'] }),
  cls('headphones', 'pair of headphones', 'Electronics', ['GRABBABLE'], [0.18, 0.2, 0.08], [], { on: ['desk', 'nightstand'], in: ['box', 'cabinet'] }),
  cls('stapler', 'stapler', 'Props', ['GRABBABLE'], [0.15, 0.05, 0.04], [], { on: ['desk'], in: ['filingcabinet', 'box'] }),
  cls('keys', 'set of keys', 'Props', ['GRABBABLE'], [0.07, 0.02, 0.03], [], { on: ['sidetable', 'nightstand', 'kitchentable', 'desk', 'wallshelf'], in: ['box', 'bowl'] }),
  cls('wallet', 'wallet', 'Props', ['GRABBABLE'], [0.11, 0.02, 0.09], [], { on: ['nightstand', 'desk', 'sidetable', 'dresser'], in: ['box', 'dresser'] }),
  cls('glasses', 'pair of glasses', 'Props', ['GRABBABLE'], [0.14, 0.04, 0.05], [], { on: ['nightstand', 'desk', 'coffeetable'], in: ['box'] }),
  // Bedroom.
  cls('shirt', 'shirt', 'Props', ['GRABBABLE', 'CLOTHES'], [0.35, 0.03, 0.3], [], { on: ['bed', 'dresser'], in: ['closet', 'dresser', 'washingmachine', 'basket'] }),
  cls('pants', 'pair of pants', 'Props', ['GRABBABLE', 'CLOTHES'], [0.35, 0.04, 0.3], [], { on: ['bed'], in: ['closet', 'dresser', 'washingmachine', 'basket'] }),
  cls('socks', 'pair of socks', 'Props', ['GRABBABLE', 'CLOTHES'], [0.1, 0.05, 0.1], [], { in: ['dresser', 'basket', 'washingmachine', 'nightstand'] }),
  cls('shoes', 'pair of shoes', 'Props', ['GRABBABLE', 'CLOTHES'], [0.3, 0.12, 0.25], [], { in: ['closet'] }),
  cls('hat', 'hat', 'Props', ['GRABBABLE', 'CLOTHES'], [0.3, 0.12, 0.28], [], { on: ['wallshelf', 'dresser'], in: ['closet'] }),
  cls('box', 'box', 'Props', ['GRABBABLE', 'CAN_OPEN', 'CONTAINERS'], [0.3, 0.18, 0.24], [OPENABLE], { on: ['wallshelf', 'bookshelf', 'desk', 'dresser'], in: ['closet', 'cabinet'] }),
  cls('jewelrybox', 'jewelry box', 'Props', ['GRABBABLE', 'CAN_OPEN', 'CONTAINERS'], [0.2, 0.1, 0.14], [OPENABLE], { on: ['dresser', 'nightstand'], in: ['closet'] }),
  cls('basket', 'basket', 'Props', ['GRABBABLE', 'CONTAINERS'], [0.45, 0.3, 0.35], [], { on: ['kitchencounter', 'diningtable'], in: ['closet'] }),
  cls('teddybear', 'teddy bear', 'Props', ['GRABBABLE'], [0.25, 0.3, 0.2], [], { on: ['bed', 'sofa', 'wallshelf'], in: ['closet'] }),
  // Bathroom.
  cls('toothbrush', 'toothbrush', 'Props', ['GRABBABLE'], [0.02, 0.02, 0.19], [], { on: ['bathroomcounter'], in: ['bathroomcabinet', 'bathroomsink'] }),
  cls('toothpaste', 'tube of toothpaste', 'Props', ['GRABBABLE', 'CREAM'], [0.05, 0.04, 0.19], [], { on: ['bathroomcounter'], in: ['bathroomcabinet'] }),
  cls('soap', 'bar of soap', 'Props', ['GRABBABLE'], [0.09, 0.03, 0.06], [], { on: ['bathroomcounter'], in: ['bathroomcabinet', 'bathtub', 'bathroomsink'] }),
  cls('shampoo', 'bottle of shampoo', 'Props', ['GRABBABLE', 'POURABLE'], [0.08, 0.22, 0.05], [], { on: ['bathroomcounter'], in: ['bathtub', 'bathroomcabinet'] }),
  cls('facecream', 'jar of face cream', 'Props', ['GRABBABLE', 'CREAM'], [0.07, 0.06, 0.07], [], { on: ['bathroomcounter', 'dresser', 'nightstand'], in: ['bathroomcabinet'] }),
  cls('towel', 'towel', 'Props', ['GRABBABLE', 'COVER_OBJECT'], [0.4, 0.05, 0.3], [], { on: ['towelrack', 'bathroomcounter', 'bed'], in: ['closet', 'washingmachine', 'basket'] }),
  cls('toiletpaper', 'roll of toilet paper', 'Props', ['GRABBABLE', 'HAS_PAPER'], [0.11, 0.11, 0.11], [], { on: ['bathroomcounter'], in: ['bathroomcabinet'] }),
  cls('hairbrush', 'hairbrush', 'Props', ['GRABBABLE'], [0.07, 0.04, 0.23], [], { on: ['bathroomcounter', 'dresser', 'nightstand'], in: ['bathroomcabinet'] }),
];

/** Room types and their furniture: class, how many (min, max), placement. Required pieces come first. */
export interface FurnitureRule {
  readonly cls: string;
  readonly count: readonly [number, number];
  readonly place: Placement;
}

const wall: Placement = { kind: 'wall' };
const center: Placement = { kind: 'center' };
const r = (c: string, min: number, max: number, place: Placement): FurnitureRule => ({ cls: c, count: [min, max], place });

export const ROOM_TYPES: Readonly<Record<string, { label: string; furniture: readonly FurnitureRule[] }>> = {
  kitchen: {
    label: 'kitchen',
    furniture: [
      r('fridge', 1, 1, wall), r('kitchencounter', 1, 2, wall), r('stove', 1, 1, wall), r('sink', 1, 1, wall), r('kitchencabinet', 1, 2, wall),
      r('kitchentable', 1, 1, center), r('chair', 2, 4, { kind: 'beside', of: ['kitchentable'] }), r('dishwasher', 0, 1, wall),
      r('garbagecan', 0, 1, wall), r('microwave', 1, 1, { kind: 'on', of: ['kitchencounter'] }), r('toaster', 0, 1, { kind: 'on', of: ['kitchencounter'] }),
      r('coffeemaker', 0, 1, { kind: 'on', of: ['kitchencounter'] }),
    ],
  },
  livingroom: {
    label: 'living room',
    furniture: [
      r('sofa', 1, 1, wall), r('coffeetable', 1, 1, center), r('tvstand', 1, 1, wall), r('tv', 1, 1, { kind: 'on', of: ['tvstand'] }),
      r('bookshelf', 1, 1, wall), r('armchair', 0, 2, center), r('cabinet', 0, 1, wall), r('sidetable', 0, 2, wall), r('floorlamp', 0, 1, wall),
      r('wallshelf', 0, 2, { kind: 'mounted', height: 1.5 }), r('tablelamp', 0, 1, { kind: 'on', of: ['sidetable'] }),
    ],
  },
  bedroom: {
    label: 'bedroom',
    furniture: [
      r('bed', 1, 1, wall), r('closet', 1, 1, wall), r('nightstand', 1, 2, wall), r('dresser', 0, 1, wall), r('desk', 0, 1, wall),
      r('chair', 0, 1, { kind: 'beside', of: ['desk'] }), r('wallshelf', 0, 2, { kind: 'mounted', height: 1.5 }), r('tablelamp', 0, 1, { kind: 'on', of: ['nightstand', 'desk'] }),
    ],
  },
  bathroom: {
    label: 'bathroom',
    furniture: [
      r('toilet', 1, 1, wall), r('bathroomsink', 1, 1, wall), r('bathroomcabinet', 1, 1, { kind: 'mounted', height: 1.3 }), r('bathroomcounter', 0, 1, wall),
      r('bathtub', 0, 1, wall), r('washingmachine', 0, 1, wall), r('towelrack', 0, 1, wall),
    ],
  },
  office: {
    label: 'office',
    furniture: [
      r('desk', 1, 1, wall), r('chair', 1, 1, { kind: 'beside', of: ['desk'] }), r('computer', 1, 1, { kind: 'on', of: ['desk'] }), r('bookshelf', 1, 2, wall),
      r('filingcabinet', 1, 1, wall), r('wallshelf', 0, 2, { kind: 'mounted', height: 1.5 }), r('armchair', 0, 1, center), r('cabinet', 0, 1, wall),
    ],
  },
  diningroom: {
    label: 'dining room',
    furniture: [
      r('diningtable', 1, 1, center), r('chair', 4, 6, { kind: 'beside', of: ['diningtable'] }), r('sideboard', 1, 1, wall),
      r('wallshelf', 0, 1, { kind: 'mounted', height: 1.5 }), r('bookshelf', 0, 1, wall),
    ],
  },
};

/** Every apartment has these rooms; more are drawn from EXTRA_ROOMS. */
export const BASE_ROOMS = ['kitchen', 'livingroom', 'bedroom', 'bathroom'] as const;
export const EXTRA_ROOMS = ['bedroom', 'office', 'diningroom', 'bathroom'] as const;

/** Every class of the table by name. */
export const CLASSES: ReadonlyMap<string, ClassSpec> = new Map([...Object.values(STRUCTURE), ...FURNITURE, ...OBJECTS].map((c) => [c.name, c]));

/** Tables for readable instructions; any class outside the table reads as its name with `_` as spaces. */
export function classLabel(name: string): string {
  return CLASSES.get(name)?.label ?? ROOM_TYPES[name]?.label ?? name.replace(/_/g, ' ');
}

/** Classes a thing of class `name` may lie on or in (empty for classes outside the table). */
export function holdersOf(name: string): { on: readonly string[]; in: readonly string[] } {
  const c = CLASSES.get(name);
  return { on: c?.on ?? [], in: c?.in ?? [] };
}
