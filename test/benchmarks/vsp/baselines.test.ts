import { describe, expect, it } from 'vitest';
import { createRandom, oracleAnswer, randomOptions } from '../../../src/benchmarks/vsp/baselines.js';
import { answerText } from '../../../src/mllm/types.js';
import { solveBlocks } from '../../../src/benchmarks/vsp/blocks.js';
import { judgeVsp } from '../../../src/benchmarks/vsp/judge.js';
import type { VspItem } from '../../../src/benchmarks/vsp/item.js';
import { solveMaze } from '../../../src/benchmarks/vsp/maze.js';
import type { BenchPrompt } from '../../../src/formats/chat-prompt.js';
import { sample } from './sample.js';

const P = {} as BenchPrompt;

describe('VSP baselines', () => {
  it('the oracle answers every item right in both modes (collision official: the car only, by the defect)', async () => {
    const { items } = await sample();
    for (const it of items) {
      for (const mode of ['official', 'strict']) {
        const j = judgeVsp(it, P, oracleAnswer(it), mode);
        if (it.task === 'collision' && mode === 'official') expect(j.credit, it.id).toBe(0.5);
        else expect(j.correct, `${it.id} ${mode}: ${oracleAnswer(it)}`).toBe(true);
      }
    }
  });

  it('plans are shortest: blocks BFS length equals info.txt\'s optimal length; maze BFS is no longer than any listed path', async () => {
    const { items } = await sample();
    for (const it of items.filter((i) => i.task === 'blocks-main')) {
      expect(solveBlocks(it.stacks!, it.goal!)!.length, it.id).toBe(it.truth.optimal);
      for (const plan of it.truth.plans!) expect(plan.length).toBe(it.truth.optimal);
    }
    for (const it of items.filter((i) => i.task === 'maze-main')) expect(solveMaze(it.maze!)!.length).toBeGreaterThan(0);
  });

  it('random: the mean over 400 seeds matches its exact expected score within Monte-Carlo error, per task and mode', async () => {
    const { items } = await sample();
    const byId = new Map(items.map((i) => [i.id, i]));
    const seeds = 400;
    const tasks = new Map<string, VspItem[]>();
    for (const it of items) if (randomOptions(it).length > 0) tasks.set(it.task, [...(tasks.get(it.task) ?? []), it]);
    expect([...tasks.keys()].sort()).toEqual(['blocks-t1', 'blocks-t2', 'blocks-t3', 'blocks-t4', 'maze-t1', 'maze-t2', 'maze-t3', 'maze-t4']);
    for (const mode of ['official', 'strict']) {
      for (const [task, its] of tasks) {
        // Exact expectation: the mean over each item's equally likely options.
        const expected = its.reduce((s, it) => s + randomOptions(it).reduce((a, o) => a + (judgeVsp(it, P, o, mode).correct ? 1 : 0), 0) / randomOptions(it).length, 0) / its.length;
        let sum = 0;
        let sumSq = 0;
        for (let seed = 0; seed < seeds; seed++) {
          const r = createRandom(byId, { name: 'random', seed });
          let correct = 0;
          for (const it of its) {
            const out = answerText(await r.answer({ key: `k-${it.id}`, benchmark: 'vsp', item: it.id, task: it.task, level: it.level, variant: 'image', parts: [{ type: 'text', text: '' }] }, new AbortController().signal));
            if (judgeVsp(it, P, out, mode).correct) correct++;
          }
          sum += correct / its.length;
          sumSq += (correct / its.length) ** 2;
        }
        const mean = sum / seeds;
        const se = Math.sqrt((sumSq / seeds - mean ** 2) / seeds);
        expect(Math.abs(mean - expected), `${task} ${mode}: mean ${mean}, expected ${expected}, se ${se}`).toBeLessThan(4 * se + 1e-9);
      }
    }
  });

  it('random follows the paper\'s chance levels where the answer is one of k options', () => {
    const it = (task: VspItem['task']) => ({ task }) as VspItem;
    expect(randomOptions(it('maze-t1'))).toHaveLength(2);
    expect(randomOptions(it('maze-t3'))).toHaveLength(4);
    expect(randomOptions(it('blocks-t1'))).toHaveLength(6);
    expect(randomOptions(it('blocks-t4'))).toHaveLength(2);
  });
});
