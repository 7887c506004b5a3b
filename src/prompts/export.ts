/**
 * `gsr prompts export --format vlmevalkit`: a prompt file as a VLMEvalKit custom-dataset TSV
 * (docs/interop.md). Each prompt is one row; `index` is its 0-based place in the prompt file, which
 * `gsr responses import --from vlmevalkit` matches predictions by (checked by the `key` column).
 */
import { basename, extname } from 'node:path';
import { isBenchPrompt, promptParts, readAnyPrompts, type AnyPrompt } from '../formats/prompts.js';
import { pythonList, writeVlmevalkitTsv, type VlmevalkitRow } from '../formats/vlmevalkit.js';
import { readConfined } from '../util/confined.js';
import { GsrError, errorMessage } from '../util/errors.js';

import type { ExportImages, ExportShape } from './export-names.js';
export { EXPORT_IMAGES, EXPORT_SHAPES, type ExportImages, type ExportShape } from './export-names.js';

export interface ExportOptions {
  prompts: string;
  out: string;
  shape?: ExportShape;
  images?: ExportImages;
}

export interface ExportSummary {
  out: string;
  rows: number;
  images: number;
  shape: ExportShape;
}

/**
 * The question text VLMEvalKit gets: the text parts joined. Its custom datasets put every image
 * before the text, so where a prompt sets images between texts, each image's place is marked
 * `<image N>` (the marker VLMEvalKit's MMMU-style datasets use).
 */
export function exportQuestion(p: AnyPrompt): string {
  const parts = promptParts(p);
  const firstText = parts.findIndex((x) => x.type === 'text');
  const interleaved = firstText >= 0 && parts.slice(firstText).some((x) => x.type === 'image');
  let n = 0;
  return parts.map((x) => (x.type === 'text' ? x.text : interleaved ? `<image ${++n}>` : '')).join('');
}

/** The text without its option lines (`A. caption` each on its own line), when every one is found. */
function stem(text: string, options: readonly string[]): string {
  const lines = text.split('\n');
  const at = options.map((o, i) => lines.indexOf(`${String.fromCharCode(65 + i)}. ${o}`));
  return at.every((i) => i >= 0) ? lines.filter((_, i) => !at.includes(i)).join('\n') : text;
}

function place(p: AnyPrompt): Pick<VlmevalkitRow, 'item' | 'task' | 'split' | 'category'> {
  return isBenchPrompt(p) ? { item: p.item, task: p.task, split: p.level, category: p.task } : { item: p.item, task: p.task, split: p.split, category: p.relation };
}

/** Writes the TSV; refuses a file with a prompt that has no image (VLMEvalKit's custom image datasets need one). */
export async function exportVlmevalkit(opts: ExportOptions): Promise<ExportSummary> {
  const shape = opts.shape ?? 'prompt';
  const images = opts.images ?? 'embed';
  const prompts = await readAnyPrompts(opts.prompts);
  if (prompts.length === 0) throw new GsrError(`${opts.prompts}: no prompts`);
  const rows: VlmevalkitRow[] = [];
  let imageCount = 0;
  for (const [index, p] of prompts.entries()) {
    const paths = promptParts(p).flatMap((x) => (x.type === 'image' ? [x.image] : []));
    if (paths.length === 0) throw new GsrError(`${opts.prompts}: prompt ${index} (${p.key}) has no image; VLMEvalKit's custom datasets are image datasets`);
    imageCount += paths.length;
    const question = exportQuestion(p);
    const row: VlmevalkitRow = { index, question, key: p.key, ...place(p) };
    if (shape === 'mcq') {
      if (isBenchPrompt(p) || p.task !== 'mc' || p.expected === undefined) throw new GsrError(`${opts.prompts}: prompt ${index} (${p.key}) is not a multiple-choice prompt; --shape mcq takes What'sUp MC prompts (use --shape prompt)`);
      Object.assign(row, { question: stem(question, p.options), options: p.options, answer: p.expected });
    } else if (!isBenchPrompt(p) && p.expected !== undefined) row.answer = p.expected;
    if (images === 'paths') row.image_path = paths.length === 1 ? paths[0] : pythonList(paths);
    else {
      const encoded = await Promise.all(
        paths.map((path) => readConfined(path).then((b) => b.toString('base64'), (err: unknown) => {
          throw new GsrError(`prompt ${index} (${p.key}): cannot read image ${path}: ${err instanceof GsrError ? err.message : ((err as NodeJS.ErrnoException).code ?? errorMessage(err))}`);
        })),
      );
      // File names VLMEvalKit decodes the images to; the original extension keeps a PNG lossless.
      const names = paths.map((path, i) => `${index}${paths.length > 1 ? `_${i}` : ''}${extname(basename(path)).toLowerCase() || '.png'}`);
      row.image = encoded.length === 1 ? encoded[0] : pythonList(encoded);
      row.image_path = names.length === 1 ? names[0] : pythonList(names);
    }
    rows.push(row);
  }
  await writeVlmevalkitTsv(opts.out, rows);
  return { out: opts.out, rows: rows.length, images: imageCount, shape };
}
