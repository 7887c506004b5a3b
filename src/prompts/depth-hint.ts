import type { CocoAnnotation, CocoFile, DepthUnit, ObjectDepth } from '../formats/coco.js';
import type { PromptRecord } from '../formats/prompts.js';
import { GsrError } from '../util/errors.js';
import { fillTemplate, type Templates } from './templates.js';

export type DepthStat = 'median' | 'mean';

/** The depths a DAP hint states (PromptRecord.hint_depth). */
export type HintDepth = NonNullable<PromptRecord['hint_depth']>;

/** Which way larger depth values point, as stated by the annotation file. */
export type DepthDirection = 'farther' | 'nearer';

/** Subject and object annotations of each item, indexed by manifest item id. */
export interface DepthIndex {
  direction: DepthDirection;
  unit: DepthUnit;
  byItem: Map<string, { subject?: CocoAnnotation; object?: CocoAnnotation }>;
}

/**
 * Indexes an annotation file for depth hints. Refuses a file that does not state the depth unit and
 * which way larger values point (`info.depth.unit`, `info.depth.larger`): a hint without them misleads.
 */
export function indexDepth(coco: CocoFile, source: string): DepthIndex {
  const d = coco?.info?.depth;
  if (d === undefined || d === null) throw new GsrError(`${source}: info.depth is missing; DAP needs the depth unit and direction`);
  if (d.unit !== 'm' && d.unit !== 'relative-inverse') {
    throw new GsrError(`${source}: info.depth.unit must be "m" or "relative-inverse", got ${JSON.stringify(d.unit)}`);
  }
  if (d.larger !== 'farther' && d.larger !== 'nearer') {
    throw new GsrError(`${source}: info.depth.larger must be "farther" or "nearer", got ${JSON.stringify(d.larger)}`);
  }
  if (!Array.isArray(coco.images) || !Array.isArray(coco.annotations)) throw new GsrError(`${source}: not a COCO file (images/annotations missing)`);
  const itemOf = new Map<number, string>();
  for (const img of coco.images) itemOf.set(img.id, img.item_id);
  const byItem: DepthIndex['byItem'] = new Map();
  for (const ann of coco.annotations) {
    const item = itemOf.get(ann.image_id);
    if (item === undefined || (ann.role !== 'subject' && ann.role !== 'object')) continue;
    const entry = byItem.get(item) ?? {};
    // Keep the best-scoring annotation per role.
    if (entry[ann.role] === undefined || entry[ann.role]!.score < ann.score) entry[ann.role] = ann;
    byItem.set(item, entry);
  }
  return { direction: d.larger, unit: d.unit, byItem };
}

function formatDepth(value: number, unit: DepthUnit): string {
  return unit === 'm' ? value.toFixed(2) : String(Number(value.toPrecision(3)));
}

function usableDepth(depth: ObjectDepth | undefined, index: DepthIndex, stat: DepthStat): number | string {
  if (depth === undefined) return 'has no depth';
  if (depth.unit === undefined) return 'depth has no unit';
  if (depth.unit !== index.unit) return `depth unit "${depth.unit}" differs from info.depth.unit "${index.unit}"`;
  const v = depth[stat];
  if (typeof v !== 'number' || !Number.isFinite(v)) return `depth ${stat} is not a finite number`;
  return v;
}

/**
 * The depth hint for one item, or the reason there is none (missing annotation or depth).
 * Unit and direction always appear in the hint text.
 */
export function depthHint(
  item: { id: string; subject: string; object: string | null },
  index: DepthIndex,
  templates: Templates,
  stat: DepthStat,
): { hint: string; depth: HintDepth } | { skip: string } {
  if (item.object === null) return { skip: 'one-object item (DAP needs a subject and an object)' };
  const anns = index.byItem.get(item.id);
  const s = usableDepth(anns?.subject?.depth, index, stat);
  // Without an annotation the detector found no box for the noun, so there is no depth to hint with.
  if (typeof s === 'string') return { skip: anns?.subject ? `subject ${s}` : 'subject not annotated (no box for it, so no depth)' };
  const o = usableDepth(anns?.object?.depth, index, stat);
  if (typeof o === 'string') return { skip: anns?.object ? `object ${o}` : 'object not annotated (no box for it, so no depth)' };
  const template = index.unit === 'm' ? templates.dap_hint_metric : templates.dap_hint_relative;
  const hint = fillTemplate(template, {
    subject: item.subject,
    object: item.object,
    subject_depth: formatDepth(s, index.unit),
    object_depth: formatDepth(o, index.unit),
    unit: index.unit === 'm' ? 'm' : 'relative inverse depth',
    larger: index.direction,
  });
  return { hint, depth: { subject: s, object: o, unit: index.unit, larger: index.direction } };
}
