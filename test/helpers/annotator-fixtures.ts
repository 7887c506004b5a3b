/**
 * A models folder holding the fixture annotator (docs/annotate.md, "Measured"): a GroundingDINO that
 * boxes every phrase, a SAM that masks, a metric depth model, and a random-weight FastestDet with the
 * real model's contract (test/fixtures/perception/fastestdet), under the ids `gsr annotate` loads.
 * Shared by tests and benches that run the full annotator without downloads.
 */
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';
import { writeDepthFixture, writeGroundingDinoFixture, writeSamDecoderFixture, writeSamEncoderFixture } from './onnx-fixtures.js';

export const FIXTURE_ANNOTATOR = { detector: 'grounding-dino-tiny', segmenter: 'slimsam-77-uniform', depth: 'depth-anything-v2-metric-indoor-small' };

export function writeFixtureModels(models: string): void {
  const dino = join(models, 'grounding-dino-tiny');
  // [UNK] (id 1) fires for every phrase outside the tiny vocabulary, so every object gets a box.
  writeGroundingDinoFixture(join(dino, 'model.onnx'), [
    { tokenId: 1, logit: 2, box: [0.5, 0.5, 0.3, 0.4] },
    { tokenId: 9, logit: 2, box: [0.4, 0.5, 0.2, 0.3] },
    { tokenId: 11, logit: 3, box: [0.5, 0.8, 1.0, 0.4] },
    { tokenId: 13, logit: 2, box: [0.6, 0.6, 0.3, 0.2] },
  ]);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(REPO_ROOT, 'test/fixtures/perception/bert-uncased-tiny', f), join(dino, f));
  writeSamEncoderFixture(join(models, 'slimsam-77-uniform', 'vision_encoder.onnx'));
  writeSamDecoderFixture(join(models, 'slimsam-77-uniform', 'prompt_encoder_mask_decoder.onnx'));
  writeDepthFixture(join(models, 'depth-anything-v2-metric-indoor-small', 'model.onnx'), { scale: 2, offset: 3 });
  mkdirSync(join(models, 'fastestdet'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'test/fixtures/perception/fastestdet/fastestdet-tiny.onnx'), join(models, 'fastestdet', 'FastestDet.onnx'));
}
