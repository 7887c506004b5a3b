import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPipelineText, parsePipeline } from '../../src/formats/pipeline-file.js';
import { PipelineSchema } from '../../src/formats/pipeline.js';
import { ALPHA_RULES, GREY16_RULES, ICC_RULES } from '../../src/perception/types.js';
import { annotatorModels } from '../../src/pipeline/stages/annotate.js';

const BASE = `name: t
out: out/t
dataset:
  synthetic:
    count: 8
models:
  - name: geometric
    kind: geometric
`;

describe('pipeline file', () => {
  it('accepts a minimal file and fills defaults; relative paths resolve against the file', () => {
    const p = parsePipeline(BASE, '/tmp/x/p.yaml', {});
    expect(p.config.out).toBe('/tmp/x/out/t');
    expect(p.config.prompts.tasks).toEqual(['tg', 'mc', 'grounding', 'dap']);
    expect(p.config.models[0].concurrency).toBe(4);
    expect(p.config.annotations.source).toBe('auto');
  });

  it('annotations.models takes the decoding rules of gsr annotate; absent, the stage settings do not name them', () => {
    const withRules = (alpha: string, grey16: string, icc: string) =>
      `${BASE}annotations:\n  models:\n    decode_alpha: ${alpha}\n    decode_grey16: ${grey16}\n    decode_icc: ${icc}\n`;
    for (const [alpha, grey16, icc] of ALPHA_RULES.map((a, i) => [a, GREY16_RULES[i]!, ICC_RULES[i]!])) {
      expect(annotatorModels(parsePipeline(withRules(alpha!, grey16!, icc!), 'p.yaml', {}).config).decode).toStrictEqual({ alpha, grey16, icc });
    }
    expect(() => parsePipeline(withRules('black', 'clip', 'ignore'), 'p.yaml', {})).toThrow(/annotations\.models\.decode_alpha/);
    expect(() => parsePipeline(withRules('drop', 'low-byte', 'ignore'), 'p.yaml', {})).toThrow(/annotations\.models\.decode_grey16/);
    expect(() => parsePipeline(withRules('drop', 'clip', 'assign'), 'p.yaml', {})).toThrow(/annotations\.models\.decode_icc/);
    expect(annotatorModels(parsePipeline(`${BASE}annotations:\n  models:\n    decode_icc: convert\n`, 'p.yaml', {}).config).decode).toEqual({ icc: 'convert' });
    expect(annotatorModels(parsePipeline(BASE, 'p.yaml', {}).config)).not.toHaveProperty('decode');
  });

  it('segmenter: none and depth: none mean no such model, as --segmenter none does on the command line', () => {
    const m = annotatorModels(parsePipeline(`${BASE}annotations:\n  models:\n    segmenter: none\n    depth: none\n`, 'p.yaml', {}).config);
    expect(m).toMatchObject({ segmenter: null, depth: null });
    expect(annotatorModels(parsePipeline(`${BASE}annotations:\n  models:\n    segmenter: slimsam-77-uniform\n`, 'p.yaml', {}).config).segmenter).toBe('slimsam-77-uniform');
  });

  it('names the line and the key of an unknown key', () => {
    const text = BASE.replace('    count: 8\n', '    count: 8\n    colour: red\n');
    expect(() => parsePipeline(text, 'p.yaml', {})).toThrow(/^p\.yaml:6:5: unknown key "colour" in dataset\.synthetic$/);
  });

  it('names the line and the key of a wrong type', () => {
    const text = BASE.replace('kind: geometric', 'kind: geometric\n    concurrency: lots');
    expect(() => parsePipeline(text, 'p.yaml', {})).toThrow(/^p\.yaml:9:18: models\[0\]\.concurrency: .*number/);
  });

  it('reports YAML syntax errors with their line, on one line', () => {
    try {
      parsePipeline('name: t\nout: [unclosed\n', 'p.yaml', {});
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/^p\.yaml:\d+:\d+: invalid YAML: /);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('needs exactly one dataset source', () => {
    const text = BASE.replace('dataset:\n', 'dataset:\n  manifest: m.jsonl\n');
    expect(() => parsePipeline(text, 'p.yaml', {})).toThrow(/p\.yaml:3:1: dataset: give exactly one of synthetic, whatsup, manifest$/);
  });

  it('fills ${VAR} from the environment and skips models whose if_env is unset', () => {
    const text = `${BASE}  - name: remote
    kind: openai
    base_url: \${GSR_BASE_URL}
    model: \${GSR_MODEL:-some-model}
    if_env: [GSR_BASE_URL]
`;
    const off = parsePipeline(text, 'p.yaml', {});
    expect(off.config.models.map((m) => m.name)).toEqual(['geometric']);
    expect(off.skippedModels).toEqual([{ name: 'remote', reason: 'GSR_BASE_URL not set' }]);
    const on = parsePipeline(text, 'p.yaml', { GSR_BASE_URL: 'http://h:1/v1' });
    expect(on.config.models[1]).toMatchObject({ base_url: 'http://h:1/v1', model: 'some-model' });
  });

  it('fails on an unset variable a kept model needs, naming the field', () => {
    const text = `${BASE}  - name: remote\n    kind: openai\n    base_url: \${NOPE_URL}\n`;
    expect(() => parsePipeline(text, 'p.yaml', {})).toThrow(/^p\.yaml: models\[1\]\.base_url: environment variable NOPE_URL is not set$/);
  });

  it('${VAR:+word} gives word only when VAR is set; an empty result counts as not given', () => {
    const text = `${BASE}  - name: remote\n    kind: openai\n    base_url: http://h/v1\n    api_key_env: \${KEY:+KEY}\n`;
    expect(parsePipeline(text, 'p.yaml', {}).config.models[1].api_key_env).toBeUndefined();
    expect(parsePipeline(text, 'p.yaml', { KEY: 's3cret' }).config.models[1].api_key_env).toBe('KEY');
  });

  it('checks values filled from the environment against the schema', () => {
    const text = `${BASE}  - name: other\n    kind: \${KIND:-}\n`;
    expect(() => parsePipeline(text, 'p.yaml', {})).toThrow(/^p\.yaml: models\[1\]\.kind: .*after filling in environment variables\)$/);
    expect(parsePipeline(text, 'p.yaml', { KIND: 'random' }).config.models[1].kind).toBe('random');
  });

  it('a ${VAR} where a number or flag goes is read as one once filled in, and checked', () => {
    const text = BASE.replace('count: 8', 'count: ${N:-8}').replace('kind: geometric', 'kind: geometric\n    concurrency: ${CONC:-2}');
    const p = parsePipeline(text, 'p.yaml', { CONC: '16' });
    expect(p.config.dataset.synthetic!.count).toBe(8);
    expect(p.config.models[0].concurrency).toBe(16);
    expect(() => parsePipeline(text, 'p.yaml', { CONC: 'lots' })).toThrow(/^p\.yaml: models\[0\]\.concurrency: .*number.*after filling in environment variables\)$/);
    expect(() => parsePipeline(text, 'p.yaml', { CONC: '2.5' })).toThrow(/^p\.yaml: models\[0\]\.concurrency: .*after filling in environment variables\)$/);
    // Written out, a quoted number is still a string: its line is named as before.
    expect(() => parsePipeline(BASE.replace('count: 8', 'count: "8"'), 'p.yaml', {})).toThrow(/^p\.yaml:5:12: dataset\.synthetic\.count: .*number/);
  });

  it('rejects two models with one name', () => {
    const text = `${BASE}  - name: geometric\n    kind: random\n`;
    expect(() => parsePipeline(text, 'p.yaml', {})).toThrow(/used twice/);
  });

  it('takes a model id as a name, and refuses two names that would share one folder', () => {
    const id = parsePipeline(`${BASE}  - name: Qwen/Qwen2.5-VL-7B-Instruct\n    kind: random\n`, 'p.yaml', {});
    expect(id.config.models[1].name).toBe('Qwen/Qwen2.5-VL-7B-Instruct');
    const clash = `${BASE}  - name: a/b\n    kind: random\n  - name: a_b\n    kind: random\n`;
    expect(() => parsePipeline(clash, 'p.yaml', {})).toThrow(/^p\.yaml: models: "a\/b" and "a_b" would share the folder "a_b"; rename one$/);
    expect(() => parsePipeline(`${BASE}  - name: ../up\n    kind: random\n`, 'p.yaml', {})).toThrow(/models\[1\]\.name/);
  });

  it('an alias bomb is refused with a one-line error naming the file', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 7; i++) levels.push(`l${i}: &l${i} [${Array(9).fill(i === 1 ? '*a' : `*l${i - 1}`).join(',')}]`);
    expect(() => parsePipeline(levels.join('\n') + '\n', 'bomb.yaml', {})).toThrow(/^bomb\.yaml: invalid YAML: Excessive alias count/);
  });

  it('a relative path from an environment variable resolves against the working directory, one written in the file against its folder', () => {
    const text = `name: t\nout: \${OUT:-out/t}\ndataset:\n  manifest: \${GSR_MANIFEST}\nannotations:\n  file: ann/\${NAME}.json\nmodels: []\n`;
    const p = parsePipeline(text, '/tmp/x/p.yaml', { GSR_MANIFEST: 'my-images/manifest.jsonl', NAME: 'a' });
    expect(p.config.dataset.manifest).toBe(resolve(process.cwd(), 'my-images/manifest.jsonl'));
    expect(p.config.out).toBe('/tmp/x/out/t'); // the default is written in the file
    expect(p.config.annotations.file).toBe('/tmp/x/ann/a.json'); // the variable is not where the path starts
    expect(parsePipeline(text, '/tmp/x/p.yaml', { GSR_MANIFEST: '/data/m.jsonl', OUT: 'runs/o', NAME: 'a' }).config).toMatchObject({ out: resolve(process.cwd(), 'runs/o'), dataset: { manifest: '/data/m.jsonl' } });
  });

  it('checkPipelineText lists every problem: schema issues with their lines, and unset variables', () => {
    const text = `name: t\nout: out\ndataset:\n  synthetic:\n    count: many\n    colour: red\nprompts:\n  tasks: [mc, nope]\nmodels:\n  - name: a\n    kind: openai\n    base_url: \${NOPE_URL}\n`;
    const c = checkPipelineText(PipelineSchema, text, 'p.yaml', {});
    expect(c.config).toBeNull();
    expect(c.problems).toHaveLength(4);
    expect(c.problems.join('\n')).toMatch(/^p\.yaml:5:\d+: .*dataset\.synthetic\.count/m);
    expect(c.problems.join('\n')).toMatch(/^p\.yaml:6:\d+: unknown key "colour"/m);
    expect(c.problems.join('\n')).toMatch(/^p\.yaml:8:\d+: .*prompts\.tasks\[1\]/m);
    expect(c.problems).toContain('p.yaml: models[0].base_url: environment variable NOPE_URL is not set');
    // parsePipeline stops at the first and says how many more there are.
    expect(() => parsePipeline(text, 'p.yaml', {})).toThrow(/ \(and 3 more; `gsr pipeline check` lists them all\)$/);
  });
});
