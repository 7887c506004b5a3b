/**
 * Baseline answerers, registered in the `answerers` registry on import: `random`, `always-first`,
 * `geometric`.
 */
import { answerers } from '../registry.js';
import { baselineFactories } from './answerers.js';

for (const [name, factory] of Object.entries(baselineFactories)) {
  if (!answerers.has(name)) answerers.register(name, factory);
}

export { createRandomAnswerer, createAlwaysFirstAnswerer, createGeometricAnswerer, GRID_BOX_FORMAT, baselineFactories } from './answerers.js';
export { chooseCaption, relationEvidence, DEPTH_UNIT, type SceneGeometry, type ObjectGeometry } from './geometry-reasoner.js';
export { parseCaptionRelation, converseRelation } from './captions.js';
export { formatBox, BASELINE_BOX_FORMATS, type BaselineBoxFormat } from './answer-text.js';
export { indexAnnotations, sceneOf } from './annotation-index.js';
/** Names of the baseline answerers. */
export const BASELINE_NAMES = Object.keys(baselineFactories);
