/**
 * Checks made before any stage runs, so that a pipeline that cannot finish fails at once with one
 * line and writes nothing (and `gsr pipeline check` lists every problem): dataset paths, annotation
 * file, models to install, answerer kinds, box formats, endpoints.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { answerers, BASELINE_BOX_FORMATS } from '../mllm/index.js';
import { BOX_FORMATS } from '../scoring/index.js';
import { errorMessage } from '../util/errors.js';
import { modelNotInstalled } from '../perception/manifest.js';
import { endpointsOf, type PipelineConfig } from '../formats/pipeline.js';
import { throwFirst } from '../formats/pipeline-file.js';
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

/**
 * Every problem found in a pipeline's configuration: dataset paths, annotation file, models to
 * install, answerer kinds, box formats, endpoints. Sections named in `invalid` (they failed the
 * schema, `gsr pipeline check`) are left out, with the checks that need them.
 */
export async function preflightProblems(config: Partial<PipelineConfig>, file: string, invalid: ReadonlySet<string> = new Set()): Promise<string[]> {
  const problems: string[] = [];
  const problem = (text: string) => problems.push(`${file}: ${text}`);
  const valid = (...keys: Array<keyof PipelineConfig>) => keys.every((k) => !invalid.has(k) && (config[k] !== undefined || k === 'stop_after'));
  const c = config as PipelineConfig;
  const d = c.dataset;
  if (valid('dataset')) {
    if (d.whatsup && (await kindOf(d.whatsup.root)) !== 'dir') problem(`dataset.whatsup.root: folder not found: ${d.whatsup.root}`);
    if (d.manifest && (await kindOf(d.manifest)) !== 'file') problem(`dataset.manifest: file not found: ${d.manifest}`);
  }
  const a = c.annotations;
  if (valid('annotations')) {
    if (a.source === 'file' && !a.file) problem('annotations.source is file, but annotations.file is not given');
    if (a.file && (await kindOf(a.file)) !== 'file') problem(`annotations.file: file not found: ${a.file}`);
  }
  if (valid('annotations', 'dataset')) {
    if (a.source === 'exact' && !d.synthetic) problem('annotations.source exact needs a synthetic dataset (only rendered scenes have exact truth)');
    const source = annotationSource(c);
    if (source === 'models' && c.stop_after !== 'dataset') {
      const m = annotatorModels(c);
      for (const id of await missingModels([m.detector, m.segmenter, m.depth].filter((x): x is string => x !== null), m.modelsDir)) {
        problem(`annotations.models: ${modelNotInstalled(id, m.modelsDir).message}`);
      }
    }
    if (valid('prompts') && c.prompts.tasks.includes('dap') && source === 'models' && !a.models?.depth) {
      problem('prompts.tasks has dap, which needs depth: name a depth model in annotations.models.depth, or drop dap');
    }
  }
  if (valid('photos') && c.photos) {
    const p = c.photos;
    if ((await kindOf(p.root)) !== 'dir') problem(`photos.root: folder not found: ${p.root}`);
    if ((await kindOf(p.reference)) !== 'file') problem(`photos.reference: file not found: ${p.reference}`);
    const modelsDir = p.models_dir ?? resolve('models');
    for (const id of await missingModels([p.detector], modelsDir)) problem(`photos.detector: ${modelNotInstalled(id, modelsDir).message}`);
  }
  const stop = c.stop_after;
  const needsModels = invalid.has('stop_after') ? false : stop === undefined || !['dataset', 'annotate', 'prompts'].includes(stop);
  if (c.models === undefined) return problems;
  if (valid('models') && needsModels && c.models.length === 0) problem('models: no models to ask (add one, or set stop_after: prompts)');
  // An invalid models list keeps its valid entries (formats/pipeline-file.ts) and holes for the others.
  for (const [i, m] of (c.models as Array<PipelineConfig['models'][number] | undefined>).entries()) {
    if (m === undefined) continue;
    const where = `models[${i}] (${m.name})`;
    if (!answerers.has(m.kind)) problem(`${where}: unknown kind "${m.kind}" (available: ${answerers.names().join(', ')})`);
    if (m.box_format && m.box_format !== 'auto' && !(BOX_FORMATS as readonly string[]).includes(m.box_format)) {
      problem(`${where}: unknown box_format "${m.box_format}" (known: auto, ${BOX_FORMATS.join(', ')})`);
    }
    const extra = valid('prompts') ? (m.tasks ?? []).filter((t) => !c.prompts.tasks.includes(t)) : [];
    if (extra.length > 0) problem(`${where}: tasks ${extra.join(', ')} not in prompts.tasks (${c.prompts.tasks.join(', ')})`);
    if ((m.kind === 'geometric' || m.kind === 'simulated') && m.box_format && !(BASELINE_BOX_FORMATS as readonly string[]).includes(m.box_format)) {
      problem(`${where}: the ${m.kind} answerer writes boxes as ${BASELINE_BOX_FORMATS.join(' or ')}, not ${m.box_format}`);
    }
    if (m.kind === 'simulated' && m.grounding === undefined) problem(`${where}: a simulated answerer needs grounding (its target G-Score, 0-1)`);
    if (m.kind !== 'simulated' && (m.grounding !== undefined || m.reasoning_error !== undefined)) {
      problem(`${where}: grounding and reasoning_error are settings of kind simulated, not ${m.kind}`);
    }
    if (m.kind === 'openai') {
      if (!m.base_url) problem(`${where}: an openai model needs base_url`);
      else if (needsModels) {
        // Several endpoints: the run goes on while one answers (the balancer keeps dead ones out of rotation).
        const urls = endpointsOf(m.base_url).map((e) => e.url);
        const whys = await Promise.all(urls.map((u) => endpointProblem(u)));
        if (whys.every((w) => w !== null)) problem(`${where}: ${urls.map((u, k) => `endpoint ${u} is unreachable (${whys[k]})`).join('; ')}`);
      }
    }
  }
  return problems;
}

/** Throws a one-line GsrError naming the first problem found, and how many more there are. */
export async function preflight(config: PipelineConfig, file: string): Promise<void> {
  const problems = await preflightProblems(config, file);
  throwFirst(problems);
}
