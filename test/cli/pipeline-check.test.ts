/** `gsr pipeline check` lists every problem of a pipeline file at once (docs/cli.md, "Errors and unknown options"). */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_DIR } from '../../src/perception/manifest.js';
import { runCliInProcess as gsr } from '../helpers/cli.js';

describe('gsr pipeline check', () => {
  it('lists the problems of the file, its inputs, its models and its answerers together, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-check-'));
    const file = join(dir, 'p.yaml');
    writeFileSync(file, `name: p
out: out
dataset:
  manifest: missing.jsonl
annotations:
  source: models
  models: { detector: fastestdet, models_dir: ${join(dir, 'no-models')} }
prompts:
  tasks: [mc, bogus]
models:
  - name: a
    kind: geometric
    grounding: 0.5
  - name: b
    kind: openai
`);
    const r = await gsr(['pipeline', 'check', file]);
    expect(r.status).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('gsr: error: '));
    expect(errors.join('\n')).toMatch(/p\.yaml:9:\d+: .*prompts\.tasks\[1\]/);
    expect(errors.join('\n')).toMatch(/p\.yaml: dataset\.manifest: file not found: .*missing\.jsonl/);
    expect(errors.join('\n')).toMatch(/models\[0\] \(a\): grounding and reasoning_error are settings of kind simulated/);
    expect(errors.join('\n')).toMatch(/models\[1\] \(b\): an openai model needs base_url/);
    const modelInstalled = existsSync(join(MANIFEST_DIR, 'fastestdet', 'FastestDet.onnx'));
    if (!modelInstalled) expect(errors.join('\n')).toMatch(/annotations\.models: model fastestdet is not installed: looked in .*no-models.*; run `gsr models pull fastestdet`/);
    expect(errors).toHaveLength(modelInstalled ? 4 : 5);
    expect(r.stderr).toMatch(new RegExp(`gsr: .*p\\.yaml: ${errors.length} problems\\n$`));
  });
});
