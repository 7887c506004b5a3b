import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { simplePredictionBand } from '../analysis/ols.js';
import type { RegressionReport } from '../analysis/regression.js';
import { formatP } from '../util/stats.js';

/** Compiles a Vega-Lite spec and renders it headless to an SVG string (no browser, no network). */
export async function vegaLiteToSvg(spec: TopLevelSpec): Promise<string> {
  const { spec: vgSpec } = compile(spec);
  // A loader that refuses every fetch: plots carry their data inline.
  const loader = vega.loader();
  loader.load = async (uri: string) => {
    throw new Error(`plot tried to load ${uri}`);
  };
  const view = new vega.View(vega.parse(vgSpec), { renderer: 'none', loader });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * Scatter of a one-regressor fit with its fitted line and 95% confidence band of the mean,
 * points labelled by model.
 */
export function regressionPlotSpec(r: RegressionReport, x: number[], y: number[], title?: string): TopLevelSpec {
  if (r.x_names.length !== 1) throw new RangeError('the regression plot needs exactly one regressor');
  const lo = Math.min(...x);
  const hi = Math.max(...x);
  const grid = Array.from({ length: 41 }, (_, i) => lo + ((hi - lo) * i) / 40);
  const band = simplePredictionBand(y, x, r, grid);
  const points = r.labels.map((label, i) => ({ label, x: x[i], y: y[i] }));
  const slope = r.coefficients[1];
  const xTitle = r.x_names[0];
  const yTitle = r.y_name;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: title ?? `${yTitle} ~ ${xTitle}: slope ${slope.estimate.toFixed(3)}, p = ${formatP(slope.p)}, R² = ${r.r2.toFixed(3)}, n = ${r.n}`,
    width: 460,
    height: 320,
    layer: [
      {
        data: { values: band },
        mark: { type: 'area', opacity: 0.2, color: '#4c78a8' },
        encoding: { x: { field: 'x', type: 'quantitative', title: xTitle }, y: { field: 'low', type: 'quantitative', title: yTitle }, y2: { field: 'high' } },
      },
      { data: { values: band }, mark: { type: 'line', color: '#4c78a8' }, encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'fit', type: 'quantitative' } } },
      {
        data: { values: points },
        layer: [
          { mark: { type: 'point', filled: true, size: 60, color: '#e45756' }, encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } } },
          { mark: { type: 'text', dx: 6, align: 'left', fontSize: 9 }, encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' }, text: { field: 'label' } } },
        ],
      },
    ],
  } as TopLevelSpec;
}

/** Grouped bar chart of values by category and series (position bias, per-relation accuracy). */
export function barChartSpec(rows: { category: string; series: string; value: number }[], title: string, yTitle: string): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: rows },
    mark: 'bar',
    width: { step: 14 },
    height: 200,
    encoding: {
      x: { field: 'category', type: 'nominal', title: null },
      xOffset: { field: 'series', type: 'nominal' },
      y: { field: 'value', type: 'quantitative', title: yTitle },
      color: { field: 'series', type: 'nominal', title: 'model' },
    },
  } as TopLevelSpec;
}
