/**
 * ET-Plan-Bench's task families, on their own so that `gsr dataset synth et-plan --help` lists them
 * without loading the task schema (docs/cli.md, "Start-up").
 */

/** Task families (the paper's section 3). Occlusion is a subset of navigation tasks, not a family. */
export const ET_PLAN_FAMILIES = [
  'navigation',
  'navigation-spatial',
  'manipulation',
  'manipulation-spatial',
  'temporal',
  'multi-one-arm',
  'multi-two-arm',
] as const;
