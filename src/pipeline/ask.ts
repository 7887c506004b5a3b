/**
 * The answer step every pipeline shares: the What'sUp answer and label-noise stages and the plug-in
 * pipelines' answer stage ask a model through this one function. It runs the model's prompt files
 * through the runner and the run store, then writes `responses.jsonl` (the responses to exactly those
 * prompts) and `settings.json` (the settings they were asked under, as the store records them). The
 * caller builds the answerer and its settings from src/mllm/request.ts, so a prompt goes out as the
 * same request whichever path asks it (docs/pipeline.md, "One answer step").
 */
import { join } from 'node:path';
import { runPrompts, toResponseRecord, type Answerer, type GenerationSettings, type RunOptions, type RunStore } from '../mllm/index.js';
import { writeResponseFile } from '../formats/responses.js';
import { writeJsonAtomic } from '../util/fs.js';
import { readJsonl } from '../util/jsonl.js';
import type { StageContext } from './engine.js';

export const RESPONSES_FILE = 'responses.jsonl';
export const SETTINGS_FILE = 'settings.json';
/** How a stage that asks models stops when the run is interrupted (Stage.stopping). */
export const ASKING_STOPS = 'finishing the answers in flight (answers so far are kept)';

export interface AskModelOptions {
  store: RunStore;
  answerer: Answerer;
  /** The model's settings (its store name is `settings.model`). */
  settings: GenerationSettings;
  /** Prompt files in the order they are asked, each with its progress label. */
  prompts: Array<{ file: string; label: string }>;
  /** Folder that gets responses.jsonl and settings.json. */
  dir: string;
  concurrency?: number;
  timeoutMs?: number;
  dispatch?: RunOptions['dispatch'];
  answerAttempts?: number;
  validate?: RunOptions['validate'];
}

export interface AskedModel {
  settings_id: string;
  /** Valid prompts over the files. */
  prompts: number;
  ok: number;
  failed: number;
  /** This run's failures by reason. */
  failures: Record<string, number>;
  /** Several answer attempts: the setting, and the invalid answers asked again over all runs. */
  answer_attempts?: number;
  reasked?: number;
}

/**
 * Registers a model's settings and returns their id; with `ctx.force` (`gsr pipeline run --force`)
 * first drops the model's stored answers under them, so the stage asks every prompt again.
 */
export function forceAskAgain(ctx: StageContext, store: RunStore, settings: GenerationSettings): string {
  const sid = store.registerSettings(settings);
  if (!ctx.force) return sid;
  const dropped = store.discard(settings.model, sid);
  if (dropped > 0) ctx.notice(`${settings.model}: --force: ${dropped} stored answers dropped; asking again`);
  return sid;
}

/**
 * Asks one model its prompt files and writes its answers. Stored answers are reused and the run says
 * how many, naming `--force`, which drops them first (forceAskAgain). Throws when interrupted.
 */
export async function askModel(ctx: StageContext, o: AskModelOptions): Promise<AskedModel> {
  const { store, settings } = o;
  const name = settings.model;
  const sid = forceAskAgain(ctx, store, settings);
  const m: AskedModel = { settings_id: sid, prompts: 0, ok: 0, failed: 0, failures: {} };
  const keys = new Set<string>();
  // Told, not recorded: the stage record of a resumed run equals an uninterrupted run's.
  let cached = 0;
  for (const { file, label } of o.prompts) {
    const r = await runPrompts({
      prompts: file, store, answerer: o.answerer, settings, concurrency: o.concurrency, timeoutMs: o.timeoutMs, signal: ctx.signal, dispatch: o.dispatch,
      answerAttempts: o.answerAttempts, validate: o.validate,
      onStart: ({ toSend }) => ctx.progress.start(toSend, label),
      onResult: (e) => ctx.progress.tick(1, e.status === 'failed'),
    });
    if (r.interrupted) throw new Error('interrupted (answers so far are kept; run again to resume)');
    m.prompts += r.prompts;
    cached += r.cached;
    for (const [reason, n] of Object.entries(r.failures)) m.failures[reason] = (m.failures[reason] ?? 0) + n;
    for await (const p of readJsonl<{ key: string }>(file)) keys.add(p.key);
  }
  const reasked = (o.answerAttempts ?? 1) > 1 ? store.attemptCounts(name, sid) : undefined;
  await writeResponseFile(
    join(o.dir, RESPONSES_FILE),
    (function* () {
      for (const row of store.responses({ model: name, settings: sid })) {
        if (!keys.has(row.key)) continue;
        if (row.status === 'ok') m.ok++;
        else m.failed++;
        const record = toResponseRecord(row);
        yield reasked ? { ...record, answer_attempts: (reasked.get(row.key) ?? 0) + 1 } : record;
      }
    })(),
  );
  await writeJsonAtomic(join(o.dir, SETTINGS_FILE), { id: sid, settings });
  if (reasked) Object.assign(m, { answer_attempts: o.answerAttempts, reasked: [...keys].reduce((a, k) => a + (reasked.get(k) ?? 0), 0) });
  if (cached > 0) ctx.notice(`${name}: ${cached} answers taken from the run store, asked by an earlier run (\`gsr pipeline run --force\` asks again)`);
  if (m.failed > 0) ctx.notice(`${name}: ${m.failed} of ${m.prompts} prompts failed (${Object.keys(m.failures).join(', ') || 'see responses'})`);
  return m;
}
