import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { simplePredictionBand } from '../analysis/ols.js';
import type { RegressionReport } from '../analysis/regression.js';
import { formatP } from '../util/stats.js';
import { parseMetric, type MetricSpec } from '../analysis/metrics.js';

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

/** Readable split names for axis labels; other splits are shown as named. */
const SPLIT_NAMES: Record<string, string> = {
  'whatsup-a': "What'sUp Subset A",
  'whatsup-b': "What'sUp Subset B",
  'coco-one': 'COCO-spatial one',
  'coco-two': 'COCO-spatial two',
  'gqa-one': 'GQA-spatial one',
  'gqa-two': 'GQA-spatial two',
  total: 'Total Average',
};

/**
 * A metric id (`reasoning:whatsup-a:circular`, `grounding:whatsup-a/subject`; src/analysis/metrics.ts)
 * as an axis label, or null when the name is not a metric id (a CSV column).
 */
export function metricLabel(id: string): string | null {
  let m: MetricSpec;
  try {
    m = parseMetric(id);
  } catch {
    return null;
  }
  if (m.kind === 'grounding') {
    if (m.split === 'avg') return 'Avg G-Score';
    const [split, role] = m.split.split('/');
    return `G-Score, ${SPLIT_NAMES[split] ?? split}${role ? ` ${role}s` : ''}`;
  }
  const measure = m.measure === 'circular' ? 'CircularEval' : 'VanillaEval';
  return `${measure}, ${SPLIT_NAMES[m.split] ?? m.split}${m.variant ? ` (${m.variant.toUpperCase()})` : ''}`;
}

/**
 * An axis for a value: accuracies (metric ids) run over 0-100% as the report's tables print them,
 * whatever the data, with the axis set off the plot so points at 0 stay visible; other values keep
 * the data's range.
 */
function axisFor(name: string): { title: string; scale: Record<string, unknown>; axis: Record<string, unknown> } {
  const label = metricLabel(name);
  if (label === null) return { title: name, scale: { zero: false }, axis: { offset: 6 } };
  return { title: `${label} (%)`, scale: { domain: [0, 1], nice: false }, axis: { format: '.0%', offset: 6 } };
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
  const ax = axisFor(r.x_names[0]);
  const ay = axisFor(r.y_name);
  const X = { field: 'x', type: 'quantitative', title: ax.title, scale: ax.scale, axis: ax.axis };
  const Y = { field: 'y', type: 'quantitative', title: ay.title, scale: ay.scale, axis: ay.axis };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    // A short title and the fit below it: a long one-line title widened the picture with empty margin.
    title: title ?? { text: `${metricLabel(r.y_name) ?? r.y_name} against ${metricLabel(r.x_names[0]) ?? r.x_names[0]}`, subtitle: `slope ${slope.estimate.toFixed(3)}, p = ${formatP(slope.p)}, R² = ${r.r2.toFixed(3)}, n = ${r.n}` },
    width: 460,
    height: 320,
    layer: [
      // The band and line are clipped to the axes: an interval past 100% must not stretch them.
      { data: { values: band }, mark: { type: 'area', opacity: 0.2, color: '#4c78a8', clip: true }, encoding: { x: X, y: { ...Y, field: 'low' }, y2: { field: 'high' } } },
      { data: { values: band }, mark: { type: 'line', color: '#4c78a8', clip: true }, encoding: { x: X, y: { ...Y, field: 'fit' } } },
      {
        data: { values: points },
        layer: [
          { mark: { type: 'point', filled: true, size: 60, color: '#e45756', opacity: 1 }, encoding: { x: X, y: Y } },
          { mark: { type: 'text', dx: 6, align: 'left', fontSize: 9 }, encoding: { x: X, y: Y, text: { field: 'label' } } },
        ],
      },
    ],
  } as TopLevelSpec;
}

/** Tableau 20, the ten strong colours first: distinct up to 20 series (CIE76 ΔE ≥ 11 between any two). */
const TABLEAU20 = [
  '#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b6992d', '#499894', '#d37295', '#b07aa1', '#9d7660', '#79706e',
  '#a0cbe8', '#ffbe7d', '#ff9d9a', '#8cd17d', '#f1ce63', '#86bcb6', '#fabfd2', '#d4a6c8', '#d7b5a6', '#bab0ac',
];

/** CIE L*a*b* (D65) to sRGB hex, channels clamped. */
function labHex(l: number, a: number, b: number): string {
  const fy = (l + 16) / 116;
  const inv = (t: number) => (t ** 3 > 0.008856 ? t ** 3 : (t - 16 / 116) / 7.787);
  const [x, y, z] = [0.95047 * inv(fy + a / 500), inv(fy), 1.08883 * inv(fy - b / 200)];
  const lin = [3.2406 * x - 1.5372 * y - 0.4986 * z, -0.9689 * x + 1.8758 * y + 0.0415 * z, 0.0557 * x - 0.204 * y + 1.057 * z];
  return '#' + lin.map((c) => Math.round(255 * Math.min(1, Math.max(0, c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055))).toString(16).padStart(2, '0')).join('');
}

/**
 * `n` colours for `n` series: Tableau 20 up to 20, beyond that hues evenly round a ring of the
 * L*a*b* space at three lightnesses, so neighbours in the legend differ in lightness too.
 */
export function palette(n: number): string[] {
  if (n <= TABLEAU20.length) return TABLEAU20.slice(0, n);
  return Array.from({ length: n }, (_, i) => {
    const hue = (2 * Math.PI * i) / n;
    return labHex([45, 65, 80][i % 3], 55 * Math.cos(hue), 55 * Math.sin(hue));
  });
}

/** Grouped bar chart of shares by category and series (position bias, per-relation accuracy), in % as the tables. */
export function barChartSpec(rows: { category: string; series: string; value: number }[], title: string, yTitle: string): TopLevelSpec {
  const series = [...new Set(rows.map((r) => r.series))];
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: rows },
    mark: 'bar',
    width: { step: 14 },
    height: 200,
    encoding: {
      x: { field: 'category', type: 'nominal', title: null },
      xOffset: { field: 'series', type: 'nominal', sort: series },
      y: { field: 'value', type: 'quantitative', title: `${yTitle} (%)`, scale: { domain: [0, 1], nice: false }, axis: { format: '.0%' } },
      color: { field: 'series', type: 'nominal', title: 'model', sort: series, scale: { domain: series, range: palette(series.length) } },
    },
  } as TopLevelSpec;
}
