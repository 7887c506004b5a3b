/**
 * Optional check on a full VSP copy (the repository's VSP-main/ with derived/google_map_answers.json):
 * GSR_SHARED_VSP (test/helpers/shared.ts). Besides the counts and the oracle,
 * crafted variants of the oracle's answers go through the official reading on every real item
 * (docs/vsp.md, "How the official scripts read an answer").
 */
import { expect, it } from 'vitest';
import { oracleAnswer } from '../../../src/benchmarks/vsp/baselines.js';
import { importVsp } from '../../../src/benchmarks/vsp/import.js';
import { PAPER_TASKS, type VspItem } from '../../../src/benchmarks/vsp/item.js';
import { judgeVsp } from '../../../src/benchmarks/vsp/judge.js';
import type { BenchPrompt } from '../../../src/formats/chat-prompt.js';
import { describeShared } from '../../helpers/shared.js';
import { scaled } from '../../helpers/cli.js';

const LEVELS: Record<string, string[]> = {
  'maze-main': ['3', '4', '5', '6', '7', '8'], 'maze-t1': ['3', '4', '5', '6', '7', '8'], 'maze-t2': ['3', '4', '5', '6', '7', '8'], 'maze-t3': ['3', '4', '5', '6', '7', '8'],
  'maze-t4': ['step1', 'step3', 'step5', 'step7', 'step9'], 'blocks-main': ['1', '3', '5', '7'], 'blocks-t1': ['3', '4', '5'], 'blocks-t2': ['3', '4', '5'], 'blocks-t3': ['3', '4', '5'],
  'blocks-t4': ['1', '3', '5', '7'], collision: ['default'], 'google-map': ['1'],
};

describeShared('full VSP copy', ['vsp'], ({ vsp: ROOT }) => {
  let imported: ReturnType<typeof importVsp> | undefined;
  const load = () => (imported ??= importVsp(ROOT));

  it('imports 4,600 paper items (100 per level) plus 200 repository-only, and the oracle scores 100% in both modes', async () => {
    const { items, context } = await load();
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
  }, scaled(300_000));

  it('crafted oracle answers read as Python reads them: CRLF, lone CR, U+0085 and an emoji change nothing; a trailing U+FEFF spoils every task that reads to its end', async () => {
    const { items } = await load();
    const judge = (it: VspItem, out: string, mode = 'official') => judgeVsp(it, {} as BenchPrompt, out, mode);
    // Tasks whose reading survives a trailing U+FEFF: maze T4 (substring test in a window), collision
    // (a regular expression), and blocks main when the last move is onto a block (the line loses its
    // last code point, the U+FEFF, and "red)" still names R; "table)" is no longer the table).
    const survivesBom = (it: VspItem, oracle: string) => it.task === 'maze-t4' || it.task === 'collision' || (it.task === 'blocks-main' && !oracle.endsWith('table)'));
    const bomInvalid = new Set(['maze-t1', 'maze-t3']);
    for (const it of items) {
      const oracle = oracleAnswer(it);
      for (const mode of ['official', 'strict']) {
        const base = judge(it, oracle, mode);
        expect(judge(it, oracle.replaceAll('\n', '\r\n'), mode), `${it.id} CRLF`).toEqual(base);
        expect(judge(it, oracle.replaceAll('\n', '\r'), mode), `${it.id} CR`).toEqual(base);
        expect(judge(it, `\u{1F914} Let me think.\n${oracle}\u0085`, mode).credit ?? 0, `${it.id} emoji, NEL`).toBe(base.credit ?? 0);
      }
      const official = judge(it, oracle);
      expect(official.scriptInvalid ?? false, it.id).toBe(false);
      const bom = judge(it, `${oracle}\ufeff`);
      expect(bom.correct || bom.credit === 0.5, `${it.id} BOM`).toBe(survivesBom(it, oracle));
      expect(bom.scriptInvalid ?? false, `${it.id} BOM`).toBe(bomInvalid.has(it.task));
    }
  }, scaled(300_000));
});
