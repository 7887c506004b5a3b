/**
 * The project's own samples in the published benchmarks' folder layouts, for tests that need data
 * in those layouts: What'sUp's data folder (rendered scenes, src/datasets/synth/whatsup-layout.ts)
 * and VSP's tree (src/benchmarks/vsp/layout.ts). Each is generated at most once per test file, into
 * a temporary folder that is removed after the file's tests. Real copies are optional checks
 * (test/helpers/shared.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { writeWhatsupLayout } from '../../src/datasets/index.js';
import { writeVspLayout } from '../../src/benchmarks/vsp/layout.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

let whatsup: Promise<string> | undefined;
/** The data folder of the What'sUp-layout sample (seed 0): 30 records over the six splits, 29 images. */
export function whatsupLayoutSample(): Promise<string> {
  return (whatsup ??= (async () => (await writeWhatsupLayout(tempFolder('gsr-whatsup-layout-'))).dataDir)());
}

let vsp: Promise<string> | undefined;
/** The root of the VSP-layout sample (seed 1): every task and level, two items and two examples each. */
export function vspLayoutSample(): Promise<string> {
  return (vsp ??= (async () => {
    const root = join(tempFolder('gsr-vsp-layout-'), 'vsp');
    await writeVspLayout(root);
    return root;
  })());
}
