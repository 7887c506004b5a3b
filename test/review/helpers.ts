import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CocoFile } from '../../src/formats/coco.js';
import type { ManifestItem } from '../../src/formats/manifest.js';
import { synthesizeDataset } from '../../src/datasets/synth/synthesize.js';
import { simulatePseudoLabels, type Corruption, type SimulateOptions } from '../../src/review/simulate.js';

export interface SyntheticReviewSet {
  dir: string;
  manifest: string;
  truthFile: string;
  pseudoFile: string;
  truth: CocoFile;
  pseudo: CocoFile;
  items: ManifestItem[];
  corrupted: Corruption[];
}

/** Renders synthetic scenes and writes simulated pseudo-labels beside their exact truth. */
export async function syntheticReviewSet(count: number, sim: SimulateOptions = {}, seed = 11, size: { width?: number; height?: number } = {}): Promise<SyntheticReviewSet> {
  const dir = mkdtempSync(join(tmpdir(), 'gsr-review-'));
  await synthesizeDataset({ out: dir, count, seed, workers: 0, ...size });
  const truthFile = join(dir, 'annotations.json');
  const truth = JSON.parse(readFileSync(truthFile, 'utf8')) as CocoFile;
  const { coco: pseudo, corrupted } = simulatePseudoLabels(truth, sim);
  const pseudoFile = join(dir, 'pseudo.json');
  writeFileSync(pseudoFile, JSON.stringify(pseudo));
  const manifest = join(dir, 'manifest.jsonl');
  const items = readFileSync(manifest, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ManifestItem);
  return { dir, manifest, truthFile, pseudoFile, truth, pseudo, items, corrupted };
}
