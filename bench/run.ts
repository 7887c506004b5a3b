/**
 * Runs every bench/*.bench.ts (or those named on the command line) and writes each one's figures
 * as JSON to bench/results/<name>.json. A bench module's default export returns its figures; flags
 * (`--x`) stay in process.argv for the bench to read. Benches in EXPLICIT run only when named in full.
 */
import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';

const here = fileURLToPath(new URL('.', import.meta.url));
// Minutes long and needing `npm run bench:models` first: never part of a run of all or of a prefix.
const EXPLICIT = new Set(['annotate-real']);
const wanted = process.argv.slice(2).filter((w) => !w.startsWith('-') && !/^\d+$/.test(w));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => {
    const name = basename(f, '.bench.ts');
    if (EXPLICIT.has(name)) return wanted.includes(name);
    return wanted.length === 0 || wanted.some((w) => f.startsWith(w));
  })
  .sort();
const outDir = join(here, 'results');
await mkdir(outDir, { recursive: true });
const machine = { node: process.version, cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, total_mem_gib: +(os.totalmem() / 2 ** 30).toFixed(1) };
let failed = 0;
for (const file of files) {
  const name = basename(file, '.bench.ts');
  process.stderr.write(`bench ${name} ...\n`);
  try {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<unknown> };
    const figures = await mod.default();
    const record = { bench: name, date: new Date().toISOString(), machine, figures };
    await writeFile(join(outDir, `${name}.json`), JSON.stringify(record, null, 2) + '\n');
    process.stdout.write(JSON.stringify(record) + '\n');
  } catch (err) {
    failed++;
    process.stderr.write(`bench ${name} failed: ${(err as Error).stack ?? String(err)}\n`);
  }
}
// A bench may have failed its own checks (process.exitCode set) without throwing.
if (failed > 0) process.exitCode = 1;
