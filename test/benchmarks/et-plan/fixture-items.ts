/**
 * Hand-written ET-Plan-Bench tasks on the hand-written test apartment (apartment.ts), one or two per
 * family, for the episode loop's tests until the task generator is merged: each has its criteria,
 * a ground-truth plan in the generator's style and an oracle plan. `writeFixtureItemSet(dir)` writes
 * them as an item set (items.jsonl, context.json, apartment.json) a pipeline can take with `items:`.
 * Run as a script (`npx tsx test/benchmarks/et-plan/fixture-items.ts DIR`) to write one by hand.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeBenchItems } from '../../../src/formats/bench-item.js';
import { writeVhGraph } from '../../../src/formats/vh-graph.js';
import { writeJsonAtomic } from '../../../src/util/fs.js';
import { EngineGraph, nodePosition, segmentLength, walkDistance } from '../../../src/benchmarks/et-plan/engine/index.js';
import { parseEtPlanItem, type Criterion, type EtPlanItem, type NodeRef } from '../../../src/benchmarks/et-plan/task.js';
import { apartment, ID } from './apartment.js';

export const APARTMENT_FILE = 'apartment.json';

const graph = new EngineGraph(apartment());
const ref = (id: number): NodeRef => ({ id, class: graph.node(id)!.className });
const close = (id: number): Criterion => ({ relation: 'CLOSE', from: 'character', to: ref(id) });
const rel = (relation: 'ON' | 'INSIDE', a: number, b: number): Criterion => ({ relation, from: ref(a), to: ref(b) });
const walk = (id: number) => `[walk] <${graph.node(id)!.className}> (${id})`;
const one = (verb: string, id: number) => `[${verb}] <${graph.node(id)!.className}> (${id})`;
const two = (verb: string, a: number, b: number) => `[${verb}] <${graph.node(a)!.className}> (${a}) <${graph.node(b)!.className}> (${b})`;
const walks = (plan: string[]) => plan.filter((l) => l.startsWith('[walk]')).map((l) => Number(/\((\d+)\)/.exec(l)![1]));

interface Spec extends Pick<EtPlanItem, 'id' | 'task' | 'instruction' | 'criteria' | 'targets' | 'ground_truth' | 'oracle' | 'step_cap'> {
  start: number;
  arms?: 1 | 2;
  level?: string;
  subsets?: EtPlanItem['subsets'];
  constraint?: EtPlanItem['constraint'];
}

const SPECS: Spec[] = [
  {
    id: 'nav-book', task: 'navigation', start: ID.kitchen, instruction: 'Find the book.', criteria: [[close(ID.book)]], targets: [ref(ID.book)],
    ground_truth: [walk(ID.livingroom), walk(ID.coffeetable), walk(ID.book), one('grab', ID.book)], oracle: [walk(ID.book)], step_cap: 20,
  },
  {
    id: 'nav-fridge-apple', task: 'navigation', start: ID.bedroom, subsets: ['occlusion-size', 'occlusion-distance'], instruction: 'Find the apple in the fridge.',
    criteria: [[close(ID.apple)]], targets: [ref(ID.apple)], constraint: { relation: 'INSIDE', anchor: ref(ID.fridge) },
    ground_truth: [walk(ID.kitchen), walk(ID.fridge), one('open', ID.fridge), walk(ID.apple), one('grab', ID.apple)], oracle: [walk(ID.fridge)], step_cap: 20,
  },
  {
    id: 'nav-spatial-apple', task: 'navigation-spatial', start: ID.livingroom, instruction: 'Find the apple on the kitchen table.',
    criteria: [[close(ID.apple2)]], targets: [ref(ID.apple2)], constraint: { relation: 'ON', anchor: ref(ID.table) },
    ground_truth: [walk(ID.kitchen), walk(ID.table), walk(ID.apple2), one('grab', ID.apple2)], oracle: [walk(ID.apple2)], step_cap: 20,
  },
  {
    id: 'man-mug-microwave', task: 'manipulation', start: ID.bedroom, instruction: 'Put the mug into the microwave.',
    criteria: [[rel('INSIDE', ID.mug, ID.microwave), close(ID.microwave)]], targets: [ref(ID.mug), ref(ID.microwave)],
    ground_truth: [walk(ID.kitchen), walk(ID.table), walk(ID.mug), one('grab', ID.mug), walk(ID.microwave), one('open', ID.microwave), two('putin', ID.mug, ID.microwave), one('close', ID.microwave)],
    oracle: [walk(ID.mug), one('grab', ID.mug), walk(ID.microwave), one('open', ID.microwave), two('putin', ID.mug, ID.microwave)], step_cap: 40,
  },
  {
    id: 'temporal-apple-plate-sofa', task: 'temporal', start: ID.kitchen, instruction: 'Put the apple from the table on the plate, then put the plate on the sofa.',
    criteria: [[rel('INSIDE', ID.apple2, ID.plate)], [rel('ON', ID.plate, ID.sofa)]], targets: [ref(ID.apple2), ref(ID.plate), ref(ID.sofa)],
    ground_truth: [walk(ID.table), walk(ID.apple2), one('grab', ID.apple2), walk(ID.plate), two('putin', ID.apple2, ID.plate), one('grab', ID.plate), walk(ID.livingroom), walk(ID.sofa), two('putback', ID.plate, ID.sofa)],
    oracle: [walk(ID.apple2), one('grab', ID.apple2), walk(ID.plate), two('putin', ID.apple2, ID.plate), one('grab', ID.plate), walk(ID.sofa), two('putback', ID.plate, ID.sofa)], step_cap: 75,
  },
  {
    id: 'multi-one-arm', task: 'multi-one-arm', start: ID.kitchen, arms: 1, instruction: 'Put the book and the pillow on the bed.',
    criteria: [[rel('ON', ID.book, ID.bed), rel('ON', ID.pillow, ID.bed)]], targets: [ref(ID.book), ref(ID.pillow), ref(ID.bed)],
    ground_truth: [walk(ID.book), one('grab', ID.book), walk(ID.bed), two('putback', ID.book, ID.bed), walk(ID.pillow), one('grab', ID.pillow), walk(ID.bed), two('putback', ID.pillow, ID.bed)],
    oracle: [walk(ID.book), one('grab', ID.book), walk(ID.bed), two('putback', ID.book, ID.bed), walk(ID.pillow), one('grab', ID.pillow), walk(ID.bed), two('putback', ID.pillow, ID.bed)], step_cap: 50,
  },
  {
    id: 'multi-two-arm', task: 'multi-two-arm', start: ID.kitchen, arms: 2, instruction: 'Put the book and the pillow on the bed, using both arms.',
    criteria: [[rel('ON', ID.book, ID.bed), rel('ON', ID.pillow, ID.bed)]], targets: [ref(ID.book), ref(ID.pillow), ref(ID.bed)],
    ground_truth: [walk(ID.book), one('grab', ID.book), walk(ID.pillow), one('grab', ID.pillow), walk(ID.bed), two('putback', ID.book, ID.bed), two('putback', ID.pillow, ID.bed)],
    oracle: [walk(ID.book), one('grab', ID.book), walk(ID.pillow), one('grab', ID.pillow), walk(ID.bed), two('putback', ID.book, ID.bed), two('putback', ID.pillow, ID.bed)], step_cap: 50,
  },
];

/** The fixture tasks as items (`root` left out: they resolve against the folder they are written to). */
export function fixtureItems(): EtPlanItem[] {
  return SPECS.map((s) => {
    const startAt = nodePosition(graph, s.start);
    const size = graph.node(s.targets[0].id)!.raw.bounding_box!.size;
    return parseEtPlanItem({
      id: s.id, benchmark: 'et-plan', task: s.task, level: s.level ?? '', apartment: APARTMENT_FILE, start_room: ref(s.start),
      instruction: s.instruction, phrasings: [s.instruction], criteria: s.criteria, targets: s.targets, ...(s.constraint ? { constraint: s.constraint } : {}),
      arms: s.arms ?? 1, ground_truth: s.ground_truth, oracle: s.oracle, step_cap: s.step_cap, subsets: s.subsets ?? [],
      figures: {
        target_size: size[0] * size[1] * size[2],
        start_distance: segmentLength(startAt, nodePosition(graph, s.targets[0].id)),
        ground_truth_distance: walkDistance(graph, walks(s.ground_truth), { start: startAt }),
        oracle_distance: walkDistance(graph, walks(s.oracle), { start: startAt }),
      },
    });
  });
}

/** Writes the fixture item set into `dir` (created); `copies` repeats every task under new ids. */
export async function writeFixtureItemSet(dir: string, copies = 1): Promise<EtPlanItem[]> {
  mkdirSync(dir, { recursive: true });
  await writeVhGraph(join(dir, APARTMENT_FILE), apartment());
  const items = Array.from({ length: copies }, (_, k) => fixtureItems().map((i) => (copies === 1 ? i : { ...i, id: `${i.id}-${k}` }))).flat();
  await writeBenchItems(join(dir, 'items.jsonl'), items);
  await writeJsonAtomic(join(dir, 'context.json'), null);
  return items;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = resolve(process.argv[2] ?? 'et-plan-fixture-items');
  const items = await writeFixtureItemSet(dir, Number(process.argv[3] ?? 1));
  console.log(`wrote ${items.length} items to ${dir}`);
}
