/** SnorkelSpatial tables (by query type, by action count, both) and the chance-level section. */
import { tableHtml } from '../../report/bench-page.js';
import type { ReportInput, ReportSection, ReportTable, ScoreCell } from '../types.js';
import { answerSpaceSize, QUERY_TYPES, type SnorkelItem } from './item.js';

const pct = (credit: number, n: number) => (n === 0 ? null : Math.round((credit / n) * 1000) / 10);

function pooled(cells: readonly ScoreCell[]): number | null {
  return pct(cells.reduce((s, c) => s + c.credit, 0), cells.reduce((s, c) => s + c.n, 0));
}

const byNumber = (a: string, b: string) => Number(a) - Number(b);

export function snorkelTables(cells: ScoreCell[]): ReportTable[] {
  const models = [...new Set(cells.map((c) => c.model))];
  const tasks = QUERY_TYPES.filter((t) => cells.some((c) => c.task === t));
  const levels = [...new Set(cells.map((c) => c.level))].sort(byNumber);
  const of = (model: string) => cells.filter((c) => c.model === model);
  return [
    {
      id: 'snorkel-queries', title: 'Accuracy@1 by query type, %', columns: ['model', ...tasks, 'all', 'invalid', 'failed'],
      rows: models.map((m) => [m, ...tasks.map((t) => pooled(of(m).filter((c) => c.task === t))), pooled(of(m)), of(m).reduce((s, c) => s + c.invalid, 0), of(m).reduce((s, c) => s + c.failed, 0)]),
      note: 'invalid: the final answer had no JSON object with the query\'s key and a value of the right form (after the answer attempts); failed: the request failed.',
    },
    {
      id: 'snorkel-actions', title: 'Accuracy@1 by number of actions, %', columns: ['model', ...levels.map((l) => `${l} actions`), 'all'],
      rows: models.map((m) => [m, ...levels.map((l) => pooled(of(m).filter((c) => c.level === l))), pooled(of(m))]),
    },
    {
      id: 'snorkel-grid', title: 'Accuracy@1 by query type and number of actions, %', columns: ['model', 'query', ...levels.map((l) => `${l} actions`), 'all'],
      rows: models.flatMap((m) => tasks.map((t) => {
        const mine = of(m).filter((c) => c.task === t);
        return [m, t, ...levels.map((l) => pooled(mine.filter((c) => c.level === l))), pooled(mine)];
      })),
    },
  ];
}

/** Chance per query type: the mean over items of 1 / (answers a uniform guess chooses among). */
export function chanceByQuery(items: Iterable<SnorkelItem>): Map<string, { items: number; chance: number }> {
  const acc = new Map<string, { items: number; sum: number }>();
  for (const i of items) {
    const a = acc.get(i.task) ?? { items: 0, sum: 0 };
    a.items++;
    a.sum += 1 / answerSpaceSize(i);
    acc.set(i.task, a);
  }
  return new Map([...acc].map(([t, a]) => [t, { items: a.items, chance: a.sum / a.items }]));
}

export async function snorkelSections(input: ReportInput<SnorkelItem>): Promise<ReportSection[]> {
  const chance = chanceByQuery(input.items.values());
  const models = [...new Set(input.cells.map((c) => c.model))];
  const round = (x: number) => Math.round(x * 10000) / 100;
  const table: ReportTable = {
    id: 'snorkel-chance', title: 'Chance per query type', columns: ['query', 'items', 'chance, %', ...models.map((m) => `${m}, %`)],
    rows: QUERY_TYPES.filter((t) => chance.has(t)).map((t) => [t, chance.get(t)!.items, round(chance.get(t)!.chance), ...models.map((m) => pooled(input.cells.filter((c) => c.model === m && c.task === t)))]),
    note: 'Chance is the expected accuracy of a uniform guess over each item\'s answer space (tile: width²; orientations: 4; relative location: (2·width−1)²; absolute location of a particle: (width + 2·board moves)² tile centres, of the board: (2·board moves + 1)² centroids), averaged over the items. The random baseline draws exactly so.',
  };
  return [{ id: 'snorkel-chance', title: table.title, html: tableHtml(table) }];
}
