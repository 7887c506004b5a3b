/**
 * Preloaded with `node --import` by test/cli/lazy.test.ts and bench/cli.bench.ts: on exit, writes
 * every module the process loaded (ES modules through a load hook, CommonJS from the require cache)
 * and its CPU time and peak memory as JSON to the file named by GSR_TRACE_OUT.
 */
import { writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const out = process.env.GSR_TRACE_OUT;
if (out) {
  const loaded = new Set();
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url) => loaded.add(url));
  port1.unref();
  const hook = `let port; export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { port: port2 }, transferList: [port2] });
  process.on('exit', () => {
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    const usage = process.resourceUsage();
    writeFileSync(out, JSON.stringify({ modules: [...loaded, ...cjs], cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000, max_rss_kb: usage.maxRSS }));
  });
}
