/**
 * Auto-annotation: run perception models over images and write COCO annotations. The annotation
 * file and depth PNG formats are `gsr-bench/formats`; region depth statistics are `gsr-bench/geometry`.
 */
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
/** Inspection overlays: masks, boxes and a depth heat-map. */
export { renderOverlayPng, paintObjects, paintBox, paintMask, depthHeatMap, heatColour, ROLE_COLOURS, type OverlayObject } from './overlay.js';
/** Annotation quality against exact ground truth (pure), and its text form. */
export { annotationQuality, distribution, formatQualityReport, type QualityReport, type Distribution } from './quality.js';
/** Model provenance for `info.models`: file sha256s (checked against manifests) and thresholds. */
export { describeModel, type ModelRecord } from './provenance.js';
/** An auto-annotator's overlays beside the exact truth's (synthetic scenes). */
export { writeComparisonOverlays, type ComparisonOverlay, type LabelSet } from './compare.js';
