import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * How loaded the machine is, measured once as the suite starts: the wall time of one CLI start over
 * its own CPU time (1 when idle; 8 at load average 16 on two cores). Timeouts scale with it
 * (test/helpers/cli.ts, `scaled`; docs/testing.md), so the suite holds under load. GSR_TEST_SLOWDOWN
 * set by hand skips the measurement.
 */
function measureSlowdown(): number {
  if (process.env.GSR_TEST_SLOWDOWN) return Number(process.env.GSR_TEST_SLOWDOWN);
  const dir = mkdtempSync(join(tmpdir(), 'gsr-slowdown-'));
  try {
    const started = performance.now();
    const at = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', at('./test/helpers/module-trace.mjs'), at('./src/cli/main.ts'), '--version'], {
      cwd: at('.'),
      env: { ...process.env, GSR_TRACE_OUT: join(dir, 't.json') },
      encoding: 'utf8',
    });
    const wall = performance.now() - started;
    if (r.status !== 0) return 1;
    const { cpu_ms } = JSON.parse(readFileSync(join(dir, 't.json'), 'utf8')) as { cpu_ms: number };
    return Math.min(10, Math.max(1, wall / cpu_ms));
  } catch {
    return 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const slowdown = Number(measureSlowdown().toFixed(2));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: Math.round(60_000 * slowdown),
    hookTimeout: Math.round(120_000 * slowdown),
    // expect.poll's own default (1 s) is no timeout a loaded machine keeps; a passing poll ends at once.
    expect: { poll: { timeout: Math.round(10_000 * slowdown) } },
    env: { GSR_TEST_SLOWDOWN: String(slowdown) },
    // Two cores: keep workers few so process-spawning tests are not starved.
    maxWorkers: 2,
    // The default output, then one line per optional check that was skipped and why (docs/testing.md).
    reporters: ['default', './test/helpers/optional-reporter.ts'],
  },
});
