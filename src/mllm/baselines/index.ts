/**
 * Baseline answerers, registered in the `answerers` registry on import: `random`, `always-first`,
 * `geometric`, and `simulated`. They answer every prompt type like a model and are scored like one.
 */
import { answerers } from '../registry.js';
import { baselineFactories } from './answerers.js';

for (const [name, factory] of Object.entries(baselineFactories)) {
  if (!answerers.has(name)) answerers.register(name, factory);
}

/** The baseline answerers themselves, their registry factories and the grid box format they write. */
export { createRandomAnswerer, createAlwaysFirstAnswerer, createGeometricAnswerer, GRID_BOX_FORMAT, baselineFactories } from './answerers.js';
/** The geometric reasoner (pure): evidence per relation from boxes, mask contact and depth. */
export { chooseCaption, relationEvidence, contactFromMask, DEPTH_UNIT, type SceneGeometry, type ObjectGeometry, type Contact } from './geometry-reasoner.js';
/** Which relation a caption states, and its converse. */
export { parseCaptionRelation, converseRelation, type CaptionRelation } from '../../datasets/caption.js';
/** How baselines write boxes (`qwen2-vl` 0-1000 grid, `llava` 0-1 fractions). */
export { formatBox, BASELINE_BOX_FORMATS, type BaselineBoxFormat } from './answer-text.js';
/** An annotation file indexed by item, and the scene geometry of one item. */
export { indexAnnotations, sceneOf, type AnnotationIndex, type ItemAnnotations } from './annotation-index.js';
/** The simulated answerer: boxes perturbed to a target G-Score, geometric reasoning on them plus an error rate. */
export { createSimulatedAnswerer, simulatedTrueSlope, simulatedSettings, simulatedBox, shiftToIou, type SimulatedSettings, type SimulatedAnswerer } from './simulated.js';
/** Names of the baseline answerers. */
export const BASELINE_NAMES = Object.keys(baselineFactories);
