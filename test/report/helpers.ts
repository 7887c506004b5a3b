import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importWhatsupToManifest, writeWhatsupLayout } from '../../src/datasets/index.js';
import { REPO_ROOT } from '../helpers/cli.js';

export const FIXTURES = join(REPO_ROOT, 'test', 'report', 'fixtures');
export const EXAMPLE_RESULTS = join(FIXTURES, 'example-results');
export const MODELS = ['model-alpha', 'model-beta', 'model-gamma', 'model-delta'];
/** Made-up results in folders named after GSR-Bench paper models (all six splits of the sample). */
export const PAPER_NAMED_RESULTS = join(FIXTURES, 'paper-named-results');
export const PAPER_NAMED_MODELS = ['LLaMA-3-LLaVA-NeXT-8B', 'LLaVA-1.5-Vicuna-7B', 'llava-1.5-13b'];

/**
 * Copies the example results into a fresh temp folder and imports Subsets A and B of the
 * What'sUp-layout sample they were made from (rendered there again, seed 0) as the manifest the
 * gallery finds images through.
 */
export async function exampleWorkspace(prefix = 'gsr-report-'): Promise<{ dir: string; results: string[]; manifest: string }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(EXAMPLE_RESULTS, join(dir, 'results'), { recursive: true });
  const manifest = join(dir, 'manifest.jsonl');
  const { dataDir } = await writeWhatsupLayout(join(dir, 'whatsup'));
  await importWhatsupToManifest(dataDir, manifest, { splits: ['whatsup-a', 'whatsup-b'] });
  return { dir, results: MODELS.map((m) => join(dir, 'results', m)), manifest };
}

export function readJsonl(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}
