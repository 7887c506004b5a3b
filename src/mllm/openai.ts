import { GsrError } from '../util/errors.js';
import { isBenchPrompt, promptParts, type AnyPrompt } from '../formats/prompts.js';
import { AnswerError } from './errors.js';
import { DataUrlCache } from './image-url.js';
import { HttpPoster, type HttpReply } from './http-post.js';
import { answerers, type AnswererOptions, type EndpointOption } from './registry.js';
import { balanceAnswerers } from './balance.js';
import { isRetryableStatus, parseRetryAfter } from './retry.js';
import type { Answerer, AnswerWithWarning } from './types.js';

export interface OpenAiOptions {
  model: string;
  /** Endpoint root, e.g. http://localhost:8000/v1 (`/chat/completions` is appended). */
  baseUrl: string;
  /** Name of the environment variable holding the API key; the key itself is never stored. */
  apiKeyEnv?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed?: number;
  /**
   * JSON-schema structured outputs for prompts that carry a `response_format`: `auto` sends it and,
   * when the endpoint rejects it (HTTP 400/422 naming it), stops sending it and lets the answer be
   * read from text; `on` always sends it; `off` never does. Default auto.
   */
  structuredOutputs?: 'auto' | 'on' | 'off';
  env?: NodeJS.ProcessEnv;
}

/** A 400/422 reply that rejects the structured-output request itself (not the prompt). */
function rejectsResponseFormat(status: number, text: string): boolean {
  return (status === 400 || status === 422) && /response_format|json_schema|guided|structured/i.test(text);
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  // Some servers return content as an array of typed parts.
  if (Array.isArray(content)) {
    const parts = content.filter((p) => p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string');
    if (parts.length > 0) return parts.map((p) => (p as { text: string }).text).join('');
  }
  return undefined;
}

/**
 * An OpenAI-compatible Chat Completions client (vLLM, SGLang, Ollama, LM Studio, llama.cpp, hosted
 * APIs): the prompt's parts go as one user turn, each image a base64 data URL, over node:http(s) with keep-alive. Errors carry no API key.
 */
export function createOpenAiAnswerer(opts: OpenAiOptions): Answerer {
  let url: URL;
  try {
    url = new URL(opts.baseUrl.replace(/\/+$/, '') + '/chat/completions');
  } catch {
    throw new GsrError(`--base-url is not a valid URL: "${opts.baseUrl}"`);
  }
  const env = opts.env ?? process.env;
  let apiKey: string | undefined;
  if (opts.apiKeyEnv !== undefined) {
    apiKey = env[opts.apiKeyEnv];
    if (apiKey === undefined || apiKey === '') throw new GsrError(`environment variable ${opts.apiKeyEnv} (named by --api-key-env) is not set`);
  }
  const scrub = (s: string) => (apiKey ? s.split(apiKey).join('***') : s);
  const images = new DataUrlCache();
  const poster = new HttpPoster();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const structured = opts.structuredOutputs ?? 'auto';
  let formatRejected = false;

  return {
    name: `openai:${opts.model}`,
    async answer(prompt: AnyPrompt, signal: AbortSignal): Promise<string | AnswerWithWarning> {
      // Several images in one user turn, interleaved with the text, in the prompt's order.
      const userContent = await Promise.all(promptParts(prompt).map(async (part) => (part.type === 'text'
        ? { type: 'text', text: part.text }
        : { type: 'image_url', image_url: { url: await images.get(part.image) } })));
      const format = isBenchPrompt(prompt) ? prompt.response_format : undefined;
      const send = async (withFormat: boolean): Promise<HttpReply> => {
        const body = Buffer.from(JSON.stringify({
          model: opts.model,
          messages: [{ role: 'user', content: userContent }],
          // A prompt's own temperature (a benchmark protocol's) wins; null leaves the API's default.
          temperature: isBenchPrompt(prompt) && prompt.temperature !== undefined ? (prompt.temperature ?? undefined) : opts.temperature,
          max_tokens: opts.maxTokens,
          top_p: opts.topP,
          seed: opts.seed,
          response_format: withFormat && format ? { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict ?? true } } : undefined,
        }));
        try {
          return await poster.post(url, headers, body, signal);
        } catch (err) {
          if (signal.aborted) throw err; // the runner tells timeouts from interrupts
          const e = err as { message?: string; code?: string };
          throw new AnswerError(scrub(`connection error: ${e.code ?? e.message ?? String(err)}`), true);
        }
      };
      const useFormat = format !== undefined && structured !== 'off' && !(structured === 'auto' && formatRejected);
      let reply = await send(useFormat);
      if (useFormat && structured === 'auto' && rejectsResponseFormat(reply.status, reply.text)) {
        formatRejected = true;
        reply = await send(false);
      }
      const { status, text } = reply;
      if (status < 200 || status > 299) {
        const snippet = text.replace(/\s+/g, ' ').slice(0, 200);
        throw new AnswerError(scrub(`HTTP ${status}${snippet ? `: ${snippet}` : ''}`), isRetryableStatus(status), status, parseRetryAfter((n) => reply.header(n)));
      }
      let json: { choices?: Array<{ message?: { content?: unknown }; finish_reason?: string }> };
      try {
        json = JSON.parse(text);
      } catch {
        throw new AnswerError(`malformed JSON in response (${text.length} bytes)`, true, status);
      }
      const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
      if (choice === undefined) throw new AnswerError('response has no choices', true, status);
      const content = textOf(choice?.message?.content);
      if (content === undefined) throw new AnswerError(`response has no message content (finish_reason ${choice?.finish_reason ?? 'none'})`, false, status);
      if (reply.invalidUtf8) return { text: content, warning: INVALID_UTF8_WARNING };
      return content;
    },
    async close() {
      poster.close();
    },
  };
}

/** The warning an ok record carries when the response body was not valid UTF-8. */
export const INVALID_UTF8_WARNING = 'warning: the response body was not valid UTF-8; invalid bytes were replaced with U+FFFD';

if (!answerers.has('openai')) answerers.register('openai', async (o: AnswererOptions) => {
  const urls = o.baseUrls !== undefined && o.baseUrls.length > 0 ? o.baseUrls : o.baseUrl !== undefined ? [o.baseUrl] : [];
  const endpoints: EndpointOption[] = o.endpoints !== undefined && o.endpoints.length > 0 ? o.endpoints : urls.map((url) => ({ url }));
  if (endpoints.length === 0) throw new GsrError('the openai answerer needs --base-url');
  // Several endpoints of one model, or one with its own limits: load-balanced, dead ones out of rotation (balance.ts).
  if (endpoints.length > 1 || endpoints[0].concurrency !== undefined || endpoints[0].rateLimit !== undefined) {
    return balanceAnswerers(endpoints.map((e) => ({ ...e, answerer: openAiFor(o, e.url) })));
  }
  return openAiFor(o, endpoints[0].url);
});

function openAiFor(o: AnswererOptions, baseUrl: string): Answerer {
  return createOpenAiAnswerer({
    model: o.model,
    baseUrl,
    apiKeyEnv: o.apiKeyEnv,
    temperature: o.temperature,
    maxTokens: o.maxTokens,
    topP: typeof o.topP === 'number' ? o.topP : undefined,
    seed: o.seed,
    structuredOutputs: o.structuredOutputs === 'on' || o.structuredOutputs === 'off' ? o.structuredOutputs : undefined,
  });
}
