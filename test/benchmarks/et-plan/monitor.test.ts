/**
 * The completion monitor and the one-arm rule, hand-worked on the project's small apartment
 * (apartment.ts): temporal steps over the state sequence (grabbing the container deletes `X INSIDE B`),
 * the wrong order, instance candidates, and a second grab refused with one arm.
 */
import { describe, expect, it } from 'vitest';
import { EngineGraph, EngineState, parseScriptLine } from '../../../src/benchmarks/et-plan/engine/index.js';
import { advanceCriteria, armsAllow, monitorStates, startProgress, type MonitoredTask } from '../../../src/benchmarks/et-plan/monitor.js';
import { runPlan } from '../../../src/benchmarks/et-plan/plans.js';
import type { Criterion } from '../../../src/benchmarks/et-plan/task.js';
import { ID, apartment } from './apartment.js';

const graph = EngineGraph.fromJson(apartment(), 'apartment');
const start = EngineState.initial(graph);
const ref = (id: number) => ({ id, class: graph.node(id)!.className });
const rel = (relation: Criterion['relation'], from: number | 'character', to: number): Criterion => ({ relation, from: from === 'character' ? 'character' : ref(from), to: ref(to) });
const line = (text: string) => {
  const p = parseScriptLine(text);
  if (!p.ok) throw new Error(p.message);
  return p.line;
};

/** Put the apple from the table into the mug, then the mug into the fridge. */
const TEMPORAL: MonitoredTask = {
  criteria: [[rel('INSIDE', ID.apple2, ID.mug)], [rel('INSIDE', ID.mug, ID.fridge)]],
};

describe('completion monitor', () => {
  it('meets temporal steps in order although grabbing the container deleted X INSIDE B', () => {
    const plan = [
      '[walk] <apple> (25)',
      '[grab] <apple> (25)',
      '[walk] <mug> (24)',
      '[putin] <apple> (25) <mug> (24)',
      '[grab] <mug> (24)',
      '[walk] <fridge> (20)',
      '[open] <fridge> (20)',
      '[putin] <mug> (24) <fridge> (20)',
    ];
    const r = runPlan({ ...TEMPORAL, arms: 1 }, start, plan);
    expect(r.ok).toBe(true);
    const final = r.states[r.states.length - 1];
    // The engine's quirk: the grab of the mug removed the apple's INSIDE edge.
    expect(r.states[4].has(ID.apple2, 0, ID.mug)).toBe(true);
    expect(final.has(ID.apple2, 0, ID.mug)).toBe(false);
    expect(final.has(ID.mug, 0, ID.fridge)).toBe(true);
    // So the final state alone does not meet the criteria, the sequence does.
    expect(monitorStates(TEMPORAL, [final]).done).toBe(false);
    expect(r.progress).toMatchObject({ done: true, met: 2, metAt: [4, 8], states: 9 });
    expect(r.atStart.met).toBe(0);
  });

  it('does not count a later step that already held when the earlier one was met (wrong order)', () => {
    const wrong = [
      '[walk] <mug> (24)',
      '[grab] <mug> (24)',
      '[walk] <fridge> (20)',
      '[open] <fridge> (20)',
      '[putin] <mug> (24) <fridge> (20)',
      '[walk] <apple> (25)',
      '[grab] <apple> (25)',
      '[walk] <mug> (24)',
      '[putin] <apple> (25) <mug> (24)',
      '[walk] <kitchen> (1)',
    ];
    const r = runPlan({ ...TEMPORAL, arms: 1 }, start, wrong);
    expect(r.ok).toBe(true);
    const final = r.states[r.states.length - 1];
    // Both relations hold at the end, yet only step 1 counts.
    expect(final.has(ID.apple2, 0, ID.mug) && final.has(ID.mug, 0, ID.fridge)).toBe(true);
    expect(r.progress).toMatchObject({ done: false, met: 1, metAt: [9] });
    // Taking the mug out and putting it back after step 1 is doing step 2 in order.
    const redo = runPlan({ ...TEMPORAL, arms: 1 }, start, [...wrong, '[walk] <mug> (24)', '[grab] <mug> (24)', '[walk] <fridge> (20)', '[putin] <mug> (24) <fridge> (20)']);
    expect(redo.progress).toMatchObject({ done: true, metAt: [9, 14] });
  });

  it('meets a one-step task at the first state where all its relations hold together', () => {
    const task: MonitoredTask = { criteria: [[rel('ON', ID.book, ID.sofa), rel('CLOSE', 'character', ID.sofa)]] };
    const r = runPlan({ ...task, arms: 1 }, start, ['[walk] <book> (34)', '[grab] <book> (34)', '[walk] <sofa> (31)', '[putback] <book> (34) <sofa> (31)']);
    expect(r.progress).toMatchObject({ done: true, metAt: [4] });
    // A state where a relation holds at the start counts at index 0 (the generator drops such tasks).
    const already: MonitoredTask = { criteria: [[rel('ON', ID.book, ID.coffeetable)]] };
    expect(advanceCriteria(already, start, startProgress(already))).toMatchObject({ done: true, metAt: [0], states: 1 });
  });

  it('checks FACING relations on the state, as the released criteria write them ((CLOSE, robot, sofa)(FACING, sofa, tv))', () => {
    const task: MonitoredTask = { criteria: [[rel('CLOSE', 'character', ID.sofa), rel('FACING', ID.sofa, ID.tv)]] };
    expect(runPlan({ ...task, arms: 1 }, start, ['[walk] <sofa> (31)']).progress).toMatchObject({ done: true, metAt: [1] });
    // The character faces the TV once it sits on the sofa (sit adds C FACING what the seat faces).
    const sitting: MonitoredTask = { criteria: [[rel('FACING', 'character', ID.tv)]] };
    expect(runPlan({ ...sitting, arms: 1 }, start, ['[walk] <sofa> (31)', '[sit] <sofa> (31)']).progress).toMatchObject({ done: true, metAt: [2] });
    const wrong: MonitoredTask = { criteria: [[rel('CLOSE', 'character', ID.chair), rel('FACING', ID.chair, ID.tv)]] };
    expect(runPlan({ ...wrong, arms: 1 }, start, ['[walk] <chair> (32)']).progress.done).toBe(false);
  });

  it('accepts any candidate instance, distinct across the criterion nodes', () => {
    // "Find an apple": either apple counts.
    const nav: MonitoredTask = { criteria: [[rel('CLOSE', 'character', ID.apple)]], candidates: { [ID.apple]: [ID.apple, ID.apple2] } };
    expect(runPlan({ ...nav, arms: 1 }, start, ['[walk] <apple> (25)']).progress.done).toBe(true);
    const strict: MonitoredTask = { criteria: nav.criteria };
    expect(runPlan({ ...strict, arms: 1 }, start, ['[walk] <apple> (25)']).progress.done).toBe(false);
    // Two criterion nodes of one class: one apple cannot stand for both.
    const two: MonitoredTask = {
      criteria: [[rel('CLOSE', 'character', ID.apple), rel('CLOSE', 'character', ID.apple2)]],
      candidates: { [ID.apple]: [ID.apple, ID.apple2], [ID.apple2]: [ID.apple, ID.apple2] },
    };
    const p = startProgress(two);
    expect(p.tracks.map((t) => t.ids)).toEqual([[ID.apple, ID.apple2], [ID.apple2, ID.apple]]);
    expect(runPlan({ ...two, arms: 1 }, start, ['[walk] <apple> (25)']).progress.done).toBe(false);
  });
});

