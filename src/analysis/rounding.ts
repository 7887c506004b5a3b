import { simpleSlope } from './regression.js';
import { formatP } from '../util/stats.js';

/**
 * How much a one-regressor fit can move when every printed value may be off by up to its rounding
 * (±half a unit of the last printed digit), and whether a published slope is reachable.
 */
export interface RoundingSensitivity {
  /** Largest change allowed per value (0.05 for values printed with one decimal). */
  half_unit: number;
  slope: { fitted: number; low: number; high: number };
  p: { fitted: number; low: number; high: number };
  /**
   * When the target slope lies in [low, high]: values within the rounding that give exactly the target
   * slope (on the straight path from the printed values to the extreme corner), and the p there.
   */
  at_target: { slope: number; p: number; x: number[]; y: number[]; max_change: number } | null;
}

type Point = { x: number[]; y: number[] };
const fitAt = (v: Point) => simpleSlope(v.x, v.y);

/**
 * Extreme of `score` over the corners of the box (every value moved by ±h), by a greedy corner search:
 * start at the corner the gradient points to, flip single values while that improves the score. The
 * slope is linear in y and nearly linear in x at this scale, so the search ends at the extreme corner;
 * it is a search, not a proof.
 */
function extremeCorner(base: Point, h: number, score: (v: Point) => number): Point {
  const n = base.x.length;
  const move = (signs: number[]): Point => ({ x: base.x.map((v, i) => v + signs[i] * h), y: base.y.map((v, i) => v + signs[n + i] * h) });
  const eps = h * 1e-3;
  const s0 = score(base);
  const signs: number[] = Array.from({ length: 2 * n }, (_, j) => {
    const d = Array.from({ length: 2 * n }, (_, k) => (k === j ? 1 : 0));
    const up = score({ x: base.x.map((v, i) => v + d[i] * eps), y: base.y.map((v, i) => v + d[n + i] * eps) });
    return up >= s0 ? 1 : -1;
  });
  let best = score(move(signs));
  for (let improved = true; improved; ) {
    improved = false;
    for (let j = 0; j < 2 * n; j++) {
      signs[j] = -signs[j];
      const s = score(move(signs));
      if (s > best) {
        best = s;
        improved = true;
      } else signs[j] = -signs[j];
    }
  }
  return move(signs);
}

/** Slope and p ranges over the rounding box of (x, y), and the values that reach `targetSlope`. */
export function roundingSensitivity(x: number[], y: number[], halfUnit: number, targetSlope?: number): RoundingSensitivity {
  const base = { x, y };
  const fitted = fitAt(base);
  const lowSlope = extremeCorner(base, halfUnit, (v) => -fitAt(v).slope);
  const highSlope = extremeCorner(base, halfUnit, (v) => fitAt(v).slope);
  const lowP = extremeCorner(base, halfUnit, (v) => -fitAt(v).p);
  const highP = extremeCorner(base, halfUnit, (v) => fitAt(v).p);
  const slope = { fitted: fitted.slope, low: fitAt(lowSlope).slope, high: fitAt(highSlope).slope };
  const p = { fitted: fitted.p, low: fitAt(lowP).p, high: fitAt(highP).p };
  let atTarget: RoundingSensitivity['at_target'] = null;
  if (targetSlope !== undefined && targetSlope >= slope.low && targetSlope <= slope.high) {
    const corner = targetSlope < fitted.slope ? lowSlope : highSlope;
    const along = (t: number): Point => ({ x: x.map((v, i) => v + t * (corner.x[i] - v)), y: y.map((v, i) => v + t * (corner.y[i] - v)) });
    // The slope is continuous along the path, so bisection finds the target between its ends.
    let [lo, hi] = [0, 1];
    for (let it = 0; it < 100; it++) {
      const mid = (lo + hi) / 2;
      if ((fitAt(along(mid)).slope - targetSlope) * (fitted.slope - targetSlope) > 0) lo = mid;
      else hi = mid;
    }
    const v = along(hi);
    const f = fitAt(v);
    atTarget = { slope: f.slope, p: f.p, x: v.x, y: v.y, max_change: hi * halfUnit };
  }
  return { half_unit: halfUnit, slope, p, at_target: atTarget };
}

/** One line: the fitted slope and p with their ranges under rounding. */
export function formatRounding(label: string, r: RoundingSensitivity): string {
  return (
    `${label}: within ±${r.half_unit} rounding, slope ${r.slope.fitted.toFixed(3)} in [${r.slope.low.toFixed(3)}, ${r.slope.high.toFixed(3)}], ` +
    `p ${formatP(r.p.fitted)} in [${formatP(r.p.low)}, ${formatP(r.p.high)}]`
  );
}
