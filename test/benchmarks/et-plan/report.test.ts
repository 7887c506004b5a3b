import { describe, expect, it } from 'vitest';
import { ET_PLAN_FAMILIES } from '../../../src/benchmarks/et-plan/families.js';
import { etPlanSections, replayOutcome, type EtPlanAnalysis } from '../../../src/benchmarks/et-plan/report.js';

describe('ET-Plan report', () => {
  it('the success plot: the x-axis title sits under its labels; a long model id is shown whole in the legend', async () => {
    const models = ['oracle', 'Qwen/Qwen2.5-VL-7B-Instruct'];
    const rows = ET_PLAN_FAMILIES.flatMap((task) => models.map((model) => ({ subset: 'all', task, model, success_rate: 0.5, success_low: 0.2, success_high: 0.8 })));
    const analysis = { mode: 'clean', quirks: [], rows, models: [] } as unknown as EtPlanAnalysis;
    const [plot] = await etPlanSections({ analysis, items: new Map() } as unknown as Parameters<typeof etPlanSections>[0]);
    expect(plot!.id).toBe('et-plan-success-plot');
    // The title's offset below the axis: two lines of 10px labels and padding, not a rotated label's estimated width.
    const title = /class="mark-text role-axis-title"[^>]*><text[^>]*transform="translate\(([\d.]+),([\d.]+)\)"[^>]*>family</.exec(plot!.html);
    expect(Number(title![2])).toBeLessThan(50);
    expect(plot!.html).toContain('>Qwen/Qwen2.5-VL-7B-Instruct</text>');
    expect(plot!.html).not.toContain('…');
  });

  it('the replay counts steps in the right number', () => {
    expect(replayOutcome({ success: true, end: 'done', steps: [{}] } as never)).toBe('success after 1 step');
    expect(replayOutcome({ success: false, end: 'step-limit', steps: [{}, {}] } as never)).toBe('no success (step-limit) after 2 steps');
  });
});
