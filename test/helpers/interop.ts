/**
 * The prompt files and answers behind the interop fixtures (test/fixtures/interop): a What'sUp TG
 * prompt file on the project's What'sUp-layout sample and a VSP prompt file on its VSP-layout sample
 * (both generated here, with their default seeds), answered by a fixed rule.
 * test/fixtures/interop/make-inputs.ts writes them for the Python scripts that play VLMEvalKit and
 * lmms-eval; the tests rebuild them to import the same answers as JSONL. Prompt keys hash the
 * images' bytes, so the fixtures hold as long as the generators draw the same images.
 */
import { join } from 'node:path';
import { importBenchmark, loadItemSet, writeBenchPromptFile } from '../../src/benchmarks/index.js';
import { isBenchPrompt, readAnyPrompts, type AnyPrompt } from '../../src/formats/prompts.js';
import { answerText } from '../../src/mllm/index.js';
import { writeVspLayout } from '../../src/benchmarks/vsp/layout.js';
import { writeWhatsupLayout } from '../../src/datasets/index.js';
import { buildPromptFile } from '../../src/prompts/index.js';
import { sampleItems, writeManifest } from '../prompts/fixtures.js';

/** VSP tasks with a yes/no or multiple-choice answer (docs/vsp.md). */
export const VSP_INTEROP_TASKS = ['maze-t1', 'maze-t3', 'maze-t4'];

/** What VLMEvalKit writes for a request that failed (its FAIL_MSG). */
export const FAIL_PREDICTION = 'Failed to obtain answer via API.';

export interface InteropPrompts {
  /** The manifest of the What'sUp items (test/prompts/fixtures.ts) on the What'sUp-layout sample. */
  manifest: string;
  whatsup: string;
  vsp: string;
  vspItems: string;
}

/** Writes both samples, both prompt files and the VSP item set into `dir`. */
export async function writeInteropPrompts(dir: string): Promise<InteropPrompts> {
  const { dataDir } = await writeWhatsupLayout(join(dir, 'whatsup-layout'));
  const manifest = writeManifest(dir, sampleItems(dataDir));
  const whatsup = join(dir, 'whatsup-tg.jsonl');
  await buildPromptFile({ manifest, task: 'tg', out: whatsup });
  const vspLayout = join(dir, 'vsp-layout');
  await writeVspLayout(vspLayout);
  const vspItems = join(dir, 'vsp-items');
  await importBenchmark('vsp', vspLayout, vspItems);
  const set = await loadItemSet(vspItems);
  const vsp = join(dir, 'vsp.jsonl');
  await writeBenchPromptFile(set.benchmark, set.items.values(), { tasks: VSP_INTEROP_TASKS }, set.context, vsp);
  return { manifest, whatsup, vsp, vspItems };
}

/**
 * The fixture's answers, in prompt-file order: null for a failed request (index 3), '' for an empty
 * answer (index 5); What'sUp TG: the right caption, another option, or the right one in a sentence
 * in turn; VSP: its oracle's answer, every fourth its random baseline's (seed 1).
 */
export async function fixtureAnswers(promptFile: string, vspItems?: string): Promise<Array<{ prompt: AnyPrompt; answer: string | null }>> {
  const prompts = await readAnyPrompts(promptFile);
  const set = vspItems === undefined ? undefined : await loadItemSet(vspItems);
  const oracle = set?.benchmark.baselines.oracle(set.items, { name: 'oracle', seed: 1 });
  const random = set?.benchmark.baselines.random(set.items, { name: 'random', seed: 1 });
  const signal = new AbortController().signal;
  const out: Array<{ prompt: AnyPrompt; answer: string | null }> = [];
  for (const [index, prompt] of prompts.entries()) {
    let answer: string | null;
    if (index === 3) answer = null;
    else if (index === 5) answer = '';
    else if (!isBenchPrompt(prompt)) {
      const right = prompt.options[prompt.answer_index!];
      answer = [right, prompt.options[(prompt.answer_index! + 1) % prompt.options.length], `The caption is: ${right}.`][index % 3];
    } else {
      if (oracle === undefined || random === undefined) throw new Error('benchmark prompts need their item set');
      answer = answerText(await (index % 4 === 1 ? random : oracle).answer(prompt, signal));
    }
    out.push({ prompt, answer });
  }
  return out;
}
