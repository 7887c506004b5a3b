import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listManifests } from '../../src/perception/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildStages, preflight } from '../../src/pipeline/index.js';
import { loadPipeline, modelFolder } from '../../src/formats/index.js';
import { boxFormatOf } from '../../src/pipeline/stages/score.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { whatsupLayoutSample } from '../helpers/samples.js';

const env: NodeJS.ProcessEnv = { GSR_MANIFEST: join(REPO_ROOT, 'package.json') };
beforeAll(async () => {
  env.WHATSUP_ROOT = await whatsupLayoutSample();
});

describe('shipped pipelines', () => {
  const all = readdirSync(join(REPO_ROOT, 'pipelines')).filter((f) => f.endsWith('.yaml'));
  // Benchmark plug-in pipelines (a `benchmark:` section) are checked in their own tests
  // (test/pipeline/bench.test.ts, test/pipeline/snorkel-spatial.test.ts, test/pipeline/svat.test.ts).
  const isBench = (f: string) => /^benchmark:/m.test(readFileSync(join(REPO_ROOT, 'pipelines', f), 'utf8'));
  const files = all.filter((f) => !isBench(f));

  it("are the four What'sUp pipelines and the benchmark ones", () => {
    expect(files.sort()).toEqual(['annotate-new-images.yaml', 'dap-ablation.yaml', 'demo.yaml', 'gsr-bench.yaml']);
    expect(all.filter(isBench)).toEqual(expect.arrayContaining(['vsp.yaml', 'vsp-published.yaml', 'snorkel-spatial.yaml', 'svat.yaml']));
  });

  it.each(files)('%s validates and passes the pre-run checks', async (f) => {
    const loaded = await loadPipeline(join(REPO_ROOT, 'pipelines', f), env);
    if (loaded.config.annotations.source === 'models') {
      // The perception models are not installed here: the check names the first one missing ...
      const empty = mkdtempSync(join(tmpdir(), 'gsr-models-'));
      loaded.config.annotations.models = { ...loaded.config.annotations.models!, models_dir: empty };
      await expect(preflight(loaded.config, f)).rejects.toThrow(`${f}: annotations.models: grounding-dino-tiny is not installed in ${empty} (run \`gsr models pull grounding-dino-tiny\`)`);
      // ... and with every model's files in place (empty stand-ins) the rest of the file checks out.
      // Built from the temp folder itself (never through the model search path, which can point at the
      // shipped models): writes stay inside the temp folder.
      for (const m of await listManifests()) {
        for (const file of m.files) {
          const path = join(empty, m.id, file.path);
          if (!path.startsWith(empty + '/')) throw new Error(`refusing to write outside ${empty}: ${path}`);
          mkdirSync(join(path, '..'), { recursive: true });
          writeFileSync(path, '');
        }
      }
    }
    await expect(preflight(loaded.config, f)).resolves.toBeUndefined();
    expect(buildStages(loaded.config).length).toBeGreaterThan(1);
    // Endpoint entries stay out unless GSR_BASE_URL and GSR_MODEL are set.
    expect(loaded.config.models.every((m) => m.kind !== 'openai')).toBe(true);
  });

  it('demo.yaml asks an endpoint when GSR_BASE_URL and GSR_MODEL are set', async () => {
    const loaded = await loadPipeline(join(REPO_ROOT, 'pipelines', 'demo.yaml'), { GSR_BASE_URL: 'http://localhost:8000/v1', GSR_MODEL: 'some-vlm' });
    expect(loaded.config.models.find((m) => m.kind === 'openai')).toMatchObject({ base_url: 'http://localhost:8000/v1', model: 'some-vlm' });
    expect(loaded.config.models.find((m) => m.kind === 'openai')!.api_key_env).toBeUndefined();
  });

  it("demo.yaml names the endpoint's row and folders by the model id and reads boxes in its family's format", async () => {
    const load = (env: NodeJS.ProcessEnv) => loadPipeline(join(REPO_ROOT, 'pipelines', 'demo.yaml'), { GSR_BASE_URL: 'http://localhost:8000/v1', ...env });
    const qwen = (await load({ GSR_MODEL: 'Qwen/Qwen2.5-VL-7B-Instruct' })).config.models.find((m) => m.kind === 'openai')!;
    expect(qwen.name).toBe('Qwen/Qwen2.5-VL-7B-Instruct');
    expect(modelFolder(qwen.name)).toBe('Qwen_Qwen2.5-VL-7B-Instruct');
    // The file's `auto` never overrides the family the model id names.
    expect(boxFormatOf(qwen)).toEqual({ format: 'qwen2.5-vl', source: 'family' });
    const other = (await load({ GSR_MODEL: 'llava:13b' })).config.models.find((m) => m.kind === 'openai')!;
    expect([other.name, modelFolder(other.name)]).toEqual(['llava:13b', 'llava_13b']);
    const unknown = (await load({ GSR_MODEL: 'my-vlm' })).config.models.find((m) => m.kind === 'openai')!;
    expect(boxFormatOf(unknown)).toEqual({ format: 'auto', source: 'auto' });
    const declared = (await load({ GSR_MODEL: 'my-vlm', GSR_BOX_FORMAT: 'qwen3-vl' })).config.models.find((m) => m.kind === 'openai')!;
    expect(boxFormatOf(declared)).toEqual({ format: 'qwen3-vl', source: 'declared' });
  });

  it('annotate-new-images.yaml stops after annotation', async () => {
    const loaded = await loadPipeline(join(REPO_ROOT, 'pipelines', 'annotate-new-images.yaml'), env);
    expect(buildStages(loaded.config).map((s) => s.name)).toEqual(['dataset', 'annotate']);
  });
});
