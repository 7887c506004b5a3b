/**
 * A VirtualHome-compatible symbolic engine (pure: no I/O). The public API is documented in
 * docs/et-plan.md, "Engine".
 */
export { EngineGraph, REL, type EngineNode, type Vec3, type RelCode } from './graph.js';
export { EngineState, Draft, diffStates, type GraphView, type Anchor, type StateDiff } from './state.js';
export {
  ACTION_ARITY,
  parseScriptLine,
  lineText,
  scriptLine,
  type ActionName,
  type ScriptLine,
  type ScriptParam,
  type ParseResult,
} from './script.js';
export {
  ENGINE_ACTIONS,
  FIND_TYPE_ERROR,
  executeLine,
  ScriptRun,
  roomOf,
  isCloseTo,
  nodeText,
  type EngineMode,
  type ExecuteOptions,
  type StepOutcome,
  type ScriptStep,
} from './execute.js';
export { visibleNodes, loopsBelow, type Visible } from './visible.js';
export { nodePosition, segmentLength, doorsOf, walkDistance, type Door, type Route, type DistanceOptions } from './distance.js';
