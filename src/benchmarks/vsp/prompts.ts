/**
 * VSP prompts as the official runners assemble them: prompt-text.txt cut at its placeholders, the
 * prompt figures and the item's images interleaved in order, and k in-context examples (drawn with
 * a recorded seed) under "## Example:" before the final "Now ..."/"Please ..." line. Text-only
 * variants replace every image by its text (see docs/vsp.md).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { seededRandom } from '../../util/random.js';
import { mergeTextParts, type PromptPart } from '../../formats/chat-prompt.js';
import { GsrError } from '../../util/errors.js';
import type { DraftPrompt } from '../types.js';
import { spellMoves } from './parse.js';
import { VSP_TASKS, type ExamplePart, type VspContext, type VspItem } from './item.js';

export const VSP_VARIANTS = ['image', 'pure_text', 'table'] as const;
export type VspVariant = (typeof VSP_VARIANTS)[number];

export const VspPromptSettingsSchema = z.strictObject({
  /** In-context examples per prompt: 0, 1, 2, 4 or 8 (blocks main: at most 4). */
  shots: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(4), z.literal(8)]).default(0),
  /** Seed of the example draw (recorded in each prompt's meta). */
  seed: z.number().int().nonnegative().default(1),
  /** Input variants to build where the item has them (image is always available). */
  variants: z.array(z.enum(VSP_VARIANTS)).min(1).default(['image']),
  tasks: z.array(z.enum(VSP_TASKS)).min(1).optional(),
});
export type VspPromptSettings = z.infer<typeof VspPromptSettingsSchema>;

const PLACEHOLDER = /<(IMAGE-1|IMAGE-2|TEST-IMAGE(?:-1|-2)?|QUESTION|CANDIDATES|ACTION-SEQ)>/;

/** Which examples an item gets: k of its level's pool, drawn from (seed, item id). */
export function drawExamples(poolIds: readonly number[], k: number, seed: number, itemId: string): number[] {
  if (k > poolIds.length) throw new GsrError(`${itemId}: ${k} in-context examples asked, the level has ${poolIds.length}`);
  const digest = createHash('sha256').update(`${seed}\0${itemId}`).digest();
  const rand = seededRandom(digest.readUInt32BE(0));
  const ids = [...poolIds];
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids.slice(0, k);
}

/** Variants an item has (text ones only where the data gives the item's text rendering). */
export function itemVariants(item: VspItem): VspVariant[] {
  return VSP_VARIANTS.filter((v) => v === 'image' || (item[v] !== undefined && item[v]!.length === item.images.length));
}

function resolvePart(root: string, p: ExamplePart): PromptPart {
  return p.type === 'text' ? p : { type: 'image', image: join(root, p.image) };
}

/** Splits a text at the start of its last line beginning "Now " or "Please " (where examples go). */
function splitBeforeFinalLine(text: string): [string, string] | null {
  const m = [...text.matchAll(/^(Now |Please )/gm)].pop();
  return m === undefined ? null : [text.slice(0, m.index), text.slice(m.index)];
}

/** Builds the prompts of one item for the chosen variants. */
export function buildVspPrompts(item: VspItem, settings: VspPromptSettings, context: VspContext): DraftPrompt[] {
  if (settings.tasks && !settings.tasks.includes(item.task)) return [];
  const task = context.tasks[item.task];
  if (task === undefined) throw new GsrError(`${item.id}: the context has no task ${item.task}`);
  if (item.task === 'blocks-main' && settings.shots > 4) throw new GsrError(`blocks main takes at most 4 in-context examples (asked ${settings.shots})`);
  const pool = task.examples[item.level] ?? [];
  const drawn = settings.shots > 0 ? drawExamples(pool.map((e) => e.id), settings.shots, settings.seed, item.id) : [];
  const root = item.root;
  const out: DraftPrompt[] = [];
  for (const variant of itemVariants(item).filter((v) => settings.variants.includes(v))) {
    const textual = variant !== 'image';
    const pieces = task.template.split(PLACEHOLDER);
    const parts: PromptPart[] = [];
    const testPart = (k: number): PromptPart => (textual ? { type: 'text', text: item[variant]![k] } : { type: 'image', image: join(root, item.images[k]) });
    for (let i = 0; i < pieces.length; i++) {
      if (i % 2 === 0) {
        parts.push({ type: 'text', text: pieces[i] });
        continue;
      }
      const name = pieces[i];
      if (name === 'IMAGE-1' || name === 'IMAGE-2') {
        if (!textual) parts.push({ type: 'image', image: join(root, task.visuals[name]) });
        else if (task.visual_texts?.[variant]?.[name] !== undefined) parts.push({ type: 'text', text: task.visual_texts[variant][name] });
        else {
          // The legend figure has no text form: drop it and the sentence introducing it.
          const prev = parts[parts.length - 1];
          if (prev?.type === 'text') prev.text = prev.text.replace(/[^\n]*\S[^\n]*\n*$/, '');
        }
      } else if (name === 'TEST-IMAGE' || name === 'TEST-IMAGE-1') parts.push(testPart(0));
      else if (name === 'TEST-IMAGE-2') parts.push(testPart(1));
      else if (name === 'ACTION-SEQ') parts.push({ type: 'text', text: item.task === 'maze-t4' ? spellMoves(item.question ?? '') : item.question ?? '' });
      else parts.push({ type: 'text', text: item.question ?? '' });
    }
    // Runner orders that differ from prompt-text.txt.
    if (item.task === 'blocks-t2') swapLastTwo(parts);
    if (item.task === 'collision') parts.push({ type: 'text', text: `\n${item.question}` });
    if (drawn.length > 0) insertExamples(parts, drawn.map((id) => {
      const ex = pool.find((e) => e.id === id)!;
      const body = ex[variant];
      if (body === undefined) throw new GsrError(`${item.id}: the ${item.task} examples have no ${variant} form`);
      return body.map((p) => resolvePart(root, p));
    }), item.id);
    out.push({
      item: item.id, task: item.task, level: item.level, variant, parts: mergeTextParts(parts),
      meta: settings.shots > 0 ? { shots: settings.shots, seed: settings.seed, examples: drawn } : { shots: 0 },
    });
  }
  return out;
}

/** Blocks T2: the runner sends the image, then the question (prompt-text.txt shows the reverse). */
function swapLastTwo(parts: PromptPart[]): void {
  const idx = parts.map((p, i) => [p, i] as const).filter(([p]) => p.type === 'image' || (p.type === 'text' && p.text.trim() !== '')).map(([, i]) => i);
  const [a, b] = idx.slice(-2);
  if (a !== undefined && b !== undefined) [parts[a], parts[b]] = [parts[b], parts[a]];
}

function insertExamples(parts: PromptPart[], examples: PromptPart[][], id: string): void {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    if (p.type !== 'text') continue;
    const cut = splitBeforeFinalLine(p.text);
    if (cut === null) continue;
    parts.splice(i, 1, { type: 'text', text: cut[0] }, { type: 'text', text: '## Example:\n' }, ...examples.flat(), { type: 'text', text: cut[1] });
    return;
  }
  throw new GsrError(`${id}: the prompt has no final "Now ..." or "Please ..." line to put examples before`);
}
