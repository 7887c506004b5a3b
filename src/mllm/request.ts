/**
 * Request settings: the one place their defaults live, and the one function that builds the Chat
 * Completions body. `gsr run` (with or without a queue), the What'sUp pipeline and the plug-in
 * pipelines all resolve a model's settings here and key their answers by the result, so one
 * experiment sends the same bytes and shares one cache whichever path asks (docs/mllm.md, "Request
 * settings").
 */
import type { AnswererOptions } from './registry.js';
import type { GenerationSettings } from './store.js';

/** What goes into every request besides the model id and the prompt. */
export interface RequestSettings {
  temperature: number;
  max_tokens: number;
  /** Sent only when set. */
  top_p?: number;
  /** Sent only when set. */
  seed?: number;
}

/** Greedy decoding, and room for a sentence with a box or a short chain of thought. */
export const REQUEST_DEFAULTS: Readonly<RequestSettings> = Object.freeze({ temperature: 0, max_tokens: 512 });

/**
 * The settings in force: for each field the first layer that sets it (a flag or model entry first,
 * then a plug-in's protocol defaults), else REQUEST_DEFAULTS.
 */
export function resolveRequest(...layers: ReadonlyArray<Partial<RequestSettings> | undefined>): RequestSettings {
  const pick = <K extends keyof RequestSettings>(k: K): RequestSettings[K] | undefined => {
    for (const layer of layers) if (layer?.[k] !== undefined) return layer[k];
    return REQUEST_DEFAULTS[k];
  };
  const r: RequestSettings = { temperature: pick('temperature')!, max_tokens: pick('max_tokens')! };
  const topP = pick('top_p');
  const seed = pick('seed');
  if (topP !== undefined) r.top_p = topP;
  if (seed !== undefined) r.seed = seed;
  return r;
}

/** The request settings an answerer's options ask for (defaults filled in). */
export function requestOf(o: Pick<AnswererOptions, 'temperature' | 'maxTokens' | 'topP' | 'seed'>): RequestSettings {
  return resolveRequest({ temperature: o.temperature, max_tokens: o.maxTokens, top_p: typeof o.topP === 'number' ? o.topP : undefined, seed: o.seed });
}

/** Request settings as answerer options (the factories' camelCase names). */
export function requestOptions(r: RequestSettings): Pick<AnswererOptions, 'temperature' | 'maxTokens' | 'topP' | 'seed'> {
  return { temperature: r.temperature, maxTokens: r.max_tokens, topP: r.top_p, seed: r.seed };
}

/**
 * The run store's settings of a model: its store name, the id sent to the endpoint, the request
 * settings in force and what else shapes its answers (`extra`: a baseline's inputs, answer attempts,
 * structured outputs). The endpoint's address is not part of it: the same request to another
 * server of the model is the same request.
 */
export function runSettings(answerer: string, name: string, options: AnswererOptions, extra: Record<string, unknown> = {}): GenerationSettings {
  return { answerer, model: name, endpoint_model: options.model, ...requestOf(options), ...extra };
}

/** A JSON-schema structured-output request (plug-in prompts that carry one). */
export interface ResponseFormat {
  name: string;
  schema: unknown;
  strict?: boolean;
}

/** The Chat Completions request body: one user turn of `content`, then the request settings (a temperature left out takes the API's default). */
export function chatCompletionBody(model: string, content: unknown[], r: Omit<RequestSettings, 'temperature'> & { temperature?: number }, format?: ResponseFormat): Buffer {
  return Buffer.from(JSON.stringify({
    model,
    messages: [{ role: 'user', content }],
    temperature: r.temperature,
    max_tokens: r.max_tokens,
    top_p: r.top_p,
    seed: r.seed,
    response_format: format ? { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict ?? true } } : undefined,
  }));
}
