import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, WHATSUP_SAMPLE_ROOT } from '../helpers/cli.js';

export const FIXTURES = join(REPO_ROOT, 'test', 'report', 'fixtures');
export const EXAMPLE_RESULTS = join(FIXTURES, 'results');
export const MODELS = ['model-alpha', 'model-beta', 'model-gamma', 'model-delta'];

/** Copies the example results into a fresh temp folder, and writes a manifest whose root is the real sample. */
export function exampleWorkspace(prefix = 'gsr-report-'): { dir: string; results: string[]; manifest: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(EXAMPLE_RESULTS, join(dir, 'results'), { recursive: true });
  const items = JSON.parse(readFileSync(join(FIXTURES, 'manifest-items.json'), 'utf8')) as Record<string, unknown>[];
  const manifest = join(dir, 'manifest.jsonl');
  writeFileSync(manifest, items.map((i) => JSON.stringify({ ...i, root: WHATSUP_SAMPLE_ROOT, options: ['a', 'b'], answer: 0 })).join('\n') + '\n');
  return { dir, results: MODELS.map((m) => join(dir, 'results', m)), manifest };
}

export function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}
