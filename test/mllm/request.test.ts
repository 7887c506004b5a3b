/**
 * The one source of request settings (src/mllm/request.ts): which value wins, what a request body
 * holds, and what the run store's settings id covers (docs/mllm.md, "Request settings").
 */
import { describe, expect, it } from 'vitest';
import { REQUEST_DEFAULTS, createOpenAiAnswerer, requestOf, resolveRequest, runSettings, settingsId } from '../../src/mllm/index.js';
import { answererOptionsOf, generationSettings } from '../../src/pipeline/stages/answer.js';
import type { ModelConfig } from '../../src/formats/pipeline.js';
import type { PromptRecord } from '../../src/formats/prompts.js';
import { startFakeServer } from './fake-server.js';

const prompt: PromptRecord = { key: 'k', item: 'i', split: 's', relation: 'on', task: 'mc', permutation: [0, 1], rotation: 0, text: 'Which?', options: ['a', 'b'], expected: 'A', answer_index: 0, image: new URL('../fixtures/perception/images/exif-1.jpg', import.meta.url).pathname };

describe('request settings', () => {
  it('a flag or model entry wins, then the plug-in, then the shared defaults; top_p and seed only when set', () => {
    expect(REQUEST_DEFAULTS).toEqual({ temperature: 0, max_tokens: 512 });
    expect(resolveRequest({})).toEqual({ temperature: 0, max_tokens: 512 });
    expect(resolveRequest({ max_tokens: 64 }, { max_tokens: 5, temperature: 0.5 })).toEqual({ temperature: 0.5, max_tokens: 64 });
    expect(resolveRequest({ top_p: 0.9, seed: 0 })).toEqual({ temperature: 0, max_tokens: 512, top_p: 0.9, seed: 0 });
    const entry = { name: 'm', kind: 'openai', base_url: 'http://h/v1', concurrency: 4, top_p: 0.8, seed: 3, max_tokens: 100 } as ModelConfig;
    expect(requestOf(answererOptionsOf(entry, undefined))).toEqual({ temperature: 0, max_tokens: 100, top_p: 0.8, seed: 3 });
  });

  it('an endpoint is sent the defaults when nothing is set', async () => {
    const server = await startFakeServer();
    try {
      const client = createOpenAiAnswerer({ model: 'm', baseUrl: server.url });
      await client.answer(prompt, new AbortController().signal);
      await client.close?.();
      expect(JSON.parse(server.rawBodies[0])).toMatchObject({ model: 'm', temperature: 0, max_tokens: 512 });
      expect(Object.keys(JSON.parse(server.rawBodies[0]))).toEqual(['model', 'messages', 'temperature', 'max_tokens']);
    } finally {
      await server.close();
    }
  });

  it('the settings id covers what is sent, not where: another server of the model is the same request, another max_tokens is not', () => {
    const entry = (o: Partial<ModelConfig>) => ({ name: 'm', kind: 'openai', concurrency: 4, ...o }) as ModelConfig;
    const id = (m: ModelConfig) => settingsId(generationSettings(m, answererOptionsOf(m, undefined), undefined));
    expect(id(entry({ base_url: 'http://a/v1' }))).toBe(id(entry({ base_url: ['http://b/v1', 'http://c/v1'] })));
    expect(id(entry({ base_url: 'http://a/v1', box_format: 'llava' }))).toBe(id(entry({ base_url: 'http://a/v1' })));
    expect(id(entry({ base_url: 'http://a/v1', max_tokens: 64 }))).not.toBe(id(entry({ base_url: 'http://a/v1' })));
    // gsr run's settings for the same model and flags are the pipeline's.
    const options = { model: 'm', baseUrl: 'http://a/v1' };
    expect(settingsId(runSettings('openai', 'm', options))).toBe(id(entry({ base_url: 'http://a/v1' })));
  });
});
