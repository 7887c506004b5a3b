/**
 * Ray-cast solids of synthetic scenes: axis-aligned boxes, spheres and vertical cylinders.
 * Rays start at the camera C with direction D (see camera.ts), so a hit's t is its depth.
 */
import type { Vec3 } from './camera.js';

export type Solid =
  | { kind: 'box'; min: Vec3; max: Vec3 }
  | { kind: 'sphere'; center: Vec3; radius: number }
  | { kind: 'cylinder'; center: Vec3; radius: number; y0: number; y1: number };

/** A solid with its surface colour (linear 0..1 RGB) and the scene entity it belongs to. */
export interface Part {
  solid: Solid;
  albedo: Vec3;
  /** Entity label: 1 subject, 2 object, 3+ distractors. */
  entity: number;
}

/** Nearest hit of a ray: depth t and unit normal; reused across calls to avoid allocation. */
export interface Hit {
  t: number;
  nx: number;
  ny: number;
  nz: number;
}

export function solidBounds(s: Solid): { min: Vec3; max: Vec3 } {
  switch (s.kind) {
    case 'box':
      return { min: s.min, max: s.max };
    case 'sphere':
      return {
        min: [s.center[0] - s.radius, s.center[1] - s.radius, s.center[2] - s.radius],
        max: [s.center[0] + s.radius, s.center[1] + s.radius, s.center[2] + s.radius],
      };
    case 'cylinder':
      return { min: [s.center[0] - s.radius, s.y0, s.center[2] - s.radius], max: [s.center[0] + s.radius, s.y1, s.center[2] + s.radius] };
  }
}

function hitBox(s: { min: Vec3; max: Vec3 }, c: Vec3, d: Vec3, out: Hit): boolean {
  let tmin = -Infinity;
  let tmax = Infinity;
  let axis = -1;
  let sign = 0;
  for (let a = 0; a < 3; a++) {
    const inv = 1 / d[a];
    let t0 = (s.min[a] - c[a]) * inv;
    let t1 = (s.max[a] - c[a]) * inv;
    let face = -1;
    if (t0 > t1) {
      const tmp = t0;
      t0 = t1;
      t1 = tmp;
      face = 1;
    }
    if (t0 > tmin) {
      tmin = t0;
      axis = a;
      sign = face;
    }
    if (t1 < tmax) tmax = t1;
    if (tmax < tmin) return false;
  }
  if (tmin <= 0 || axis < 0) return false;
  out.t = tmin;
  out.nx = axis === 0 ? sign : 0;
  out.ny = axis === 1 ? sign : 0;
  out.nz = axis === 2 ? sign : 0;
  return true;
}

function hitSphere(s: { center: Vec3; radius: number }, c: Vec3, d: Vec3, out: Hit): boolean {
  const ox = c[0] - s.center[0];
  const oy = c[1] - s.center[1];
  const oz = c[2] - s.center[2];
  const a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  const b = ox * d[0] + oy * d[1] + oz * d[2];
  const cc = ox * ox + oy * oy + oz * oz - s.radius * s.radius;
  const disc = b * b - a * cc;
  if (disc < 0) return false;
  const t = (-b - Math.sqrt(disc)) / a;
  if (t <= 0) return false;
  out.t = t;
  out.nx = (ox + t * d[0]) / s.radius;
  out.ny = (oy + t * d[1]) / s.radius;
  out.nz = (oz + t * d[2]) / s.radius;
  return true;
}

function hitCylinder(s: { center: Vec3; radius: number; y0: number; y1: number }, c: Vec3, d: Vec3, out: Hit): boolean {
  const ox = c[0] - s.center[0];
  const oz = c[2] - s.center[2];
  let best = Infinity;
  // Side wall.
  const a = d[0] * d[0] + d[2] * d[2];
  if (a > 1e-12) {
    const b = ox * d[0] + oz * d[2];
    const cc = ox * ox + oz * oz - s.radius * s.radius;
    const disc = b * b - a * cc;
    if (disc >= 0) {
      const t = (-b - Math.sqrt(disc)) / a;
      const y = c[1] + t * d[1];
      if (t > 0 && y >= s.y0 && y <= s.y1) {
        best = t;
        out.nx = (ox + t * d[0]) / s.radius;
        out.ny = 0;
        out.nz = (oz + t * d[2]) / s.radius;
      }
    }
  }
  // Caps: the top is seen from above, the bottom from below.
  if (Math.abs(d[1]) > 1e-12) {
    const capY = d[1] < 0 ? s.y1 : s.y0;
    const t = (capY - c[1]) / d[1];
    if (t > 0 && t < best) {
      const x = ox + t * d[0];
      const z = oz + t * d[2];
      if (x * x + z * z <= s.radius * s.radius) {
        best = t;
        out.nx = 0;
        out.ny = d[1] < 0 ? 1 : -1;
        out.nz = 0;
      }
    }
  }
  if (best === Infinity) return false;
  out.t = best;
  return true;
}

/** Intersects a ray with a solid; fills `out` and returns true on a hit in front of the camera. */
export function intersect(s: Solid, c: Vec3, d: Vec3, out: Hit): boolean {
  switch (s.kind) {
    case 'box':
      return hitBox(s, c, d, out);
    case 'sphere':
      return hitSphere(s, c, d, out);
    case 'cylinder':
      return hitCylinder(s, c, d, out);
  }
}
