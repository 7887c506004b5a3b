/**
 * Import of ET-Plan-Bench's released task files as text. The files here are crafted by the test in
 * the released format (README of the VirtualHome material, section 5); nothing of the released files
 * themselves is used.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../helpers/temp.js';
import { readEtPlanReleasedTasks } from '../../../src/formats/et-plan-released.js';
import { importReleasedTasks, parseReleasedCriteria, releasedPlanLine, releasedStats } from '../../../src/benchmarks/et-plan/released.js';
import { runCli, scaled } from '../../helpers/cli.js';

const temp = useTempDirs('gsr-released-');

const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** A checkout with two of the seven files, one nested, one a JSON array. */
async function checkout(): Promise<string> {
  const root = await temp();
  await mkdir(join(root, 'data', 'tasks'), { recursive: true });
  await writeFile(
    join(root, 'data', 'tasks', 'navigation_tasks.jsonl'),
    jsonl([
      { task: 'Walk to the toy box.', task_completion_criterion: '(CLOSE, robot, toybox)', env_id: 3, ground_truth_plan: ['<char0> [walk] <bedroom> (12)', '<char0> [walk] <toybox> (40)'] },
      { task: 'Go find the kettle.', task_completion_criterion: '(CLOSE,robot,kettle)', env_id: '7', ground_truth_plan: ['<char0> [walk] <kitchen> (2)', '<char0> [walk] <kettle> (88)', '<char0> [grab] <kettle> (88)'] },
    ]),
  );
  await writeFile(
    join(root, 'data', 'navigation_and_manipulation_tasks_with_temporal_constraint.json'),
    JSON.stringify([
      {
        task: 'Put the spoon in the cup, then the cup on the shelf.',
        task_completion_criterion: 'STEP_1: (CLOSE, robot, spoon)(CLOSE, robot, cup)(INSIDE, spoon, cup) STEP_2:(CLOSE, robot, cup)(ON, cup, shelf)',
        env_id: 0,
        ground_truth_plan: ['<char0> [walk] <spoon> (5)', '<char0> [grab] <spoon> (5)', '<char0> [walk] <cup> (6)', '<char0> [putin] <spoon> (5) <cup> (6)', '<char0> [grab] <cup> (6)', '<char0> [walk] <shelf> (7)', '<char0> [put] <cup> (6) <shelf> (7)'],
      },
    ]),
  );
  // Not a released file name: ignored. A dot folder: skipped.
  await writeFile(join(root, 'data', 'other.jsonl'), '{"x": 1}\n');
  await mkdir(join(root, '.git'));
  await writeFile(join(root, '.git', 'navigation_tasks.jsonl'), 'not json\n');
  return root;
}