describe('armsAllow (one-arm rule)', () => {
  const holding = runPlan({ criteria: [[rel('CLOSE', 'character', ID.mug)]], arms: 1 }, start, ['[walk] <apple> (25)', '[grab] <apple> (25)', '[walk] <mug> (24)']).states[3];

  it('refuses a second grab with one arm, allows it with two', () => {
    expect(armsAllow({ arms: 1 }, holding, line('[grab] <mug> (24)'))).toBe('<character> (10) already holds <apple> (25) and this task allows one arm when executing "[GRAB] <mug> (24) [1]"');
    expect(armsAllow({ arms: 2 }, holding, line('[grab] <mug> (24)'))).toBeNull();
    expect(armsAllow({ arms: 1 }, start, line('[grab] <mug> (24)'))).toBeNull();
  });

  it('allows other actions while holding one thing (open with the other hand)', () => {
    for (const l of ['[walk] <fridge> (20)', '[open] <fridge> (20)', '[putin] <apple> (25) <mug> (24)', '[drop] <apple> (25)']) expect(armsAllow({ arms: 1 }, holding, line(l))).toBeNull();
  });

  it('makes a plan that carries two things fail with one arm, not with two', () => {
    const plan = ['[walk] <apple> (25)', '[grab] <apple> (25)', '[walk] <mug> (24)', '[grab] <mug> (24)'];
    const task = { criteria: [[rel('CLOSE', 'character', ID.mug)]] };
    const one = runPlan({ ...task, arms: 1 }, start, plan);
    expect(one).toMatchObject({ ok: false, failedAt: 3 });
    expect(one.error).toContain('allows one arm');
    expect(runPlan({ ...task, arms: 2 }, start, plan).ok).toBe(true);
  });
});
