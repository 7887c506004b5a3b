/**
 * Runner figures: throughput against a fixed 50 ms endpoint at concurrency 8-64 (capacity c / 50 ms),
 * time to resume a store of 100,000 responses, and the 2,000-prompt fault-mix acceptance run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createOpenAiAnswerer, RunStore, runPrompts, settingsId } from '../src/mllm/index.js';
import { HttpPoster } from '../src/mllm/http-post.js';
import { startFakeServer, type Fault } from '../test/mllm/fake-server.js';
import { seededRandom, writePrompts } from '../test/mllm/prompt-fixtures.js';

const LATENCY_MS = 50;

async function startEndpoint(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./runner-endpoint.ts', import.meta.url)), String(LATENCY_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', () => reject(new Error('endpoint exited')));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function throughput(dir: string, url: string, concurrency: number) {
  const capacity = concurrency / (LATENCY_MS / 1000);
  const n = Math.round(capacity * 4); // about 4 s of work at capacity
  const { path } = writePrompts(dir, n, `tp-${concurrency}.jsonl`);
  const store = RunStore.open(join(dir, `tp-${concurrency}.sqlite`));
  const started = performance.now();
  const answerer = createOpenAiAnswerer({ model: 'bench', baseUrl: url });
  let first = 0;
  let cpu0 = process.cpuUsage();
  const s = await runPrompts({
    prompts: path, store, answerer, settings: { answerer: 'openai', model: 'bench' },
    concurrency, timeoutMs: 30_000, onStart: () => ((first = performance.now()), (cpu0 = process.cpuUsage())),
  });
  const sendSeconds = (performance.now() - first) / 1000;
  const cpuUs = cpuPerRequest(cpu0, n);
  await answerer.close?.();
  store.close();
  if (s.ok !== n) throw new Error(`throughput run at ${concurrency}: ${s.ok}/${n} ok`);
  // The same requests with no store and no retries, over the runner's HTTP client and over fetch: what
  // this machine allows right now, and why the runner does not use fetch.
  const bareHttp = await bareRate(url, concurrency, n, 'http');
  const bareFetch = await bareRate(url, concurrency, n, 'fetch');
  const pct = (rate: number) => +((100 * rate) / capacity).toFixed(1);
  return {
    concurrency, prompts: n, capacity_per_s: capacity, achieved_per_s: +(n / sendSeconds).toFixed(1),
    percent_of_capacity: pct(n / sendSeconds), total_seconds_incl_scan: +((performance.now() - started) / 1000).toFixed(2),
    bare_http_percent_of_capacity: pct(bareHttp.rate), bare_fetch_percent_of_capacity: pct(bareFetch.rate),
    runner_cpu_us_per_request: cpuUs, bare_http_cpu_us_per_request: bareHttp.cpuUs, bare_fetch_cpu_us_per_request: bareFetch.cpuUs,
  };
}

async function bareRate(url: string, concurrency: number, n: number, client: 'http' | 'fetch'): Promise<{ rate: number; cpuUs: number }> {
  const poster = new HttpPoster();
  const target = new URL(`${url}/chat/completions`);
  const headers = { 'content-type': 'application/json' };
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const body = Buffer.from(JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }, { type: 'text', text: `raw #${i}` }] }] }));
        const signal = new AbortController().signal; // the runner gives every attempt one too
        const text = client === 'http' ? (await poster.post(target, headers, body, signal)).text : await (await fetch(target, { method: 'POST', headers, body, signal })).text();
        JSON.parse(text);
      }
    }),
  );
  const rate = n / ((performance.now() - t0) / 1000);
  poster.close();
  return { rate, cpuUs: cpuPerRequest(cpu0, n) };
}

function cpuPerRequest(since: NodeJS.CpuUsage, n: number): number {
  const used = process.cpuUsage(since);
  return Math.round((used.user + used.system) / n);
}

async function resume(dir: string) {
  const n = 100_000;
  const storePath = join(dir, 'resume.sqlite');
  const settings = { answerer: 'openai', model: 'resume' };
  const sid = settingsId(settings);
  const { path } = writePrompts(dir, n, 'resume.jsonl');
  const store = RunStore.open(storePath);
  store.registerSettings(settings);
  const t0 = performance.now();
  store.transaction(() => {
    for (let i = 0; i < n; i++) {
      store.commit({
        key: `key-${String(i).padStart(6, '0')}`, model: 'resume', settings: sid, status: 'ok', output: 'The answer is B. A mug to the left of a table.', error: null, attempts: 1, latency_ms: 812.3,
        started_at: new Date().toISOString(), finished_at: new Date().toISOString(), item: `item-${Math.floor(i / 4)}`, split: 'whatsup-a', task: 'mc', permutation: [0, 1, 2, 3], role: null, rotation: i % 4, source: 'run',
      });
    }
  });
  const fillSeconds = (performance.now() - t0) / 1000;
  store.close();

  const t1 = performance.now();
  const reopened = RunStore.open(storePath);
  const done = reopened.doneKeys('resume', sid);
  const openAndFindSeconds = (performance.now() - t1) / 1000;
  if (done.size !== n) throw new Error(`resume: ${done.size} done keys`);
  const t2 = performance.now();
  const s = await runPrompts({ prompts: path, store: reopened, answerer: { name: 'never', answer: () => Promise.reject(new Error('asked')) }, settings });
  const fullNoOpRunSeconds = (performance.now() - t2) / 1000;
  reopened.close();
  if (s.cached !== n || s.requests !== 0) throw new Error('resume run re-asked prompts');
  return { responses: n, fill_seconds: +fillSeconds.toFixed(2), open_and_find_done_seconds: +openAndFindSeconds.toFixed(3), full_resume_run_seconds_incl_reading_prompt_file: +fullNoOpRunSeconds.toFixed(3) };
}

async function acceptance(dir: string) {
  const rand = seededRandom(7);
  const fault = (): Fault => {
    const r = rand();
    return r < 0.2 ? '500' : r < 0.3 ? '429' : r < 0.35 ? 'hang' : r < 0.4 ? 'malformed' : 'ok';
  };
  const server = await startFakeServer({ fault, latencyMs: 5 });
  const { path } = writePrompts(dir, 2_000, 'acc.jsonl');
  const store = RunStore.open(join(dir, 'acc.sqlite'));
  const opts = {
    prompts: path, store, answerer: createOpenAiAnswerer({ model: 'acc', baseUrl: server.url }), settings: { answerer: 'openai', model: 'acc' },
    concurrency: 16, timeoutMs: 1_000, retry: { maxRetries: 5, baseDelayMs: 10, maxDelayMs: 200 },
  };
  const t0 = performance.now();
  const s = await runPrompts(opts);
  const seconds = (performance.now() - t0) / 1000;
  const rows = [...store.responses({ model: 'acc' })];
  const textOf = (key: string) => `prompt #${Number(key.slice(4))}: which caption?`;
  const attemptsMatchServer = rows.every((r) => (server.requests.get(textOf(r.key)) ?? 0) <= r.attempts);
  const failedWithReason = rows.filter((r) => r.status === 'failed').every((r) => typeof r.error === 'string' && r.error.length > 0);
  const before = new Map(server.requests);
  const again = await runPrompts(opts);
  const okNotReasked = rows.filter((r) => r.status === 'ok').every((r) => server.requests.get(textOf(r.key)) === before.get(textOf(r.key)));
  store.close();
  await server.close();
  return {
    prompts: 2_000, concurrency: 16, seconds: +seconds.toFixed(1), ok: s.ok, failed: s.failed, failures: s.failures, requests: s.requests,
    every_prompt_ended: rows.length === 2_000 && s.ok + s.failed === 2_000, failed_with_reason: failedWithReason,
    server_requests_within_recorded_attempts: attemptsMatchServer, rerun_sent: again.requests, rerun_asked_no_ok_prompt: okNotReasked,
  };
}

/** GSR_BENCH_SECTIONS=throughput,resume,acceptance picks sections (default: all). */
export default async function runnerBench() {
  const sections = (process.env.GSR_BENCH_SECTIONS ?? 'throughput,resume,acceptance').split(',');
  const dir = mkdtempSync(join(tmpdir(), 'gsr-runner-bench-'));
  const figures: Record<string, unknown> = { latency_ms: LATENCY_MS };
  try {
    if (sections.includes('throughput')) {
      const endpoint = await startEndpoint();
      const tp = [];
      try {
        for (const c of [8, 16, 32, 64]) tp.push(await throughput(dir, endpoint.url, c));
      } finally {
        endpoint.stop();
      }
      figures.throughput = tp;
    }
    if (sections.includes('resume')) figures.resume = await resume(dir);
    if (sections.includes('acceptance')) figures.acceptance = await acceptance(dir);
    figures.load_average_1min_at_end = +loadavg()[0].toFixed(1);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
