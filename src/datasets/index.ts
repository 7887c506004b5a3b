/**
 * Datasets: What'sUp import and synthetic scenes with exact ground truth. The manifest format they
 * write is `gsr-bench/formats`.
 */
/** Caption parser ("A dog to the right of a bench" -> dog / bench / right), caption writer, the relation phrase table. */
export { parseCaption, captionFor, parseCaptionRelation, converseRelation, RELATION_PHRASES, type ParsedCaption, type CaptionRelation } from './caption.js';
/** The six official What'sUp files and the pure record converters. */
export { WHATSUP_FILES, convertControlledRecord, convertQaRecord, controlledImageInDataFolder, loaderRelation, loaderRelationName, type WhatsupFileSpec } from './whatsup-records.js';
/** `gsr dataset import whatsup`: reads the official files under a root into manifest items / a manifest file. */
export { importWhatsup, importWhatsupToManifest, type WhatsupImport, type WhatsupImportOptions } from './whatsup.js';
/** `gsr dataset synth`: deterministic synthetic scenes with exact boxes, masks and depth. */
export { synthesizeDataset, type SynthOptions, type SynthResult } from './synth/synthesize.js';
/** `gsr dataset synth whatsup-layout`: rendered scenes in What'sUp's own folder layout (the six official files). */
export { writeWhatsupLayout, type WhatsupLayoutOptions, type WhatsupLayoutResult } from './synth/whatsup-layout.js';
/** One synthetic scene from (seed, index): the scene, its render (rgb, depth in m, entity labels) and attempts. */
export { renderSyntheticScene, type SceneSpec } from './synth/produce.js';
/** Synthetic scene styles, their relations, and the fixed COCO categories of synthetic sets. */
export { STYLES, STYLE_RELATIONS, type Style } from './synth/scene.js';
export { SYNTH_CATEGORIES } from './synth/records.js';
/** The synthetic camera's 60° horizontal field of view (fx = fy = 0.5 W / tan 30°, cx = W/2, cy = H/2). */
export { HORIZONTAL_FOV_DEG } from './synth/camera.js';
