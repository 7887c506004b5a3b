/**
 * ET-Plan-Bench's released task files (GSR_SHARED_ET_PLAN_RELEASED), an optional check: every one of
 * the 2,023 tasks imports, the 83 FACING ones included, and the oracle's log (the ground truth, success
 * true) scores success 100% and LCS ratio 1 in every family with both metric sets.
 */
import { expect } from 'vitest';
import { itShared } from '../../helpers/shared.js';
import { scaled } from '../../helpers/cli.js';
import { join } from 'node:path';
import { importReleasedTasks } from '../../../src/benchmarks/et-plan/released.js';
import { oracleLogs, scoreReleasedLogs } from '../../../src/benchmarks/et-plan/released-logs.js';

itShared('imports all 2,023 released tasks, FACING included; the oracle\'s log scores 100% and LCS ratio 1', ['etPlanReleased'], async ({ etPlanReleased }) => {
  const r = await importReleasedTasks(join(etPlanReleased, 'tasks'));
  expect(r.skipped).toEqual([]);
  expect(r.tasks).toHaveLength(2023);
  // The counts of the data README (per file).
  expect(Object.fromEntries(r.files.map((f) => [f.family, f.tasks]))).toEqual({
    navigation: 714, 'navigation-spatial': 557, manipulation: 186, 'manipulation-spatial': 199, temporal: 85, 'multi-one-arm': 136, 'multi-two-arm': 146,
  });
  const facing = r.tasks.filter((t) => t.criteria.flat().some((c) => c.relation === 'FACING'));
  expect(facing.map((t) => t.family).reduce<Record<string, number>>((a, f) => ({ ...a, [f]: (a[f] ?? 0) + 1 }), {})).toEqual({ 'navigation-spatial': 46, 'manipulation-spatial': 37 });
  const scores = scoreReleasedLogs(r.tasks, oracleLogs(r.tasks));
  expect(scores.sets.map((s) => s.mode)).toEqual(['clean', 'released']);
  for (const s of scores.sets) {
    for (const row of s.rows) expect([s.mode, row.task, row.success_rate, row.lcs_ratio]).toEqual([s.mode, row.task, 1, 1]);
    expect(s.rows.find((x) => x.task === 'all')!.n).toBe(2023);
  }
}, scaled(60_000));
