import sharp from 'sharp';
import { regress, type RegressionReport, type RegressionTable } from '../analysis/regression.js';
import { writeFileAtomic } from '../util/fs.js';
import { GsrError } from '../util/errors.js';
import { regressionPlotSpec, vegaLiteToSvg } from './plots.js';

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

/** Renders the scatter + fit + confidence band of a one-regressor fit; `.png` paths are rasterised with sharp. */
export async function writeRegressionPlot(report: RegressionReport, table: RegressionTable, path: string): Promise<void> {
  if (table.x.length !== 1) throw new GsrError('--plot needs exactly one --x');
  const svg = await vegaLiteToSvg(regressionPlotSpec(report, table.x[0].values, table.y.values));
  if (path.toLowerCase().endsWith('.png')) await writeFileAtomic(path, await sharp(Buffer.from(svg), { density: 144 }).png().toBuffer());
  else if (path.toLowerCase().endsWith('.svg')) await writeFileAtomic(path, svg);
  else throw new GsrError(`--plot ${path}: use a .svg or .png file name`);
}
