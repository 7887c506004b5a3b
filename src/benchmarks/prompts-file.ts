import { sha256File } from '../util/hash.js';
import { hashCanonical } from '../prompts/key.js';
import type { BenchItem } from '../formats/bench-item.js';
import { imageCount, writeBenchPrompts, type BenchPrompt, type PromptPart } from '../formats/chat-prompt.js';
import { confinedRealPath } from '../util/confined.js';
import { GsrError, errorMessage } from '../util/errors.js';
import type { Benchmark, DraftPrompt, PromptSettings } from './types.js';

/** Version of the benchmark prompt key recipe; bump when what goes into a key changes. */
export const BENCH_PROMPT_KEY_VERSION = 1;

/**
 * The key of a benchmark prompt: everything sent (texts, images by content, the response format)
 * and the prompt's place (benchmark, item, task, level, variant, meta); image paths are left out so
 * moving a dataset keeps keys.
 */
export function benchPromptKey(p: Omit<BenchPrompt, 'key'>): string {
  const parts = p.parts.map((part) => (part.type === 'text' ? part : { type: 'image', sha256: part.sha256 }));
  return hashCanonical({ v: BENCH_PROMPT_KEY_VERSION, benchmark: p.benchmark, item: p.item, task: p.task, level: p.level, variant: p.variant, parts, response_format: p.response_format, meta: p.meta, temperature: p.temperature });
}

export interface BenchPromptsSummary {
  out: string;
  items: number;
  prompts: number;
  images: number;
  /** Items whose prompts could not be built (unreadable image, bad settings), with why. */
  skipped: Array<{ item: string; reason: string }>;
}

/**
 * Builds every item's prompts with the plug-in, hashes their images (each file once), keys them and
 * writes the prompts file atomically. One bad item is skipped and reported, never fatal.
 */
export async function writeBenchPromptFile<I extends BenchItem>(benchmark: Benchmark<I>, items: Iterable<I>, settings: PromptSettings, context: unknown, out: string): Promise<BenchPromptsSummary> {
  const hashes = new Map<string, Promise<string>>();
  const sha = (path: string) => {
    let h = hashes.get(path);
    if (h === undefined) hashes.set(path, (h = sha256File(path, 'image')));
    return h;
  };
  const prompts: BenchPrompt[] = [];
  const summary: BenchPromptsSummary = { out, items: 0, prompts: 0, images: 0, skipped: [] };
  for (const item of items) {
    let drafts: DraftPrompt[];
    const built: BenchPrompt[] = [];
    try {
      drafts = benchmark.buildPrompts(item, settings, context);
      for (const d of drafts) {
        // Image paths are stored as real paths: the runner refuses one that leads through a symbolic link.
        // An image is read (hashed) only when it resolves inside its item's dataset root, or, for an
        // item without one, when no symbolic link leads to it (src/util/confined.ts).
        const place = (image: string) =>
          confinedRealPath(image, item.root).catch((err: NodeJS.ErrnoException) => {
            throw err instanceof GsrError ? err : new GsrError(`cannot read image ${image}: ${err.code ?? errorMessage(err)}`);
          });
        const parts: PromptPart[] = await Promise.all(
          d.parts.map(async (p) => {
            if (p.type !== 'image') return p;
            const image = await place(p.image);
            return { ...p, image, sha256: await sha(image) };
          }),
        );
        const body = { ...d, benchmark: benchmark.name, parts };
        built.push({ key: benchPromptKey(body), ...body });
      }
    } catch (err) {
      summary.skipped.push({ item: item.id, reason: errorMessage(err) });
      continue;
    }
    prompts.push(...built);
    summary.items++;
    summary.prompts += drafts.length;
    summary.images += drafts.reduce((n, d) => n + imageCount(d.parts), 0);
  }
  await writeBenchPrompts(out, prompts);
  return summary;
}
