/**
 * The pinhole camera of synthetic scenes. World axes: X right, Y up, Z forward (horizontal); the
 * floor (or tabletop) is the plane Y = 0. The camera sits at (0, height, 0), looks along +Z,
 * pitched down by `pitch` radians, with no roll or yaw. Intrinsics: fx = fy = 0.5 * W / tan(30°)
 * (a 60° horizontal field of view), cx = W / 2, cy = H / 2. Depth is the distance along the
 * optical axis (camera-frame z), in metres, as metric depth models report it.
 */

export interface Camera {
  width: number;
  height: number;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  /** Height of the optical centre above the floor plane, metres. */
  heightM: number;
  /** Downward pitch, radians. */
  pitch: number;
}

export type Vec3 = [number, number, number];

export const HORIZONTAL_FOV_DEG = 60;

export function makeCamera(width: number, height: number, heightM: number, pitch: number): Camera {
  const fx = (0.5 * width) / Math.tan((HORIZONTAL_FOV_DEG / 2) * (Math.PI / 180));
  return { width, height, fx, fy: fx, cx: width / 2, cy: height / 2, heightM, pitch };
}

/**
 * World-space ray direction through a pixel centre, scaled so that its component along the
 * optical axis is 1: the ray parameter t of a hit is then its depth.
 */
export function pixelRay(cam: Camera, px: number, py: number): Vec3 {
  const u = (px + 0.5 - cam.cx) / cam.fx;
  const v = (py + 0.5 - cam.cy) / cam.fy;
  const s = Math.sin(cam.pitch);
  const c = Math.cos(cam.pitch);
  return [u, -v * c - s, -v * s + c];
}

/** Continuous pixel coordinates and depth of a world point; null behind the camera. */
export function project(cam: Camera, p: Vec3): { x: number; y: number; depth: number } | null {
  const s = Math.sin(cam.pitch);
  const c = Math.cos(cam.pitch);
  const rx = p[0];
  const ry = p[1] - cam.heightM;
  const rz = p[2];
  const depth = -ry * s + rz * c;
  if (depth <= 1e-3) return null;
  const down = -ry * c - rz * s;
  return { x: cam.cx + (cam.fx * rx) / depth, y: cam.cy + (cam.fy * down) / depth, depth };
}

/** Where the ray through a pixel centre meets the floor plane, or null if it points above the horizon. */
export function floorPointAt(cam: Camera, px: number, py: number): Vec3 | null {
  const d = pixelRay(cam, px, py);
  if (d[1] >= -1e-6) return null;
  const t = -cam.heightM / d[1];
  return [t * d[0], 0, t * d[2]];
}
