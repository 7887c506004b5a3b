/**
 * Where model files are looked for (docs/cli.md, "Models on disk"): --models-dir, GSR_MODELS_PATH,
 * then the package's own models/; a missing model names the folders and `gsr models pull ID`.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { getManifest, installedModelFile, MANIFEST_DIR, modelSearchDirs } from '../../src/perception/manifest.js';
import { createGroundingDino } from '../../src/perception/models/grounding-dino.js';

const saved = process.env.GSR_MODELS_PATH;
afterEach(() => {
  if (saved === undefined) delete process.env.GSR_MODELS_PATH;
  else process.env.GSR_MODELS_PATH = saved;
});

describe('model search path', () => {
  it('is --models-dir, each GSR_MODELS_PATH folder, then the package models/ folder, whatever the working directory', () => {
    process.env.GSR_MODELS_PATH = ['/opt/a', '/opt/b'].join(delimiter);
    expect(modelSearchDirs('/work/models')).toEqual(['/work/models', '/opt/a', '/opt/b', resolve(MANIFEST_DIR)]);
    expect(resolve(MANIFEST_DIR)).toBe(fileURLToPath(new URL('../../models', import.meta.url)));
  });

  it('a missing file lists where it looked and names gsr models pull ID', async () => {
    delete process.env.GSR_MODELS_PATH;
    const empty = mkdtempSync(join(tmpdir(), 'gsr-models-'));
    const manifest = await getManifest('sam-vit-base');
    expect(() => installedModelFile(manifest, 'encoder', empty)).toThrow(
      `model sam-vit-base is not installed (no sam-vit-base/${manifest.files.find((f) => f.role === 'encoder')!.path}): looked in ${empty}, ${resolve(MANIFEST_DIR)}; run \`gsr models pull sam-vit-base\``,
    );
    // A file given explicitly that is not there says so plainly.
    expect(() => installedModelFile(manifest, 'encoder', empty, { encoder: join(empty, 'x.onnx') })).toThrow(`model file not found: ${join(empty, 'x.onnx')} (given for the encoder of sam-vit-base)`);
  });

  it.skipIf(existsSync(join(MANIFEST_DIR, 'grounding-dino-tiny')))('GroundingDINO without its tokenizer: not installed, with the pull command (no raw ENOENT)', async () => {
    delete process.env.GSR_MODELS_PATH;
    const empty = mkdtempSync(join(tmpdir(), 'gsr-models-'));
    await expect(createGroundingDino({ modelsDir: empty, device: 'cpu' })).rejects.toThrow(/^model grounding-dino-tiny is not installed \(no grounding-dino-tiny\/.*tokenizer.*\): looked in .*; run `gsr models pull grounding-dino-tiny`/);
  });
});
