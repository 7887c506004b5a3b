/**
 * gsr-bench public API. Each stage of the data flow has its own module; this file re-exports them.
 * See README.md for the data flow and docs/API.md for a guided tour.
 */
export { VERSION } from './util/version.js';
export { GsrError } from './util/errors.js';
export { Registry } from './util/registry.js';
export * from './geometry/index.js';
export * from './datasets/index.js';
export * from './perception/index.js';
export * from './annotate/index.js';
export * from './prompts/index.js';
export * from './mllm/index.js';
export * from './scoring/index.js';
export * from './analysis/index.js';
export * from './report/index.js';
export * from './pipeline/index.js';