describe('released criteria and plans', () => {
  it('parses (RELATION, a, b) triples and STEP_k splits, robot as the character', () => {
    expect(parseReleasedCriteria('(CLOSE, robot, clock)(FACING, clock, tv)')[0][1]).toEqual({ relation: 'FACING', from: 'clock', to: 'tv' });
    expect(parseReleasedCriteria('(CLOSE, robot, apple) (INSIDE, apple, fridge)')).toEqual([
      [
        { relation: 'CLOSE', from: 'character', to: 'apple' },
        { relation: 'INSIDE', from: 'apple', to: 'fridge' },
      ],
    ]);
    expect(parseReleasedCriteria('STEP_1: (INSIDE, a, b) STEP_2:(ON, b, c)(CLOSE, robot, c)')).toEqual([
      [{ relation: 'INSIDE', from: 'a', to: 'b' }],
      [
        { relation: 'ON', from: 'b', to: 'c' },
        { relation: 'CLOSE', from: 'character', to: 'c' },
      ],
    ]);
  });

  it('rejects what is not criteria, with the reason', () => {
    expect(() => parseReleasedCriteria('apple in fridge')).toThrow(/unexpected text "apple in fridge"/);
    expect(() => parseReleasedCriteria('')).toThrow(/no \(RELATION, a, b\) triple/);
    expect(() => parseReleasedCriteria('(NEAR, robot, tv)')).toThrow(/relation "NEAR" \(expected CLOSE, ON, INSIDE, FACING\)/);
    expect(() => parseReleasedCriteria('STEP_2: (ON, a, b)')).toThrow(/STEP_2 where STEP_1 was expected/);
    expect(() => parseReleasedCriteria('(ON, a, b) STEP_1: (ON, a, b)')).toThrow(/text before STEP_1/);
    expect(() => parseReleasedCriteria('STEP_1: (ON, a, b) STEP_2:')).toThrow(/STEP_2: no \(RELATION/);
  });

  it('turns Unity lines into engine lines: no <char0>, [put] as [putback]', () => {
    expect(releasedPlanLine('<char0> [walk] <kitchen> (205)')).toBe('[walk] <kitchen> (205)');
    expect(releasedPlanLine('<char0> [put] <cup> (6) <shelf> (7)')).toBe('[putback] <cup> (6) <shelf> (7)');
    expect(releasedPlanLine('<char0> [putin] <a> (1) <b> (2)')).toBe('[putin] <a> (1) <b> (2)');
    expect(() => releasedPlanLine('<char0> walk to kitchen')).toThrow(/does not parse \(Cannot parse action\)/);
  });
});

describe('importReleasedTasks', () => {
  it('finds the files under the root, parses every record and names its file and line', async () => {
    const r = await importReleasedTasks(await checkout());
    expect(r.files).toEqual([
      { file: join('data', 'tasks', 'navigation_tasks.jsonl'), family: 'navigation', tasks: 2 },
      { file: join('data', 'navigation_and_manipulation_tasks_with_temporal_constraint.json'), family: 'temporal', tasks: 1 },
    ]);
    expect(r.tasks[1]).toEqual({
      id: 'navigation_tasks/2',
      family: 'navigation',
      file: join('data', 'tasks', 'navigation_tasks.jsonl'),
      line: 2,
      task: 'Go find the kettle.',
      env_id: 7,
      criteria: [[{ relation: 'CLOSE', from: 'character', to: 'kettle' }]],
      ground_truth: ['[walk] <kitchen> (2)', '[walk] <kettle> (88)', '[grab] <kettle> (88)'],
    });
    expect(r.tasks[2].criteria).toHaveLength(2);
    expect(r.tasks[2].ground_truth.at(-1)).toBe('[putback] <cup> (6) <shelf> (7)');
    const stats = releasedStats(r.tasks);
    expect(stats.navigation).toMatchObject({ tasks: 2, plan: { min: 2, mean: 2.5, max: 3 }, verbs: ['grab', 'walk'], steps: { 1: 2 }, relations: { CLOSE: 2 } });
    expect(stats.temporal).toMatchObject({ tasks: 1, steps: { 2: 1 }, relations: { CLOSE: 3, INSIDE: 1, ON: 1 }, verbs: ['grab', 'putback', 'putin', 'walk'] });
  });

  it('is all or nothing, unless skipping bad records', async () => {
    const root = await checkout();
    await writeFile(join(root, 'navi_and_mani_multi_two_arm.jsonl'), jsonl([{ task: 'x', task_completion_criterion: '(ON, a, b)', env_id: -1, ground_truth_plan: ['[walk] <a> (1)'] }, { task: 'y', task_completion_criterion: '(ON, a, b)', env_id: 1, ground_truth_plan: ['[walk] <a> (1)'] }]));
    await expect(importReleasedTasks(root)).rejects.toThrow('navi_and_mani_multi_two_arm.jsonl:1: env_id: expected a non-negative integer');
    const r = await importReleasedTasks(root, { skipInvalid: true });
    expect(r.skipped).toEqual(['navi_and_mani_multi_two_arm.jsonl:1: env_id: expected a non-negative integer']);
    expect(r.files.at(-1)).toEqual({ file: 'navi_and_mani_multi_two_arm.jsonl', family: 'multi-two-arm', tasks: 1 });
  });

  it('says what is missing or ambiguous', async () => {
    await expect(importReleasedTasks(await temp())).rejects.toThrow(/none of the released task files/);
    const root = await checkout();
    await writeFile(join(root, 'navigation_tasks.json'), '[]');
    await expect(importReleasedTasks(root)).rejects.toThrow(/are both navigation_tasks/);
  });

  it('gsr dataset import et-plan writes released-tasks.jsonl and prints template statistics', async () => {
    const out = await temp();
    const r = runCli(['dataset', 'import', 'et-plan', '--root', await checkout(), '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/navigation\s+2\s+2\/2\.50\/3\s+1:2\s+grab,walk/);
    expect(r.stdout).toMatch(/wrote 3 released tasks/);
    const tasks = await readEtPlanReleasedTasks(join(out, 'released-tasks.jsonl'));
    expect(tasks.map((t) => t.id)).toEqual(['navigation_tasks/1', 'navigation_tasks/2', 'navigation_and_manipulation_tasks_with_temporal_constraint/1']);
  }, scaled(30_000));
});

/**
 * Agent logs on the crafted tasks, with every value worked by hand from the rules of the released
 * evaluate_nav_mani.py (a task whose traverse_distance is 0 is skipped; LCS ratio 1 when the ground
 * truth is longer than the agent's actions; a failure counts its cap, STEP_MAX = 40 with the option;
 * distance over successes) and from the clean definitions (docs/et-plan.md, "Metrics"). The released
 * scripts cannot be run here (their repository is not reachable), so no values come from them.
 */
describe('scoring agent logs on released tasks', () => {
  const W = (n: string, id: number) => `<char0> [walk] <${n}> (${id})`;
  const temporalPlan = ['<char0> [walk] <spoon> (5)', '<char0> [grab] <spoon> (5)', '<char0> [walk] <cup> (6)', '<char0> [putin] <spoon> (5) <cup> (6)', '<char0> [grab] <cup> (6)', '<char0> [walk] <shelf> (7)', '<char0> [put] <cup> (6) <shelf> (7)'];
  const logs = [
    // Success, the ground truth itself (ids may differ: they are dropped): LCS 2 of 2.
    { id: 'navigation_tasks/1', success: true, action_history: [W('bedroom', 12), W('toybox', 41)], traverse_distance: 4 },
    // Failure after one wrong walk: LCS 0 of 3; released ratio 1 (3 > 1); released length 20 (the cap).
    { id: 'navigation_tasks/2', success: 'False', action_history: [W('bedroom', 3)], traverse_distance: 5 },
    // Success missing one walk: LCS 6 of 7 (clean ratio 6/7; released 1, since 7 > 6). The log's [put] is the ground truth's put-on.
    { id: 'navigation_and_manipulation_tasks_with_temporal_constraint/1', success: 'True', action_history: temporalPlan.filter((_, i) => i !== 2), traverse_distance: 10 },
  ];

  it('clean and released metrics on hand-worked logs', async () => {
    const { scoreReleasedLogs } = await import('../../../src/benchmarks/et-plan/released-logs.js');
    const tasks = (await importReleasedTasks(await checkout())).tasks;
    const parsed = logs.map((l) => ({ ...l, success: l.success === true || l.success === 'True' }));
    const r = scoreReleasedLogs(tasks, parsed);
    const [clean, released] = r.sets;
    expect([clean.mode, released.mode]).toEqual(['clean', 'released']);
    const row = (rows: typeof clean.rows, task: string) => rows.find((x) => x.task === task && x.subset === 'all')!;
    expect(row(clean.rows, 'navigation')).toMatchObject({ n: 2, success_rate: 0.5, sequence_length: 2, lcs_length: 1, lcs_ratio: 0.5, distance: 4.5 });
    expect(row(released.rows, 'navigation')).toMatchObject({ n: 2, success_rate: 0.5, sequence_length: 11, lcs_length: 1, lcs_ratio: 1, distance: 4 });
    expect(row(clean.rows, 'temporal')).toMatchObject({ n: 1, sequence_length: 6, lcs_length: 6, distance: 10 });
    expect(row(clean.rows, 'temporal').lcs_ratio).toBeCloseTo(6 / 7, 12);
    expect(row(released.rows, 'temporal')).toMatchObject({ lcs_ratio: 1 });
    expect(row(released.rows, 'all')).toMatchObject({ n: 3, success_rate: 2 / 3, sequence_length: 28 / 3, lcs_ratio: 1, distance: 7 });
    // A zero traverse_distance is skipped by the released script, kept by the clean metrics.
    const zero = scoreReleasedLogs(tasks, [parsed[0], { ...parsed[1], traverse_distance: 0 }]);
    expect(row(zero.sets[1].rows, 'navigation')).toMatchObject({ n: 1, dropped: 1, success_rate: 1, sequence_length: 2 });
    expect(row(zero.sets[0].rows, 'navigation')).toMatchObject({ n: 2, dropped: 0 });
    // No success in a group: empty, and said so (the released script divides by zero there).
    const none = scoreReleasedLogs(tasks, [parsed[1]]);
    expect(row(none.sets[1].rows, 'navigation')).toMatchObject({ distance: null, note: 'no successful episode: moving distance empty (the released script divides by zero here)' });
    expect(r.models).toEqual([{ model: 'agent', logs: 3, families: { navigation: 2, temporal: 1 } }]);
    // Occlusion subsets from the logs' figures, per model and family over the logged tasks: sizes 1 and 2
    // give p20 = 1.2 (size 1 below); distances 3 and 9 give p80 = 7.8 (9 above).
    const fig = scoreReleasedLogs(tasks, [{ ...parsed[0], item_size: 1, init_distance: 9 }, { ...parsed[1], item_size: 2, init_distance: 3 }, parsed[2]]);
    expect(fig.sets[0].rows.filter((x) => x.task === 'navigation').map((x) => [x.subset, x.n, x.success_rate])).toEqual([['all', 2, 0.5], ['occlusion-distance', 1, 1], ['occlusion-size', 1, 1]]);
    expect(fig.sets[0].rows.filter((x) => x.task === 'temporal').map((x) => x.subset)).toEqual(['all']);
    expect(r.unlogged).toEqual({ agent: {} });
  });

  it('gsr score et-plan-logs: the oracle\'s log scores LCS ratio 1 and success 100%; bad and unknown records are listed, exit 3', async () => {
    const root = await checkout();
    const out = await temp();
    const imp = runCli(['dataset', 'import', 'et-plan', '--root', root, '--out', out, '--oracle-log', join(out, 'oracle.jsonl')]);
    expect(imp.status, imp.stderr).toBe(0);
    const oracle = runCli(['score', 'et-plan-logs', '--tasks', out, '--logs', join(out, 'oracle.jsonl'), '--out', join(out, 'o'), '--json']);
    expect(oracle.status, oracle.stderr).toBe(0);
    const o = JSON.parse(oracle.stdout) as { sets: { mode: string; rows: { task: string; success_rate: number; lcs_ratio: number }[] }[] };
    expect(o.sets.map((s) => s.mode)).toEqual(['clean', 'released']);
    for (const s of o.sets) for (const row of s.rows) expect([row.task, row.success_rate, row.lcs_ratio]).toEqual([row.task, 1, 1]);

    const file = join(out, 'agent.jsonl');
    await writeFile(file, [...logs.map((l) => JSON.stringify({ ...l, model: 'gpt' })), '{"id": "nope/1", "success": true, "action_history": []}', 'not json'].join('\n') + '\n');
    // The tasks straight from a checkout's folder, the released set only, STEP_MAX for failures.
    const r = runCli(['score', 'et-plan-logs', '--tasks', root, '--logs', file, '--metrics', 'released', '--failures-at-step-max', '--out', join(out, 'a')]);
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/2 of 5 log records failed/);
    expect(r.stderr).toMatch(/agent\.jsonl:5: malformed JSON/);
    expect(r.stderr).toMatch(/agent nope\/1: no released task with this id/);
    expect(r.stdout).toMatch(/metrics: released\+failures-at-step-max\n/);
    // Navigation: (2 + 40) / 2 = 21 steps.
    expect(r.stdout).toMatch(/gpt\s+navigation\s+all\s+2\s+50\.0\s+21\.00\s+1\.00\s+1\.000\s+4\.00/);
    expect(r.stdout).not.toMatch(/metrics: clean/);
    const bad = runCli(['score', 'et-plan-logs', '--tasks', join(out, 'missing'), '--logs', file]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/gsr: error: et-plan tasks: .*missing does not exist/);
  }, scaled(60_000));
});
