/**
 * Review: people check and correct the pseudo-labels. The pure core (slots, suspicion queue, edits,
 * export, simulation) does no I/O; the journal, session and server are the I/O edge.
 */
export { buildSlots, slotKey, modelBox, ROLES, type Slot, type Role } from './labels.js';
export { buildQueue, recallAtShare, REASON_KINDS, type QueueEntry, type Reason, type ReasonKind } from './queue.js';
export { EditSchema, labelOf, effectiveEvents, provenanceOf, iouWithModel, REVIEW_STATES, type Edit, type EditEvent, type SlotLabel, type ReviewState, type Provenance } from './edits.js';
export { buildReviewedCoco, type ReviewProvenance, type ReviewedAnnotation, type ExportInput } from './export.js';
export { simulatePseudoLabels, CORRUPTION_KINDS, type Corruption, type CorruptionKind, type SimulateOptions } from './simulate.js';
export { ReviewJournal, eventsBySlot } from './journal.js';
export { ReviewSession, DEFAULT_JOURNAL, type ReviewSessionOptions, type SegmenterChoice } from './session.js';
export { serveReview, buildServer, isLoopback, type RunningServer, type ServeOptions } from './server.js';

export { reviewAgreement, reviewedDecisions, type AgreementSummary, type Disagreement } from './agreement.js';
