/** The regression plot file of `gsr analyze regression --plot`. */
import sharp from 'sharp';
import type { RegressionReport, RegressionTable } from '../analysis/regression.js';
import { GsrError } from '../util/errors.js';
import { writeFileAtomic } from '../util/fs.js';
import { regressionPlotSpec, vegaLiteToSvg } from './plots.js';

/**
 * The SVG at 2x as a PNG cut to what is drawn, with a 16 px white border: Vega sizes the picture from
 * text widths it can only estimate without a canvas, which leaves empty margin.
 */
async function cropToChart(svg: string): Promise<Buffer> {
  const trimmed = await sharp(Buffer.from(svg), { density: 144 }).flatten({ background: '#ffffff' }).trim({ background: '#ffffff', threshold: 10 }).toBuffer();
  return sharp(trimmed).extend({ top: 16, bottom: 16, left: 16, right: 16, background: '#ffffff' }).png().toBuffer();
}

/** Renders the scatter + fit + confidence band of a one-regressor fit; `.png` paths are rasterised with sharp. */
export async function writeRegressionPlot(report: RegressionReport, table: RegressionTable, path: string): Promise<void> {
  if (table.x.length !== 1) throw new GsrError('--plot needs exactly one --x');
  const svg = await vegaLiteToSvg(regressionPlotSpec(report, table.x[0].values, table.y.values));
  if (path.toLowerCase().endsWith('.png')) await writeFileAtomic(path, await cropToChart(svg));
  else if (path.toLowerCase().endsWith('.svg')) await writeFileAtomic(path, svg);
  else throw new GsrError(`--plot ${path}: use a .svg or .png file name`);
}
