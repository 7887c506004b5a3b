/** The regression's inputs (a CSV or results folders) and its fit, with one-line user errors. */
import { readFile } from 'node:fs/promises';
import { GsrError } from '../util/errors.js';
import { loadAllResults } from './load-results.js';
import { tableFromResults } from './metrics.js';
import { regress, tableFromCsvs, type RegressionReport, type RegressionTable } from './regression.js';

/** Fits a regression table, turning the library's range errors into one-line user errors. */
export function fitTable(table: RegressionTable, source: string): RegressionReport {
  if (table.labels.length < table.x.length + 2) {
    const why = table.skipped.length ? `; skipped: ${table.skipped.map((s) => `${s.label} (${s.reason})`).join('; ')}` : '';
    throw new GsrError(`${source}: ${table.labels.length} usable rows, too few to fit ${table.x.length} regressor(s)${why}`);
  }
  try {
    return regress(table);
  } catch (err) {
    throw new GsrError(`${source}: ${(err as Error).message}`);
  }
}

export interface RegressionInput {
  /** CSV files with one row per model (with `y` and `x` as column names), joined on the label column. */
  data?: string[];
  /** Results folders, one per model (with `y` and `x` as metric names). */
  results?: string[];
  y?: string;
  x?: string[];
  label?: string;
}

/**
 * Reads the rows to regress from a CSV or from results folders (defaults: the paper's
 * `reasoning:whatsup-a:circular` on `grounding:whatsup-a/subject`). Errors are one-line GsrErrors.
 */
export async function loadRegressionTable(o: RegressionInput): Promise<{ table: RegressionTable; source: string; warnings: string[] }> {
  if ((o.data === undefined) === (o.results === undefined)) throw new GsrError('give either --data FILE.csv or --results DIR...');
  if (o.data !== undefined) {
    if (!o.y || !o.x?.length) throw new GsrError('--data needs --y COL and at least one --x COL');
    const files = await Promise.all(
      o.data.map(async (source) => {
        try {
          return { source, text: await readFile(source, 'utf8') };
        } catch (err) {
          throw new GsrError(`cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
      }),
    );
    try {
      return { table: tableFromCsvs(files, o.y, o.x, o.label), source: o.data.join(' + '), warnings: [] };
    } catch (err) {
      throw new GsrError((err as Error).message);
    }
  }
  const results = await loadAllResults(o.results!);
  const y = o.y ?? 'reasoning:whatsup-a:circular';
  const x = o.x?.length ? o.x : ['grounding:whatsup-a/subject'];
  try {
    return { table: tableFromResults(results, y, x), source: 'results', warnings: results.flatMap((r) => r.warnings) };
  } catch (err) {
    throw new GsrError((err as Error).message);
  }
}
