/**
 * The GSR-Bench paper's published tables (data/paper/*.csv) and the name map that ties results-folder
 * model names to the paper's model names (data/paper/paper-models.json). Schema-first; one reader each.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { z } from 'zod';
import { GsrError } from '../util/errors.js';
import { writeJsonAtomic } from '../util/fs.js';

/** The shipped folder: data/paper beside src/ (and beside dist/ in the package). */
export const PAPER_DATA_DIR = fileURLToPath(new URL('../../data/paper/', import.meta.url));
export const PAPER_NAMES_FILE = join(PAPER_DATA_DIR, 'paper-models.json');

/** paper-models.json: `names` maps a results-folder model name (any case) to a paper model name. */
export const PaperNameMapSchema = z.strictObject({
  description: z.string().optional(),
  names: z.record(z.string().min(1), z.string().min(1)),
});
export type PaperNameMap = z.infer<typeof PaperNameMapSchema>;

/** One row of a paper table: the model name and its numeric columns (percentages as printed). */
export interface PaperRow {
  model: string;
  values: Record<string, number>;
  /** Who measured the row, where the table says (Table 1: `whatsup`, `gsr-bench`, `chance`). */
  source?: string;
}

export interface PaperTables {
  table1: PaperRow[];
  table2: PaperRow[];
  table3: PaperRow[];
}

const TABLE_FILES = { table1: 'table1_tg_circular.csv', table2: 'table2_gscore.csv', table3: 'table3_dap.csv' } as const;

function rowsFromCsv(text: string, source: string): PaperRow[] {
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (err) {
    throw new GsrError(`${source}: malformed CSV (${(err as Error).message})`);
  }
  return records.map((r, i) => {
    if (!r.model) throw new GsrError(`${source}: row ${i + 2} has no model`);
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(r)) if (k !== 'model' && v !== '' && Number.isFinite(Number(v))) values[k] = Number(v);
    return { model: r.model, values, ...(r.source ? { source: r.source } : {}) };
  });
}

/** Reads the three tables from a folder laid out as data/paper (default: the shipped one). */
export async function readPaperTables(dir = PAPER_DATA_DIR): Promise<PaperTables> {
  const read = async (file: string) => {
    const path = join(dir, file);
    try {
      return rowsFromCsv(await readFile(path, 'utf8'), path);
    } catch (err) {
      if (err instanceof GsrError) throw err;
      throw new GsrError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  };
  return { table1: await read(TABLE_FILES.table1), table2: await read(TABLE_FILES.table2), table3: await read(TABLE_FILES.table3) };
}

/** Reads and checks a name map file (default: the shipped one). */
export async function readPaperNameMap(path = PAPER_NAMES_FILE): Promise<PaperNameMap> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new GsrError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GsrError(`${path}: not JSON (${(err as Error).message})`);
  }
  const parsed = PaperNameMapSchema.safeParse(json);
  if (!parsed.success) throw new GsrError(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Writes a name map atomically. */
export async function writePaperNameMap(path: string, map: PaperNameMap): Promise<void> {
  await writeJsonAtomic(path, PaperNameMapSchema.parse(map));
}
