/**
 * What the episode loop needs from ET-Plan-Bench: the items' apartments (each graph read once, inside
 * its item's root), a factory of episodes for the configured protocol and perception, and the replay
 * of a recorded episode (for the report), which feeds the recorded replies to a fresh episode.
 */
import { join } from 'node:path';
import type { EpisodeRecord, EpisodeStep } from '../../formats/episodes.js';
import { readVhGraph } from '../../formats/vh-graph.js';
import { confinedRealPath } from '../../util/confined.js';
import { GsrError, errorMessage } from '../../util/errors.js';
import type { Episode, EpisodeFactory } from '../types.js';
import { EngineGraph } from './engine/index.js';
import { EtPlanWorld, StepEpisode } from './episode.js';
import { PaperEpisode } from './paper-protocol.js';
import { layoutText } from './observation.js';
import { nearFieldPerception, referencePerception, viewScanPerception, type Perception } from './perception.js';
import { ReleasedEpisode } from './released-protocol.js';
import { PROTOCOLS, type EpisodeSettings, type Protocol } from './settings.js';
import type { EtPlanItem } from './task.js';

/** The apartment file of an item, resolved inside its root (errors name the apartment, not the item). */
async function apartmentPath(item: EtPlanItem): Promise<string> {
  if (item.root === undefined) throw new GsrError(`no root to resolve apartment ${item.apartment} against`);
  try {
    return await confinedRealPath(join(item.root, item.apartment), item.root);
  } catch (err) {
    throw err instanceof GsrError ? err : new GsrError(`cannot read apartment ${item.apartment}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`);
  }
}

/** Every apartment the items use, each read once; a bad one is kept as its error (its items are skipped). */
export async function loadApartments(items: Iterable<EtPlanItem>): Promise<Map<string, EngineGraph | GsrError>> {
  const out = new Map<string, EngineGraph | GsrError>();
  for (const item of items) {
    const key = `${item.root}\0${item.apartment}`;
    if (out.has(key)) continue;
    try {
      out.set(key, new EngineGraph(await readVhGraph(await apartmentPath(item))));
    } catch (err) {
      out.set(key, err instanceof GsrError ? err : new GsrError(errorMessage(err)));
    }
  }
  return out;
}

/** Whether near-field perception applies to an item under the settings. */
export function usesNearField(item: EtPlanItem, s: EpisodeSettings): boolean {
  return s.perception === 'near-field' && (s.perception_scope === 'all' || item.subsets.length > 0);
}

export type EpisodeMaker = (item: EtPlanItem, protocol: Protocol) => StepEpisode | PaperEpisode | ReleasedEpisode;

/** The record's variant of a protocol: the released one names its prompting when not plain. */
export function protocolVariant(protocol: Protocol, s: EpisodeSettings): string {
  return protocol === 'released' && s.released.prompting !== 'plain' ? `released-${s.released.prompting}` : protocol;
}

/** The protocol a record's variant names. */
export function variantProtocol(variant: string): Protocol | undefined {
  const p = variant.startsWith('released-') ? 'released' : variant;
  return (PROTOCOLS as readonly string[]).includes(p) ? (p as Protocol) : undefined;
}

/** Episodes of a given protocol under the settings' perception and route. */
export function episodeMaker(graphs: ReadonlyMap<string, EngineGraph | GsrError>, s: EpisodeSettings): EpisodeMaker {
  const perceptions = new WeakMap<EngineGraph, Perception>();
  const layouts = new WeakMap<EngineGraph, string>();
  const layoutOf = (graph: EngineGraph): string => {
    let l = layouts.get(graph);
    if (l === undefined) layouts.set(graph, (l = layoutText(graph)));
    return l;
  };
  const perceptionOf = (graph: EngineGraph, item: EtPlanItem): Perception => {
    if (s.perception === 'view-scan') {
      let p = perceptions.get(graph);
      if (p === undefined) perceptions.set(graph, (p = viewScanPerception(graph, s.view_scan)));
      return p;
    }
    if (!usesNearField(item, s)) return referencePerception;
    let p = perceptions.get(graph);
    if (p === undefined) perceptions.set(graph, (p = nearFieldPerception(graph, s.near_field)));
    return p;
  };
  return (item, protocol) => {
    const graph = graphs.get(`${item.root}\0${item.apartment}`);
    if (graph === undefined) throw new GsrError(`item ${item.id}: apartment ${item.apartment} was not loaded`);
    if (graph instanceof GsrError) throw new GsrError(`item ${item.id}: ${graph.message}`);
    const world = new EtPlanWorld(item, graph, perceptionOf(graph, item), s.route, s.layout_map ? layoutOf(graph) : null, s.start);
    if (protocol === 'released') return new ReleasedEpisode(world, protocolVariant(protocol, s), s.released.prompting);
    return protocol === 'paper' ? new PaperEpisode(world, protocol) : new StepEpisode(world, protocol);
  };
}

/**
 * A factory of episodes. Models run the configured protocol; baseline policies run the step protocol
 * (they choose engine actions), except those that play the released protocol's decisions.
 */
export function episodeFactory(make: EpisodeMaker, s: EpisodeSettings): EpisodeFactory<EtPlanItem> {
  return (item, actor, policy): Episode => make(item, actor === 'model' ? s.protocol : policy?.protocol === 'released' ? 'released' : 'step');
}

/** One frame of a replayed episode: the world after a step (or before the first, step 0). */
export interface ReplayFrame {
  step: EpisodeStep | null;
  world: EtPlanWorld;
  /** The replayed observation digest differs from the recorded one. */
  differs: boolean;
}

/**
 * Replays a recorded episode on a fresh one, calling `frame` after each step with the world as it is
 * then (the world object is reused: read it inside the callback).
 */
export function replayEpisode(make: EpisodeMaker, item: EtPlanItem, record: EpisodeRecord, frame: (f: ReplayFrame) => void): void {
  const protocol = variantProtocol(record.variant);
  if (protocol === undefined) throw new GsrError(`episode of ${item.id}: unknown protocol ${record.variant}`);
  const episode = make(item, protocol);
  frame({ step: null, world: episode.world, differs: false });
  for (const st of record.steps) {
    const got = episode.reply(st.reply, st.key);
    frame({ step: st, world: episode.world, differs: got.obs !== st.obs || got.ok !== st.ok });
  }
}
