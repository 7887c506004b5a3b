/**
 * VLMEvalKit's files (docs/interop.md): the custom-dataset TSV that `gsr prompts export --format
 * vlmevalkit` writes, and the prediction files VLMEvalKit writes back (the dataset's rows less the
 * image column, plus `prediction`; xlsx, tsv or json by its PRED_FORMAT).
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { GsrError, errorMessage } from '../util/errors.js';
import { writeFileAtomic } from '../util/fs.js';
import { parsePythonJson } from '../util/python-json.js';

/** One row of an exported dataset TSV. */
export const VlmevalkitRowSchema = z.strictObject({
  /** Unique integer: the prompt's 0-based position in the prompt file it was exported from. */
  index: z.number().int().nonnegative(),
  /** base64 of the image file, or a Python list literal of several (VLMEvalKit's multi-image form). */
  image: z.string().optional(),
  /** File names VLMEvalKit gives the decoded images (embedded), or the images' absolute paths (paths only). */
  image_path: z.string().optional(),
  question: z.string(),
  /** The expected answer where the prompt states it (a letter for MC, the caption for TG). */
  answer: z.string().optional(),
  /** Options A, B, ... in the order shown (the mcq shape only). */
  options: z.array(z.string()).optional(),
  /** The gsr prompt key: the importer checks it against the prompt at `index`. */
  key: z.string().min(1),
  item: z.string(),
  task: z.string(),
  split: z.string(),
  category: z.string().optional(),
});
export type VlmevalkitRow = z.infer<typeof VlmevalkitRowSchema>;

/** A Python list literal of strings, as VLMEvalKit's `toliststr` reads a multi-image cell. */
export function pythonList(values: readonly string[]): string {
  return `[${values.map((v) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;
}

/** Writes an exported dataset TSV atomically (header, then one row per prompt; fields quoted as needed). */
export async function writeVlmevalkitTsv(path: string, rows: readonly VlmevalkitRow[]): Promise<void> {
  const letters = Math.max(0, ...rows.map((r) => r.options?.length ?? 0));
  if (letters > 26) throw new GsrError(`${path}: a prompt has ${letters} options; VLMEvalKit's option columns stop at Z`);
  const optionColumns = Array.from({ length: letters }, (_, i) => String.fromCharCode(65 + i));
  const has = (k: keyof VlmevalkitRow) => rows.some((r) => r[k] !== undefined);
  const columns = [
    'index', ...(has('image') ? ['image'] : []), ...(has('image_path') ? ['image_path'] : []), 'question',
    ...(has('answer') ? ['answer'] : []), ...optionColumns, 'key', 'item', 'task', 'split', ...(has('category') ? ['category'] : []),
  ];
  const records = rows.map((r) => {
    const o = Object.fromEntries(optionColumns.map((c, i) => [c, r.options?.[i] ?? '']));
    return columns.map((c) => (c in o ? o[c] : text((r as Record<string, unknown>)[c] ?? '')));
  });
  await writeFileAtomic(path, stringify([columns, ...records], { delimiter: '\t', quoted_string: true, record_delimiter: '\n' }));
}

/** A cell as text: strings as they are, numbers and booleans as JavaScript prints them, anything else as JSON. */
function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : JSON.stringify(v) ?? '';
}

/** The prediction file formats VLMEvalKit writes (its PRED_FORMAT). */
export const PREDICTION_FORMATS = ['xlsx', 'tsv', 'json'] as const;

/** A prediction file row: its 1-based place in the file and its cells by column name. */
export interface PredictionRow {
  record: number;
  cells: Record<string, unknown>;
}

/** Reads the rows of a VLMEvalKit prediction file (xlsx, tsv or json, by extension). */
export async function readVlmevalkitPredictions(path: string): Promise<PredictionRow[]> {
  const ext = extname(path).slice(1).toLowerCase();
  if (!(PREDICTION_FORMATS as readonly string[]).includes(ext)) {
    throw new GsrError(`${path}: VLMEvalKit prediction files are .xlsx, .tsv or .json (PRED_FORMAT)${ext === 'pkl' ? '; pickles are never read' : ''}`);
  }
  let rows: Array<Record<string, unknown>>;
  try {
    rows = ext === 'xlsx' ? await readXlsx(path) : ext === 'tsv' ? readTsv(await readFile(path, 'utf8')) : readJsonRecords(await readFile(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new GsrError(`file not found: ${path}`);
    throw new GsrError(`${path}: ${err instanceof GsrError ? err.message : `not a readable ${ext} file (${code ?? errorMessage(err).split('\n')[0]})`}`);
  }
  return rows.map((cells, i) => ({ record: i + 1, cells }));
}

function readTsv(text: string): Array<Record<string, unknown>> {
  return parse(text, { delimiter: '\t', columns: true, bom: true, skip_empty_lines: true }) as Array<Record<string, unknown>>;
}

/** pandas' `to_dict('records')` as `json.dump` writes it: a list of objects. */
function readJsonRecords(text: string): Array<Record<string, unknown>> {
  const value = parsePythonJson(text);
  if (!Array.isArray(value) || value.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) throw new GsrError('a prediction JSON file is a list of row objects');
  return value as Array<Record<string, unknown>>;
}

/** The first sheet: row 1 names the columns. exceljs is loaded here only, when an xlsx is read. */
async function readXlsx(path: string): Promise<Array<Record<string, unknown>>> {
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  const sheet = book.worksheets[0];
  if (sheet === undefined) throw new GsrError('the workbook has no sheet');
  const header: string[] = [];
  sheet.getRow(1).eachCell({ includeEmpty: true }, (cell, col) => (header[col] = text(cellValue(cell.value) ?? '')));
  const rows: Array<Record<string, unknown>> = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    if (!row.hasValues) continue;
    const cells: Record<string, unknown> = {};
    header.forEach((name, col) => {
      if (name) cells[name] = cellValue(row.getCell(col).value);
    });
    rows.push(cells);
  }
  return rows;
}

/** A cell's value as pandas would read it: text of rich text and links, numbers as numbers, blank as null. */
function cellValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return v;
  if (v instanceof Date) return v.toISOString();
  const o = v as { richText?: Array<{ text: string }>; text?: unknown; result?: unknown; error?: string };
  if (Array.isArray(o.richText)) return o.richText.map((t) => t.text).join('');
  if (o.text !== undefined) return cellValue(o.text);
  if ('result' in o) return cellValue(o.result);
  if (o.error !== undefined) return o.error;
  return text(v);
}

/** One prediction row read for import: the index, the prediction text (null when blank) and the key column. */
export type PredictionRecord = { index: number; prediction: string | null; key?: string } | { error: string };

/** Checks one prediction row: an integer `index` and a `prediction` cell. */
export function parsePredictionRow(cells: Record<string, unknown>): PredictionRecord {
  const rawIndex = cells.index;
  const index = typeof rawIndex === 'number' ? rawIndex : typeof rawIndex === 'string' && /^\s*\d+(?:\.0*)?\s*$/.test(rawIndex) ? Number(rawIndex) : NaN;
  if (!Number.isInteger(index) || index < 0) return { error: `index ${JSON.stringify(rawIndex ?? null)} is not a non-negative integer` };
  if (!('prediction' in cells)) return { error: 'no prediction column' };
  const p = cells.prediction;
  const prediction = p === null || p === undefined || (typeof p === 'number' && Number.isNaN(p)) ? null : text(p);
  const key = cells.key === null || cells.key === undefined || cells.key === '' ? undefined : text(cells.key);
  return { index, prediction, ...(key === undefined ? {} : { key }) };
}
