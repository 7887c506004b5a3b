/**
 * GSR-Bench/What'sUp as a benchmark plug-in. It wraps the What'sUp stages' own code: items are
 * manifest items, prompts come from `buildItemPrompts` (one image, then the text, per rotation),
 * answers are read and judged by `scorePrompt`, and CircularEval groups an item's rotations in
 * `aggregate`. `toWhatsupRecord` turns a plug-in prompt back into the What'sUp prompt record,
 * byte for byte, so both paths can be compared (test/benchmarks/whatsup.test.ts).
 */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { resolveItemImage, itemBase } from '../../formats/image-paths.js';
import { ManifestItemSchema, MANIFEST_FILE, orderSplits, readManifest, type ManifestItem } from '../../formats/manifest.js';
import { isBenchPrompt, optionLetter, type AnyPrompt, type PromptRecord } from '../../formats/prompts.js';
import type { BenchPrompt } from '../../formats/chat-prompt.js';
import { AnswerError } from '../../mllm/errors.js';
import type { Answerer } from '../../mllm/types.js';
import { buildItemPrompts } from '../../prompts/build.js';
import { promptKey } from '../../prompts/key.js';
import { resolveTemplates } from '../../prompts/templates.js';
import { scorePrompt } from '../../scoring/reasoning.js';
import { GsrError } from '../../util/errors.js';
import { keyedUniform } from '../../util/random.js';
import { mean } from '../../util/stats.js';
import { scoreCells } from '../score.js';
import type { BaselineOptions, Benchmark, DraftPrompt, ReportTable, ScoreCell, ScoredResponse } from '../types.js';

export const WhatsupItemSchema = ManifestItemSchema.extend({
  benchmark: z.literal('whatsup'),
  /** One task: caption choice (TG or MC is a prompt setting). */
  task: z.literal('reasoning'),
  /** The split. */
  level: z.string().min(1),
  /** Absolute folder the image path resolves against. */
  root: z.string().min(1),
}).strict();
export type WhatsupItem = z.infer<typeof WhatsupItemSchema>;

/** A manifest item as a plug-in item (its image base made explicit, as `itemBase` resolves it). */
export function fromManifestItem(item: ManifestItem, manifestPath: string): WhatsupItem {
  return { ...item, benchmark: 'whatsup', task: 'reasoning', level: item.split, root: itemBase(item, manifestPath) };
}

export function parseWhatsupItem(raw: unknown): WhatsupItem {
  const r = WhatsupItemSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const id = (raw as { id?: unknown })?.id;
    throw new GsrError(`What'sUp item ${typeof id === 'string' ? id : '(no id)'}: ${issue.path.join('.') || '(record)'}: ${issue.message}`);
  }
  if (r.data.answer >= r.data.options.length) throw new GsrError(`What'sUp item ${r.data.id}: answer ${r.data.answer} is outside its ${r.data.options.length} options`);
  return r.data;
}

const SettingsSchema = z.strictObject({
  /** Caption choice as text generation (tg, the default) or multiple choice (mc). */
  task: z.enum(['tg', 'mc']).default('tg'),
  /** Rotations per item (default: one per option). */
  permutations: z.number().int().positive().optional(),
  /** A templates object as `gsr prompts build --templates` reads it, and the model it selects. */
  templates: z.unknown().optional(),
  model: z.string().optional(),
});

function parseSettings(raw: unknown) {
  const r = SettingsSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new GsrError(`What'sUp prompt settings: ${issue.path.join('.') || '(settings)'}: ${issue.message}`);
}

/** The What'sUp fields a prompt keeps in `meta`, to rebuild its prompt record. */
interface WhatsupMeta {
  split: string;
  relation: string;
  permutation: number[];
  rotation: number;
  options: string[];
  expected: string;
  answer_index: number;
}

export function buildWhatsupPrompts(item: WhatsupItem, rawSettings: unknown): DraftPrompt[] {
  const s = parseSettings(rawSettings);
  const templates = resolveTemplates(s.templates ?? {}, s.model, 'What\'sUp prompt settings');
  const image = resolveItemImage(item, join(item.root, MANIFEST_FILE));
  // The key needs the image's hash, which the shared prompt writer adds; toWhatsupRecord recomputes it.
  return buildItemPrompts(item, s.task, { templates, image, imageSha256: '', permutations: s.permutations }).map((r) => {
    const meta: WhatsupMeta = { split: r.split, relation: r.relation, permutation: r.permutation, rotation: r.rotation, options: r.options, expected: r.expected!, answer_index: r.answer_index! };
    return { item: r.item, task: r.task, level: r.split, variant: 'image', parts: [{ type: 'image', image: r.image }, { type: 'text', text: r.text }], meta: meta as unknown as Record<string, unknown> };
  });
}

