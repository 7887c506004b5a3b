/**
 * Speed of the statistics and the report on realistic sizes: OLS fits, bootstrap CIs over a full
 * benchmark's items (4,958), leave-one-out and rounding ranges, loading a full results folder, and
 * rendering the HTML report of the shipped example results.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapMean, buildReasoningTable, leaveOneOut, loadAllResults, loadModelResults, ols, roundingSensitivity, type RegressionTable } from '../src/analysis/index.js';
import { seededRandom } from '../src/util/random.js';
import { renderHtmlReport } from '../src/report/index.js';
import { writeJsonAtomic, writeJsonlAtomic } from '../src/util/fs.js';

function timeIt<T>(fn: () => T, reps: number): { ms_per_call: number; result: T } {
  const t0 = performance.now();
  let result!: T;
  for (let i = 0; i < reps; i++) result = fn();
  return { ms_per_call: (performance.now() - t0) / reps, result };
}

export default async function bench() {
  const x = [0.05, 0.12, 0.18, 0.22, 0.31, 0.35, 0.42, 0.5, 0.58];
  const y = [0.31, 0.36, 0.35, 0.44, 0.47, 0.52, 0.5, 0.61, 0.66];
  const olsSimple = timeIt(() => ols(y, { x }), 2000).ms_per_call;
  const rows = readFileSync(new URL('../test/analysis/fixtures/regression-data.csv', import.meta.url), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  const col = (i: number) => rows.map((r) => Number(r[i]));
  const olsTwo = timeIt(() => ols(col(1), { x1: col(2), x2: col(3) }), 1000).ms_per_call;

  const rand = seededRandom(1);
  const items = Array.from({ length: 4958 }, () => (rand() < 0.6 ? 1 : 0));
  const boot = timeIt(() => bootstrapMean(items, { resamples: 2000, seed: 0 }), 5).ms_per_call;

  const n = 16;
  const table: RegressionTable = {
    labels: Array.from({ length: n }, (_, i) => `m${i}`),
    y: { name: 'y', values: Array.from({ length: n }, () => rand()) },
    x: [{ name: 'x', values: Array.from({ length: n }, () => rand()) }],
    skipped: [],
  };
  const loo = timeIt(() => leaveOneOut(table), 20).ms_per_call;
  const rounding = timeIt(() => roundingSensitivity(table.x[0].values, table.y.values, 0.05), 20).ms_per_call;

  // A full-size results folder: 4,958 items x 4 rotations.
  const dir = mkdtempSync(join(tmpdir(), 'gsr-bench-analysis-'));
  const splits = { 'whatsup-a': 412, 'whatsup-b': 408, 'coco-one': 2247, 'coco-two': 440, 'gqa-one': 1160, 'gqa-two': 291 };
  const records = Object.entries(splits).flatMap(([split, count]) =>
    Array.from({ length: count * 4 }, (_, k) => ({
      key: `${split}-${k}`, item: `${split}/${Math.floor(k / 4)}`, split, relation: 'left', task: 'tg', rotation: k % 4,
      permutation: [0, 1, 2, 3].map((v) => (v + k) % 4), output: 'A mug to the left of a table', extracted: null, correct: rand() < 0.7, status: 'ok',
    })),
  );
  await writeJsonlAtomic(join(dir, 'big', 'reasoning-items.jsonl'), records);
  await writeJsonAtomic(join(dir, 'big', 'reasoning.json'), {
    model: 'big', task: 'tg', splits: Object.fromEntries(Object.entries(splits).map(([s, c]) => [s, { n: c, circular: 0.3, vanilla: 0.7, unparsed: 0 }])),
    total_average: { circular: 0.3, vanilla: 0.7 },
  });
  let t0 = performance.now();
  const big = await loadModelResults(join(dir, 'big'));
  const loadMs = performance.now() - t0;
  t0 = performance.now();
  buildReasoningTable([big], { seed: 0, resamples: 2000 });
  const table1Ms = performance.now() - t0;
  rmSync(dir, { recursive: true, force: true });

  const examples = ['model-alpha', 'model-beta', 'model-gamma', 'model-delta'].map((m) => new URL(`../test/report/fixtures/example-results/${m}`, import.meta.url).pathname);
  const loaded = await loadAllResults(examples);
  t0 = performance.now();
  const html = await renderHtmlReport(loaded, { generated: 'bench' });
  const reportMs = performance.now() - t0;

  return {
    ols_one_regressor_9_points_ms: +olsSimple.toFixed(4),
    ols_two_regressors_32_points_ms: +olsTwo.toFixed(4),
    bootstrap_4958_items_2000_resamples_ms: +boot.toFixed(1),
    leave_one_out_16_models_ms: +loo.toFixed(2),
    rounding_ranges_16_models_ms: +rounding.toFixed(2),
    load_results_19832_item_records_ms: +loadMs.toFixed(1),
    table1_six_splits_with_cis_ms: +table1Ms.toFixed(1),
    report_example_4_models_no_images_ms: +reportMs.toFixed(1),
    report_example_html_bytes: html.length,
  };
}
