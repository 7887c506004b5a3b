/**
 * Perception models: what the agent sees after each step (docs/et-plan.md, "Perception").
 * `reference` is the engine's visible set (VirtualHome's partial-observation rule). `near-field`
 * keeps from that set only what is near the character: rooms and held objects always; other objects
 * within `radius` of the character's position; small objects only within `small_radius`. The
 * character stands at the centre of its last walk target (nothing in the engine moves it otherwise).
 */
import { REL, segmentLength, visibleNodes, type EngineGraph, type EngineState, type Vec3 } from './engine/index.js';
import type { EpisodeSettings } from './settings.js';

export interface Perception {
  /** Visible node ids, ascending. */
  see(state: EngineState, position: Vec3): number[];
}

/** Bounding-box volume (product of the box size), or null without a box. */
export function nodeVolume(graph: EngineGraph, id: number): number | null {
  const size = graph.node(id)?.raw.bounding_box?.size;
  return size ? size[0] * size[1] * size[2] : null;
}

/** The q-th percentile (0-100) with linear interpolation between order statistics (numpy's default). */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = ((sorted.length - 1) * q) / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const referencePerception: Perception = { see: (state) => visibleNodes(state).ids };

/** Near-field perception on one apartment; the small-object threshold is computed once per graph. */
export function nearFieldPerception(graph: EngineGraph, o: EpisodeSettings['near_field']): Perception {
  const grabbable = graph.ids.filter((id) => graph.node(id)!.properties.has('GRABBABLE'));
  const volumes = grabbable.map((id) => nodeVolume(graph, id)).filter((v): v is number => v !== null);
  const small = percentile(volumes, o.small_percentile);
  return {
    see(state, position) {
      const held = new Set([...state.out(state.characterId, REL.HOLDS_RH), ...state.out(state.characterId, REL.HOLDS_LH)]);
      return visibleNodes(state).ids.filter((id) => {
        if (graph.isRoom(id) || held.has(id)) return true;
        const centre = graph.node(id)!.center;
        // Without a position there is no distance to judge: seen, as the reference sees it.
        if (centre === undefined) return true;
        const d = segmentLength(position, centre);
        const volume = nodeVolume(graph, id);
        return d <= (volume !== null && volume < small ? o.small_radius : o.radius);
      });
    },
  };
}

/**
 * View-scan perception (the released protocol's stand-in for its 360° camera scan; docs/et-plan.md,
 * "The released protocol"): the engine's visible set cut to the character's own room (its room node,
 * what is in it and not hidden in a closed container, what is held), where a thing whose apparent size
 * (largest bounding-box side over the distance from the character) is below `min_angle` radians is
 * dropped: small things far away. The engine has no camera, so what furniture would block is not modelled.
 */
export function viewScanPerception(graph: EngineGraph, o: { min_angle: number }): Perception {
  return {
    see(state, position) {
      const room = state.out(state.characterId, REL.INSIDE).find((r) => graph.isRoom(r));
      const held = new Set([...state.out(state.characterId, REL.HOLDS_RH), ...state.out(state.characterId, REL.HOLDS_LH)]);
      return visibleNodes(state).ids.filter((id) => {
        if (held.has(id) || id === room) return true;
        if (graph.isRoom(id)) return false;
        const n = graph.node(id)!;
        const size = n.raw.bounding_box?.size;
        if (n.center === undefined || size === undefined) return true;
        const d = segmentLength(position, n.center);
        return d === 0 || Math.max(size[0], size[1], size[2]) / d >= o.min_angle;
      });
    },
  };
}
