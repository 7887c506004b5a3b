/**
 * The episode loop of episodic plug-ins: each item's episode runs step by step, each step one
 * single-turn prompt. A model's replies go through the run store (`StoredAsker`: a stored answer is
 * replayed, a new one is committed before it is used), so a killed run resumes by replaying every
 * episode from its start with identical outcomes; a baseline policy acts on the episode directly.
 * Episodes run concurrently, each one sequentially; records come back in item order.
 */
import type { BenchItem } from '../formats/bench-item.js';
import type { BenchPrompt } from '../formats/chat-prompt.js';
import type { EpisodeRecord } from '../formats/episodes.js';
import type { StoredAsker } from '../mllm/runner.js';
import { GsrError, errorMessage, isMachineFault } from '../util/errors.js';
import { benchPromptKey } from './prompts-file.js';
import type { Benchmark, Episode, EpisodeFactory, EpisodePolicy } from './types.js';

/** Who answers the steps: a baseline policy, or a model through the run store. */
export type EpisodeActor = { policy: EpisodePolicy } | { asker: StoredAsker };

export interface RunEpisodesOptions<I extends BenchItem> {
  benchmark: Benchmark<I>;
  items: ReadonlyMap<string, I>;
  /** Fresh episodes (the plug-in's `episodes.prepare` result). */
  start: EpisodeFactory<I>;
  /** Model name in the records. */
  model: string;
  actor: EpisodeActor;
  /** Episodes in flight at once (default 8). */
  concurrency?: number;
  signal?: AbortSignal;
  onEpisode?: (record: EpisodeRecord) => void;
}

export interface EpisodesSummary {
  episodes: number;
  steps: number;
  successes: number;
  /** Episodes stopped by a failed request. */
  failed: number;
  /** Steps whose answer came from the store. */
  cached: number;
  /** HTTP requests made in this run. */
  requests: number;
  /** Items whose episode could not run (bad apartment, plug-in error), with why. */
  skipped: Array<{ item: string; reason: string }>;
  interrupted: boolean;
}

/** The keyed prompt of an episode's next step (text parts only: episodes send no images). */
export function episodePrompt(benchmark: string, episode: Episode): BenchPrompt {
  const draft = episode.prompt();
  if (draft.parts.some((p) => p.type !== 'text')) throw new GsrError('episode prompts take text parts only');
  const body = { ...draft, benchmark };
  return { key: benchPromptKey(body), ...body };
}

/** A failure of the store or runner (not of the item): it stops the run. */
class RunFailure extends Error {}

/** Runs one episode to its end; null when interrupted. */
async function runOne<I extends BenchItem>(o: RunEpisodesOptions<I>, item: I, summary: EpisodesSummary, signal: AbortSignal): Promise<EpisodeRecord | null> {
  const episode = 'policy' in o.actor ? o.start(item, 'policy', o.actor.policy) : o.start(item, 'model');
  while (!episode.done) {
    if ('policy' in o.actor) {
      episode.reply(o.actor.policy.act(episode), null);
      summary.steps++;
      continue;
    }
    const prompt = episodePrompt(o.benchmark.name, episode);
    let answer;
    try {
      answer = await o.actor.asker.ask(prompt, signal);
    } catch (err) {
      throw new RunFailure(errorMessage(err), { cause: err });
    }
    if (answer === null) return null;
    summary.requests += answer.requests;
    if (answer.cached) summary.cached++;
    if (answer.status === 'failed') {
      summary.failed++;
      return episode.record(o.model, answer.error ?? 'request failed');
    }
    episode.reply(answer.output, prompt.key);
    summary.steps++;
  }
  return episode.record(o.model);
}

/** Runs every item's episode; records in item order (items that could not run are left out and listed). */
export async function runEpisodes<I extends BenchItem>(o: RunEpisodesOptions<I>): Promise<{ records: EpisodeRecord[]; summary: EpisodesSummary }> {
  const signal = o.signal ?? new AbortController().signal;
  const items = [...o.items.values()];
  const slots: Array<EpisodeRecord | undefined> = new Array(items.length);
  const summary: EpisodesSummary = { episodes: 0, steps: 0, successes: 0, failed: 0, cached: 0, requests: 0, skipped: [], interrupted: false };
  let next = 0;
  const worker = async () => {
    while (next < items.length && !summary.interrupted) {
      const index = next++;
      let record: EpisodeRecord | null;
      try {
        record = await runOne(o, items[index], summary, signal);
      } catch (err) {
        // One bad item never stops the rest; a store or runner failure does.
        if (err instanceof RunFailure) throw err.cause;
        if (isMachineFault(err)) throw err; // a full disk is not a bad item (src/util/errors.ts)
        summary.skipped.push({ item: items[index].id, reason: errorMessage(err) });
        continue;
      }
      if (record === null) {
        summary.interrupted = true;
        return;
      }
      slots[index] = record;
      summary.episodes++;
      if (record.success) summary.successes++;
      o.onEpisode?.(record);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? 8) }, worker));
  summary.skipped.sort((a, b) => a.item.localeCompare(b.item));
  return { records: slots.filter((r): r is EpisodeRecord => r !== undefined), summary };
}
