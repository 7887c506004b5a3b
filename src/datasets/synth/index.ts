export { synthesizeDataset, type SynthOptions, type SynthResult } from './synthesize.js';
export { renderSyntheticScene, produceScene, type SceneJob, type ProducedScene } from './produce.js';
export { makeCamera, pixelRay, project, floorPointAt, HORIZONTAL_FOV_DEG, type Camera } from './camera.js';
export { sampleScene, STYLES, STYLE_RELATIONS, type Scene, type Style } from './scene.js';
export { renderScene, type Rendered } from './render.js';
export { SYNTH_CATEGORIES, sceneId } from './records.js';
export { Rng } from './prng.js';
