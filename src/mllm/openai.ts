import { GsrError, MachineFault, isMachineFaultOnRead } from '../util/errors.js';
import { isBenchPrompt, promptParts, type AnyPrompt } from '../formats/prompts.js';
import { AnswerError } from './errors.js';
import { DataUrlCache } from './image-url.js';
import { DEFAULT_MAX_ANSWER_BYTES, HttpPoster, REPLY_TOO_LARGE, type HttpReply } from './http-post.js';
import { answerers, type AnswererOptions, type EndpointOption } from './registry.js';
import { balanceAnswerers } from './balance.js';
import { isRetryableStatus, parseRetryAfter } from './retry.js';
import { chatCompletionBody, requestOf } from './request.js';
import type { Answerer, AnswerWithWarning } from './types.js';

export interface OpenAiOptions {
  model: string;
  /** Endpoint root, e.g. http://localhost:8000/v1 (`/chat/completions` is appended). */
  baseUrl: string;
  /** Name of the environment variable holding the API key; the key itself is never stored. */
  apiKeyEnv?: string;
  /** Request settings; unset ones take REQUEST_DEFAULTS (request.ts). */
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
  /** Cap on one reply's body in bytes (default 1 MiB; docs/mllm.md, "Bounded answers"); a longer reply is a failed answer. */
  maxAnswerBytes?: number;
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
  const maxAnswerBytes = opts.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const request = requestOf(opts);
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
        // A prompt's own temperature (a benchmark protocol's) wins; null leaves the API's default.
        const own = isBenchPrompt(prompt) ? prompt.temperature : undefined;
        const sent = own === undefined ? request : { ...request, temperature: own ?? undefined };
        const body = chatCompletionBody(opts.model, userContent, sent, withFormat ? format : undefined);
        try {
          return await poster.post(url, headers, body, signal, maxAnswerBytes);
        } catch (err) {
          if (signal.aborted) throw err; // the runner tells timeouts from interrupts
          const e = err as { message?: string; code?: string };
          // The prompt's own fault, not retried: the same prompt would get as long an answer again.
          if (e.code === REPLY_TOO_LARGE) throw new AnswerError(`answer too large: the reply passed the cap of ${maxAnswerBytes} bytes (max_answer_bytes) and was cut off unread`, false);
          if (isMachineFaultOnRead(err)) throw new MachineFault(scrub(`connection error: ${e.code}: this machine is out of file handles or memory`), { cause: err });
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
    maxAnswerBytes: o.maxAnswerBytes,
  });
}
