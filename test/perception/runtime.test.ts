import { afterEach, describe, expect, it, vi } from 'vitest';
import { cpuThreads, cudaProviderInstalled, openSession, releaseSession, SMALL_MODEL_BYTES, SMALL_MODEL_THREADS } from '../../src/perception/runtime.js';
import { GsrError } from '../../src/util/errors.js';
import { FASTESTDET_TINY } from './paths.js';

afterEach(() => vi.restoreAllMocks());

describe('onnxruntime sessions', () => {
  it('reuses one session per model file and releases it after the last user', async () => {
    const a = await openSession(FASTESTDET_TINY, { device: 'cpu', threads: 1 });
    const b = await openSession(FASTESTDET_TINY, { device: 'cpu', threads: 1 });
    expect(b.session).toBe(a.session);
    expect(a.device).toBe('cpu');
    const release = vi.spyOn(a.session, 'release');
    await releaseSession(a);
    expect(release).not.toHaveBeenCalled();
    await releaseSession(b);
    expect(release).toHaveBeenCalledTimes(1);
    const c = await openSession(FASTESTDET_TINY, { device: 'cpu', threads: 1 });
    expect(c.session).not.toBe(a.session);
    await releaseSession(c);
  });

  it('names a missing model file', async () => {
    await expect(openSession('/nonexistent/model.onnx', { device: 'cpu' })).rejects.toThrow(/model file not found: \/nonexistent\/model\.onnx/);
  });

  it.skipIf(cudaProviderInstalled())('without the CUDA provider: auto falls back to CPU with one notice, cuda is an error', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const auto = await openSession(FASTESTDET_TINY, { device: 'auto' });
    expect(auto.device).toBe('cpu');
    await releaseSession(auto);
    const notices = stderr.mock.calls.map((c) => String(c[0])).filter((s) => s.includes('CUDA'));
    expect(notices.length).toBeLessThanOrEqual(1);
    const err = await openSession(FASTESTDET_TINY, { device: 'cuda' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GsrError);
    expect((err as Error).message).toMatch(/^--device cuda: the CUDA execution provider is not available .*ONNXRUNTIME_NODE_INSTALL=cuda12/);
  });
});

describe('intra-op threads', () => {
  it('asked threads win; otherwise up to two threads for a model file under 16 MB (one on one core), onnxruntime decides above', () => {
    expect(cpuThreads(3, 1000)).toBe(3);
    expect(cpuThreads(undefined, 1_500_000, 2)).toBe(2);
    expect(cpuThreads(undefined, 1_500_000, 16)).toBe(SMALL_MODEL_THREADS);
    expect(cpuThreads(0, SMALL_MODEL_BYTES - 1, 1)).toBe(1);
    expect(cpuThreads(undefined, SMALL_MODEL_BYTES, 16)).toBeUndefined();
    expect(cpuThreads(2, 400 * 2 ** 20)).toBe(2);
  });
});
