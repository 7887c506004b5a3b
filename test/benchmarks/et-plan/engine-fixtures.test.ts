/**
 * The engine against records of VirtualHome's Python engine on its 7 released apartments
 * (GSR_SHARED_VIRTUALHOME, test/helpers/shared.ts): every step of 1,050 scripts (success, error text,
 * exception, messages, grab anchor, edge diff, state changes, visible set, vis_loop), 231 parse
 * cases, 420 plans and the per-scene load facts. An optional check: skipped, with the reason, when that material is absent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeShared } from '../../helpers/shared.js';
import { EngineState, ScriptRun } from '../../../src/benchmarks/et-plan/engine/index.js';
import {
  SCENES,
  canonical,
  initialRecord,
  loadScene,
  parseRecord,
  planDiffs,
  planRecord,
  readJsonl,
  readSteps,
  stepDiffs,
  stepRecord,
  type ParseFixture,
  type PlanFixture,
} from './fixtures.js';

/** Steps and scripts per scene (fixtures/README.md). */
const STEPS: Record<string, number> = { TestScene1: 718, TestScene2: 807, TestScene3: 717, TestScene4: 774, TestScene5: 703, TestScene6: 769, TestScene7: 767 };

describeShared('ET-Plan engine against the reference fixtures', ['virtualhome'], ({ virtualhome: root }) => {
  it('parses the 231 recorded lines exactly as the reference', () => {
    const cases = readJsonl<ParseFixture>(join(root, 'fixtures', 'parse.jsonl'));
    expect(cases).toHaveLength(231);
    const bad = cases.filter((fx) => JSON.stringify(parseRecord(fx.line)) !== JSON.stringify(fx));
    expect(bad.map((fx) => ({ want: fx, got: parseRecord(fx.line) }))).toEqual([]);
  });

  const initial = JSON.parse(readFileSync(join(root, 'fixtures', 'initial.json'), 'utf8')) as Record<string, Record<string, unknown>>;

  for (const scene of SCENES) {
    it(`${scene}: load facts, every recorded step and every plan as the reference`, async () => {
      const graph = await loadScene(root, scene);

      const facts = initialRecord(root, scene, graph);
      const want = initial[scene];
      const keys = [...new Set([...Object.keys(want), ...Object.keys(facts)])];
      expect(keys.filter((k) => canonical(want[k]) !== canonical(facts[k]))).toEqual([]);

      const scripts = readSteps(root, scene);
      expect(scripts).toHaveLength(150);
      const diffs: string[] = [];
      let steps = 0;
      for (const sc of scripts) {
        const run = new ScriptRun(EngineState.initial(graph));
        for (const fx of sc.steps) {
          steps++;
          for (const d of stepDiffs(fx, stepRecord(run, fx.line))) diffs.push(`script ${sc.script} step ${fx.i} ${fx.line}: ${d}`);
        }
      }
      expect(steps).toBe(STEPS[scene]);
      expect(diffs.slice(0, 10)).toEqual([]);

      const plans = readJsonl<PlanFixture>(join(root, 'fixtures', `plans.${scene}.jsonl`));
      expect(plans).toHaveLength(60);
      expect(plans.flatMap((fx) => planDiffs(fx, planRecord(graph, fx)).map((d) => `${fx.task_id}: ${d}`))).toEqual([]);
    });
  }
});
