/**
 * Optional check on a full VSP copy (the repository's VSP-main/ with derived/google_map_answers.json):
 * ../shared/data/vsp, or GSR_SHARED_VSP (test/helpers/shared.ts).
 */
import { expect, it } from 'vitest';
import { oracleAnswer } from '../../../src/benchmarks/vsp/baselines.js';
import { importVsp } from '../../../src/benchmarks/vsp/import.js';
import { PAPER_TASKS } from '../../../src/benchmarks/vsp/item.js';
import { judgeVsp } from '../../../src/benchmarks/vsp/judge.js';
import type { BenchPrompt } from '../../../src/formats/chat-prompt.js';
import { describeShared } from '../../helpers/shared.js';

const LEVELS: Record<string, string[]> = {
  'maze-main': ['3', '4', '5', '6', '7', '8'], 'maze-t1': ['3', '4', '5', '6', '7', '8'], 'maze-t2': ['3', '4', '5', '6', '7', '8'], 'maze-t3': ['3', '4', '5', '6', '7', '8'],
  'maze-t4': ['step1', 'step3', 'step5', 'step7', 'step9'], 'blocks-main': ['1', '3', '5', '7'], 'blocks-t1': ['3', '4', '5'], 'blocks-t2': ['3', '4', '5'], 'blocks-t3': ['3', '4', '5'],
  'blocks-t4': ['1', '3', '5', '7'], collision: ['default'], 'google-map': ['1'],
};

describeShared('full VSP copy', ['vsp'], ({ vsp: ROOT }) => {
  it('imports 4,600 paper items (100 per level) plus 200 repository-only, and the oracle scores 100% in both modes', async () => {
    const { items, context } = await importVsp(ROOT);
    const counts: Record<string, Record<string, number>> = {};
    for (const i of items) (counts[i.task] ??= {})[i.level] = (counts[i.task][i.level] ?? 0) + 1;
    for (const [task, levels] of Object.entries(LEVELS)) expect(counts[task], task).toEqual(Object.fromEntries(levels.map((l) => [l, 100])));
    expect(items.filter((i) => PAPER_TASKS.includes(i.task))).toHaveLength(4600);
    expect(items).toHaveLength(4800);
    for (const t of Object.values(context.tasks)) for (const ex of Object.values(t.examples)) expect(ex).toHaveLength(8);
    for (const it of items) {
      for (const mode of ['official', 'strict']) {
        const j = judgeVsp(it, {} as BenchPrompt, oracleAnswer(it), mode);
        expect(j.credit ?? (j.correct ? 1 : 0), `${it.id} ${mode}`).toBe(it.task === 'collision' && mode === 'official' ? 0.5 : 1);
      }
    }
  }, 300_000);
});
