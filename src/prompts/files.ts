import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { readCocoFile } from '../formats/coco.js';
import { realItemImage } from '../formats/image-paths.js';
import { ManifestItemSchema } from '../formats/manifest.js';
import { writePromptFile, type PromptRecord, type PromptTask } from '../formats/prompts.js';
import { GsrError, errorMessage, isMachineFaultOnRead } from '../util/errors.js';
import { sha256File } from '../util/hash.js';
import { readJsonl } from '../util/jsonl.js';
import { buildItemPrompts } from './build.js';
import { depthHint, indexDepth, type DepthStat, type HintDepth } from './depth-hint.js';
import { resolveTemplates, type Templates } from './templates.js';

/** Reads a YAML or JSON template override file and resolves it for one model. */
export async function loadTemplates(path: string | undefined, model?: string): Promise<Templates> {
  if (path === undefined) return resolveTemplates({}, undefined, '(defaults)');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new GsrError(`cannot read template file ${path}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text); // YAML is a superset of JSON, so this reads both.
  } catch (err) {
    throw new GsrError(`${path}: malformed YAML/JSON (${errorMessage(err).split('\n')[0]})`);
  }
  return resolveTemplates(parsed, model, path);
}

export interface BuildPromptsOptions {
  manifest: string;
  task: PromptTask;
  out: string;
  /** COCO annotation file; required for DAP. */
  annotations?: string;
  /** Rotations per item (default: one per option, capped at the item's option count). */
  permutations?: number;
  templatesFile?: string;
  /** Selects `models.<name>` in the template file. */
  model?: string;
  /** DAP: base prompt type (default mc) and depth statistic (default median). */
  baseTask?: 'tg' | 'mc';
  depthStat?: DepthStat;
  /** Keep only these splits / relations. */
  splits?: string[];
  relations?: string[];
}

export interface BuildPromptsSummary {
  out: string;
  task: PromptTask;
  items: number;
  prompts: number;
  /** Items left out, with why (bad manifest line, missing image, missing depth, ...). */
  skipped: Array<{ item: string; reason: string }>;
}

/**
 * Streams a manifest into a prompt JSONL file (written atomically). A bad item is skipped and
 * reported; it never stops the rest.
 */
export async function buildPromptFile(opts: BuildPromptsOptions): Promise<BuildPromptsSummary> {
  const templates = await loadTemplates(opts.templatesFile, opts.model);
  if (opts.task === 'dap' && opts.annotations === undefined) throw new GsrError('--task dap needs --annotations FILE (depth comes from the annotations)');
  const depth = opts.task === 'dap' ? indexDepth(await readCocoFile(opts.annotations!), opts.annotations!) : undefined;
  const summary: BuildPromptsSummary = { out: opts.out, task: opts.task, items: 0, prompts: 0, skipped: [] };
  const hashes = new Map<string, string>();
  const seen = new Set<string>();
  async function* prompts(): AsyncGenerator<PromptRecord> {
    let line = 0;
    for await (const raw of readJsonl<unknown>(opts.manifest)) {
      line++;
      const parsed = ManifestItemSchema.safeParse(raw);
      if (!parsed.success) {
        const id = (raw as { id?: unknown })?.id;
        const issue = parsed.error.issues[0];
        const reason = Array.isArray(raw) ? 'a JSON array, not an item: a manifest is JSONL, one item per line' : `invalid manifest record: ${issue.path.join('.')}: ${issue.message}`;
        summary.skipped.push({ item: typeof id === 'string' ? id : `${opts.manifest}:record ${line}`, reason });
        continue;
      }
      const item = parsed.data;
      if (opts.splits && !opts.splits.includes(item.split)) continue;
      if (opts.relations && !opts.relations.includes(item.relation)) continue;
      if (seen.has(item.id)) {
        summary.skipped.push({ item: item.id, reason: 'duplicate item id' });
        continue;
      }
      seen.add(item.id);
      if (item.answer >= item.options.length) {
        summary.skipped.push({ item: item.id, reason: `answer ${item.answer} is out of range for ${item.options.length} options` });
        continue;
      }
      let hint: string | undefined;
      let hintDepth: HintDepth | undefined;
      if (depth) {
        const h = depthHint(item, depth, templates, opts.depthStat ?? 'median');
        if ('skip' in h) {
          summary.skipped.push({ item: item.id, reason: h.skip });
          continue;
        }
        hint = h.hint;
        hintDepth = h.depth;
      }
      let image: string;
      let sha: string | undefined;
      try {
        // The real path, checked to stay inside the item's root; the runner refuses it if it stops being real.
        image = await realItemImage(item, opts.manifest);
        sha = hashes.get(image);
      } catch (err) {
        if (isMachineFaultOnRead(err)) throw err; // out of file handles: the machine's, not the item's
        summary.skipped.push({ item: item.id, reason: errorMessage(err) });
        continue;
      }
      if (sha === undefined) {
        try {
          sha = await sha256File(image, 'image');
        } catch (err) {
          if (isMachineFaultOnRead(err)) throw err;
          summary.skipped.push({ item: item.id, reason: errorMessage(err) });
          continue;
        }
        hashes.set(image, sha);
      }
      const built = buildItemPrompts(item, opts.task, { templates, image, imageSha256: sha, permutations: opts.permutations, baseTask: opts.baseTask, hint, hintDepth });
      summary.items++;
      summary.prompts += built.length;
      yield* built;
    }
  }
  await writePromptFile(opts.out, prompts());
  return summary;
}
