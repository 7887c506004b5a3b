/**
 * Checks made before any stage runs, so that a pipeline that cannot finish fails at once with one
 * line and writes nothing: dataset paths, annotation file, answerer kinds, box formats, endpoints.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { answerers, BASELINE_BOX_FORMATS } from '../mllm/index.js';
import { BOX_FORMATS } from '../scoring/index.js';
import { GsrError, errorMessage } from '../util/errors.js';
import type { PipelineConfig } from '../formats/pipeline.js';
import { annotationSource, annotatorModels, missingModels } from './stages/annotate.js';

async function kindOf(path: string): Promise<'file' | 'dir' | null> {
  const s = await stat(path).catch(() => null);
  return s === null ? null : s.isDirectory() ? 'dir' : 'file';
}

/** Why an OpenAI-compatible endpoint cannot be reached, or null when it answers at all (any HTTP status). */
export async function endpointProblem(baseUrl: string, timeoutMs = 5000): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(baseUrl.replace(/\/+$/, '') + '/models');
  } catch {
    return `"${baseUrl}" is not a URL`;
  }
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return null;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if ((err as Error).name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
    return cause?.code ?? cause?.message ?? errorMessage(err);
  }
}

/** Throws a one-line GsrError naming the first problem found. */
export async function preflight(config: PipelineConfig, file: string): Promise<void> {
  const d = config.dataset;
  if (d.whatsup) {
    if ((await kindOf(d.whatsup.root)) !== 'dir') throw new GsrError(`${file}: dataset.whatsup.root: folder not found: ${d.whatsup.root}`);
  }
  if (d.manifest && (await kindOf(d.manifest)) !== 'file') throw new GsrError(`${file}: dataset.manifest: file not found: ${d.manifest}`);
  const a = config.annotations;
  if (a.source === 'file' && !a.file) throw new GsrError(`${file}: annotations.source is file, but annotations.file is not given`);
  if (a.file && (await kindOf(a.file)) !== 'file') throw new GsrError(`${file}: annotations.file: file not found: ${a.file}`);
  if (a.source === 'exact' && !d.synthetic) throw new GsrError(`${file}: annotations.source exact needs a synthetic dataset (only rendered scenes have exact truth)`);
  const source = annotationSource(config);
  const stop = config.stop_after;
  if (source === 'models' && stop !== 'dataset') {
    const m = annotatorModels(config);
    const missing = await missingModels([m.detector, m.segmenter, m.depth].filter((x): x is string => x !== null), m.modelsDir);
    if (missing.length > 0) throw new GsrError(`${file}: annotations.models: ${missing[0]} is not installed in ${m.modelsDir} (run \`gsr models pull ${missing[0]}\`)`);
  }
  const photos = config.photos;
  if (photos) {
    if ((await kindOf(photos.root)) !== 'dir') throw new GsrError(`${file}: photos.root: folder not found: ${photos.root}`);
    if ((await kindOf(photos.reference)) !== 'file') throw new GsrError(`${file}: photos.reference: file not found: ${photos.reference}`);
    const modelsDir = photos.models_dir ?? resolve('models');
    if ((await missingModels([photos.detector], modelsDir)).length > 0) {
      throw new GsrError(`${file}: photos.detector: ${photos.detector} is not installed in ${modelsDir} or GSR_MODELS_PATH (run \`gsr models pull ${photos.detector}\`)`);
    }
  }
  if (config.prompts.tasks.includes('dap') && source === 'models' && !a.models?.depth) {
    throw new GsrError(`${file}: prompts.tasks has dap, which needs depth: name a depth model in annotations.models.depth, or drop dap`);
  }
  const needsModels = stop === undefined || !['dataset', 'annotate', 'prompts'].includes(stop);
  if (needsModels && config.models.length === 0) throw new GsrError(`${file}: models: no models to ask (add one, or set stop_after: prompts)`);
  for (const [i, m] of config.models.entries()) {
    const where = `${file}: models[${i}] (${m.name})`;
    if (!answerers.has(m.kind)) throw new GsrError(`${where}: unknown kind "${m.kind}" (available: ${answerers.names().join(', ')})`);
    if (m.box_format && m.box_format !== 'auto' && !(BOX_FORMATS as readonly string[]).includes(m.box_format)) {
      throw new GsrError(`${where}: unknown box_format "${m.box_format}" (known: auto, ${BOX_FORMATS.join(', ')})`);
    }
    const extra = (m.tasks ?? []).filter((t) => !config.prompts.tasks.includes(t));
    if (extra.length > 0) throw new GsrError(`${where}: tasks ${extra.join(', ')} not in prompts.tasks (${config.prompts.tasks.join(', ')})`);
    if ((m.kind === 'geometric' || m.kind === 'simulated') && m.box_format && !(BASELINE_BOX_FORMATS as readonly string[]).includes(m.box_format)) {
      throw new GsrError(`${where}: the ${m.kind} answerer writes boxes as ${BASELINE_BOX_FORMATS.join(' or ')}, not ${m.box_format}`);
    }
    if (m.kind === 'simulated' && m.grounding === undefined) throw new GsrError(`${where}: a simulated answerer needs grounding (its target G-Score, 0-1)`);
    if (m.kind !== 'simulated' && (m.grounding !== undefined || m.reasoning_error !== undefined)) {
      throw new GsrError(`${where}: grounding and reasoning_error are settings of kind simulated, not ${m.kind}`);
    }
    if (m.kind === 'openai') {
      if (!m.base_url) throw new GsrError(`${where}: an openai model needs base_url`);
      if (needsModels) {
        const problem = await endpointProblem(m.base_url);
        if (problem) throw new GsrError(`${where}: endpoint ${m.base_url} is unreachable (${problem})`);
      }
    }
  }
}
