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
