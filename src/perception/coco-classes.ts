/**
 * COCO-80 class names in FastestDet's output order (its coco.names, Darknet spelling) and the
 * synonym table that maps caption nouns to them.
 */
import { GsrError } from '../util/errors.js';

export const COCO_CLASSES: readonly string[] = [
  'person', 'bicycle', 'car', 'motorbike', 'aeroplane', 'bus', 'train', 'truck', 'boat', 'traffic light',
  'fire hydrant', 'stop sign', 'parking meter', 'bench', 'bird', 'cat', 'dog', 'horse', 'sheep', 'cow',
  'elephant', 'bear', 'zebra', 'giraffe', 'backpack', 'umbrella', 'handbag', 'tie', 'suitcase', 'frisbee',
  'skis', 'snowboard', 'sports ball', 'kite', 'baseball bat', 'baseball glove', 'skateboard', 'surfboard',
  'tennis racket', 'bottle', 'wine glass', 'cup', 'fork', 'knife', 'spoon', 'bowl', 'banana', 'apple',
  'sandwich', 'orange', 'broccoli', 'carrot', 'hot dog', 'pizza', 'donut', 'cake', 'chair', 'sofa',
  'pottedplant', 'bed', 'diningtable', 'toilet', 'tvmonitor', 'laptop', 'mouse', 'remote', 'keyboard',
  'cell phone', 'microwave', 'oven', 'toaster', 'sink', 'refrigerator', 'book', 'clock', 'vase', 'scissors',
  'teddy bear', 'hair drier', 'toothbrush',
];

/**
 * Caption noun -> COCO classes (Darknet names). A noun that is itself a class name needs no entry.
 * Nouns of What'sUp captions first, then common variants.
 */
export const COCO_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  mug: ['cup'],
  cup: ['cup'],
  glass: ['wine glass', 'cup'],
  table: ['diningtable'],
  'dining table': ['diningtable'],
  desk: ['diningtable'],
  armchair: ['chair', 'sofa'],
  chair: ['chair'],
  couch: ['sofa'],
  sofa: ['sofa'],
  puppy: ['dog'],
  kitten: ['cat'],
  man: ['person'],
  woman: ['person'],
  boy: ['person'],
  girl: ['person'],
  child: ['person'],
  people: ['person'],
  player: ['person'],
  umpire: ['person'],
  batter: ['person'],
  catcher: ['person'],
  skier: ['person'],
  surfer: ['person'],
  rider: ['person'],
  guy: ['person'],
  lady: ['person'],
  kid: ['person'],
  motorcycle: ['motorbike'],
  bike: ['bicycle', 'motorbike'],
  airplane: ['aeroplane'],
  plane: ['aeroplane'],
  tv: ['tvmonitor'],
  television: ['tvmonitor'],
  monitor: ['tvmonitor'],
  'potted plant': ['pottedplant'],
  plant: ['pottedplant'],
  phone: ['cell phone'],
  cellphone: ['cell phone'],
  'mobile phone': ['cell phone'],
  'remote control': ['remote'],
  scissor: ['scissors'],
  'cell phone': ['cell phone'],
  'hair dryer': ['hair drier'],
  ball: ['sports ball'],
  doughnut: ['donut'],
  bag: ['handbag', 'backpack', 'suitcase'],
  purse: ['handbag'],
  luggage: ['suitcase'],
  fridge: ['refrigerator'],
  racket: ['tennis racket'],
  teddy: ['teddy bear'],
  bowl: ['bowl'],
};

/** Lower-case, single spaces, drop articles and a trailing "." so "The mug." finds "mug". */
export function normalisePhrase(phrase: string): string {
  return phrase
    .toLowerCase()
    .replace(/[.]+$/, '')
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^(a|an|the) /, '');
}

/**
 * Indices of the COCO classes a caption noun stands for; empty when it names none
 * (e.g. "plate", which COCO does not have). Plural nouns are tried without their "s".
 */
export function cocoClassesFor(phrase: string): number[] {
  const p = normalisePhrase(phrase);
  const tryNames = (n: string): readonly string[] | undefined =>
    COCO_SYNONYMS[n] ?? (COCO_CLASSES.includes(n) ? [n] : COCO_CLASSES.includes(n.replace(/ /g, '')) ? [n.replace(/ /g, '')] : undefined);
  const names = tryNames(p) ?? (p.endsWith('s') ? tryNames(p.slice(0, -1)) : undefined) ?? [];
  return names.map((n) => {
    const i = COCO_CLASSES.indexOf(n);
    if (i < 0) throw new GsrError(`synonym table names unknown COCO class "${n}"`);
    return i;
  });
}
