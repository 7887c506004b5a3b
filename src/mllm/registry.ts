import { Registry } from '../util/registry.js';
import type { Answerer } from './types.js';

/** An endpoint with its own limits (pipelines' `base_url` list): requests in flight and per second at most. */
export interface EndpointOption {
  url: string;
  concurrency?: number;
  rateLimit?: number;
}

/** Settings an answerer factory receives (endpoint for HTTP clients, seed/annotations for baselines). */
export interface AnswererOptions {
  model: string;
  baseUrl?: string;
  /** Several endpoints of one model, load-balanced (`baseUrl` is then the first). */
  baseUrls?: string[];
  /** Several endpoints with their own limits (instead of `baseUrls`). */
  endpoints?: EndpointOption[];
  apiKeyEnv?: string;
  timeoutMs?: number;
  /** Request settings (request.ts): unset ones take the defaults there. */
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed?: number;
  /** Cap on one answer's bytes for answerers that read replies (docs/mllm.md, "Bounded answers"). */
  maxAnswerBytes?: number;
  /** Annotation file (COCO JSON) for answerers that reason from annotations. */
  annotations?: string;
  [key: string]: unknown;
}

export type AnswererFactory = (options: AnswererOptions) => Promise<Answerer>;

/** Answerers by kind: `openai` (Chat Completions over HTTP) and the baselines. */
export const answerers = new Registry<AnswererFactory>('answerer');
