/** Auto-annotation: run perception models over images and write COCO annotations. */

/** COCO annotation file types with gsr-bench's fields (role, phrase, score, mask_score, depth). */
export type * from '../formats/coco.js';
/** Runs `gsr annotate` as a library call: models loaded once, streamed, journaled, resumable. */
export { annotate, type AnnotateOptions, type AnnotateRunSummary } from './run.js';
/** Annotates one decoded image with already-loaded models (for custom drivers). */
export { annotateImage, NO_BOX_REASON, SAME_PHRASE_REASON, type PerceptionModels, type ImageOutputOptions } from './annotate-image.js';
/** Builds annotation targets from a manifest or from image files plus `--objects`. */
export { targetsFromManifest, targetsFromImages, parseObjectList, assertUniqueIds, fileStemForId, type AnnotateTarget, type Role } from './targets.js';
/** The resumable run journal (append-only, fsync'd JSONL) and its reader. */
export { JOURNAL_FILE, openJournal, readJournal, dropPartialLastLine, type Journal, type JournalEntry, type JournalDone, type JournalFailed } from './journal.js';
/** Rebuilds annotations.json atomically from a journal, streaming. */
export { writeAnnotationsFromJournal, type AnnotateSummary } from './assemble.js';
/** Per-object depth statistics inside a mask or box (pure). */
export { regionDepthStats, boxPixelRange, type RegionDepthStats } from '../geometry/depth-stats.js';
/** 16-bit depth PNG encoding and decoding. */
export { encodeDepthPng, decodeDepthPng, quantizeDepth, METRIC_DEPTH_SCALE } from '../formats/depth-png.js';
/** Inspection overlays: masks, boxes and a depth heat-map. */
export { renderOverlayPng, paintObjects, paintBox, paintMask, depthHeatMap, heatColour, ROLE_COLOURS, type OverlayObject } from './overlay.js';
/** Annotation quality against exact ground truth (pure), and its text form. */
export { annotationQuality, distribution, formatQualityReport, type QualityReport, type Distribution } from './quality.js';
/** Reads and checks a COCO annotation file. */
export { readCocoFile } from '../formats/coco.js';
/** Model provenance for `info.models`: file sha256s (checked against manifests) and thresholds. */
export { describeModel, type ModelRecord } from './provenance.js';
