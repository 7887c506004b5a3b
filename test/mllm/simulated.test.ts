import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boxIou } from '../../src/geometry/boxes.js';
import { shiftToIou, simulatedBox, simulatedSettings } from '../../src/mllm/baselines/index.js';
import { runPipeline } from '../../src/pipeline/index.js';
import { scaled } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-simulated-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('simulated boxes', () => {
  it('shiftToIou moves a box to the asked IoU', () => {
    for (const target of [0.1, 0.5, 0.8]) {
      const box = shiftToIou([100, 100, 200, 160], target, 0.7, 10_000, 10_000);
      expect(boxIou(box, [100, 100, 200, 160])).toBeCloseTo(target, 9);
    }
  });

  it('hits have IoU >= 0.6 and misses IoU < 0.5, the same for the same seed', () => {
    const truth: [number, number, number, number] = [40, 60, 140, 120];
    for (let i = 0; i < 200; i++) {
      const hit = simulatedBox(truth, true, 7, `item-${i}`, 'subject', 320, 240);
      const miss = simulatedBox(truth, false, 7, `item-${i}`, 'subject', 320, 240);
      expect(boxIou(hit, truth)).toBeGreaterThanOrEqual(0.6 - 1e-9);
      expect(boxIou(miss, truth)).toBeLessThan(0.5);
      expect(simulatedBox(truth, false, 7, `item-${i}`, 'subject', 320, 240)).toEqual(miss);
    }
  });

  it('settings are checked', () => {
    expect(() => simulatedSettings('s', {})).toThrow(/needs grounding/);
    expect(() => simulatedSettings('s', { grounding: 1.5 })).toThrow(/grounding must be a number in \[0, 1\]/);
    expect(() => simulatedSettings('s', { grounding: 0.5, reasoning_error: -1 })).toThrow(/reasoning_error/);
    expect(simulatedSettings('s', { grounding: 0.5, seed: 3 })).toEqual({ grounding: 0.5, reasoningError: 0, seed: 3 });
  });
});

describe('simulated answerers in a pipeline', () => {
  it('reach their target G-Score, are scored like models, and the regression finds the effect built in', { timeout: scaled(300_000) }, async () => {
    const sims = [0, 0.25, 0.5, 0.75, 1].map((g) => `  - { name: sim-${g * 100}, kind: simulated, grounding: ${g}, reasoning_error: 0.1, seed: 2 }`).join('\n');
    const file = join(work, 'sim.yaml');
    writeFileSync(
      file,
      `name: sim
out: ${join(work, 'out')}
dataset: { synthetic: { count: 48, seed: 4 } }
annotations: { source: exact }
prompts: { tasks: [tg, grounding] }
models:
  - { name: geometric, kind: geometric }
${sims}
  - { name: all-wrong, kind: simulated, grounding: 1, reasoning_error: 1, seed: 2 }
`,
    );
    const r = await runPipeline(file, {});
    const row = (name: string) => r.rows.find((x) => x.model === name)!;
    expect(row('sim-0').g_score).toBe(0);
    expect(row('sim-100').g_score).toBe(1);
    expect(Math.abs(row('sim-50').g_score! - 0.5)).toBeLessThan(0.2);
    // Reasoning errors are applied by the answer key: every item wrong at rate 1.
    expect(row('all-wrong').tg).toBe(0);
    // All boxes hits and no reasoning error would be the geometric baseline; 10% errors cost about 10%.
    expect(row('sim-100').tg!).toBeLessThanOrEqual(row('geometric').tg!);
    const s = r.regression!.simulated!;
    expect(s.models).toHaveLength(6);
    expect(s.note).toMatch(/differ in seed, reasoning_error/);
    expect(s.true_slope).toBeNull();
    // Without the odd one out, the family carries one true effect, and the fit finds it.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/  - \{ name: all-wrong.*\n/, ''));
    const again = await runPipeline(file, {});
    const fam = again.regression!.simulated!;
    expect(fam.true_slope).toBeCloseTo(fam.all_hits! - fam.all_misses!, 12);
    expect(fam.all_hits!).toBeCloseTo(row('sim-100').tg!, 12);
    expect(fam.all_misses!).toBeCloseTo(row('sim-0').tg!, 12);
    expect(fam.true_slope!).toBeGreaterThan(0.2);
    expect(fam.slope!).toBeGreaterThan(0);
    expect(Math.abs(fam.slope! - fam.true_slope!)).toBeLessThan(0.15);
  });
});