/** The What'sUp prompt record of a plug-in prompt, as `gsr prompts build` writes it. */
export function toWhatsupRecord(p: BenchPrompt): PromptRecord {
  const m = p.meta as unknown as WhatsupMeta;
  const [img, txt] = p.parts;
  if (img?.type !== 'image' || txt?.type !== 'text' || img.sha256 === undefined || m === undefined) throw new GsrError(`prompt ${p.key}: not a written What'sUp plug-in prompt`);
  const task = p.task as 'tg' | 'mc';
  const key = promptKey({ item: p.item, task, base_task: undefined, text: txt.text, options: m.options, permutation: m.permutation, rotation: m.rotation, image_sha256: img.sha256 });
  return { key, item: p.item, split: m.split, relation: m.relation, image: img.image, task, permutation: m.permutation, rotation: m.rotation, text: txt.text, options: m.options, expected: m.expected, answer_index: m.answer_index };
}

export const WHATSUP_MODES = ['circular', 'vanilla'] as const;

/**
 * Cells per mode. Vanilla: one per prompt. Circular: one per item, correct only when all its
 * rotations are (invalid or failed when any is), so `n` counts items as CircularEval does.
 */
export function aggregateWhatsup(scored: ScoredResponse[]): ScoreCell[] {
  const vanilla = scored.filter((s) => s.mode !== 'circular');
  const items = new Map<string, ScoredResponse>();
  for (const s of scored) {
    if (s.mode !== 'circular') continue;
    const id = [s.model, s.task, s.level, s.variant, s.item].join('\0');
    const prev = items.get(id);
    if (prev === undefined) items.set(id, { ...s });
    else {
      prev.correct &&= s.correct;
      prev.credit = prev.correct ? 1 : 0;
      if (s.status !== 'ok' && prev.status === 'ok') prev.status = s.status;
      prev.valid &&= s.valid;
    }
  }
  return [...scoreCells(vanilla), ...scoreCells(items.values())];
}

/** Accuracy per split in each mode, and the Total Average (the mean over splits). */
export function whatsupTables(cells: ScoreCell[]): ReportTable[] {
  const splits = orderSplits(new Set(cells.map((c) => c.level)));
  const rows = [...new Set(cells.map((c) => `${c.model}\0${c.task}\0${c.mode}`))].map((k) => {
    const [model, task, mode] = k.split('\0');
    const acc = splits.map((s) => cells.find((c) => c.model === model && c.task === task && c.mode === mode && c.level === s)?.accuracy ?? null);
    const pct = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 10);
    return [model, task, mode, ...acc.map(pct), acc.every((x) => x !== null) ? pct(mean(acc as number[])) : null];
  });
  return [{ id: 'whatsup-splits', title: "What'sUp reasoning accuracy by split, %", columns: ['model', 'task', 'mode', ...splits, 'Total Average'], rows }];
}

function whatsupPrompt(p: AnyPrompt, name: string): BenchPrompt {
  if (!isBenchPrompt(p) || p.benchmark !== 'whatsup') throw new AnswerError(`${name} answers What'sUp plug-in prompts only`, false);
  return p;
}

/** The expected answer (a letter for MC, the caption for TG). */
function createOracle(_items: ReadonlyMap<string, WhatsupItem>, o: BaselineOptions): Answerer {
  return { name: o.name, answer: async (p) => (whatsupPrompt(p, o.name).meta as unknown as WhatsupMeta).expected };
}

/** A uniformly drawn option, seeded by the prompt key. */
function createRandom(_items: ReadonlyMap<string, WhatsupItem>, o: BaselineOptions): Answerer {
  return {
    name: o.name,
    async answer(p) {
      const bp = whatsupPrompt(p, o.name);
      const m = bp.meta as unknown as WhatsupMeta;
      const k = Math.floor(keyedUniform(o.seed, bp.key) * m.options.length);
      return bp.task === 'mc' ? optionLetter(k) : m.options[k];
    },
  };
}

export const whatsup: Benchmark<WhatsupItem> = {
  name: 'whatsup',
  title: "GSR-Bench on What'sUp: caption choice",
  parseItem: parseWhatsupItem,
  // A manifest folder (`gsr dataset import whatsup` or `gsr dataset synth` output): its manifest.jsonl.
  async importItems(root) {
    const file = join(resolve(root), MANIFEST_FILE);
    const items: WhatsupItem[] = [];
    for await (const item of readManifest(file)) items.push(fromManifestItem(item, file));
    return { items };
  },
  buildPrompts: (item, settings) => buildWhatsupPrompts(item, settings),
  settingsSchemas: { prompts: SettingsSchema },
  modes: WHATSUP_MODES,
  judge(item, prompt, output) {
    const r = scorePrompt(toWhatsupRecord(prompt), { key: prompt.key, model: '', output, status: 'ok', error: null, item: item.id });
    return { valid: r.status === 'ok', correct: r.correct, extracted: r.extracted ?? undefined, reason: r.reason ?? undefined };
  },
  aggregate: aggregateWhatsup,
  baselines: { oracle: createOracle, random: createRandom },
  tables: whatsupTables,
};
