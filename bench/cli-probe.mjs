/** Preloaded by bench/cli.bench.ts: at exit, writes the process's resource usage (CPU time, peak RSS) as JSON to GSR_PROBE_OUT. */
import { writeFileSync } from 'node:fs';

const out = process.env.GSR_PROBE_OUT;
if (out) process.on('exit', () => writeFileSync(out, JSON.stringify(process.resourceUsage())));
