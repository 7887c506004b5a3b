/**
 * Property-based fuzzing of every input parser: model box text in every format, answer extraction,
 * What'sUp JSON, COCO JSON, pipeline YAML and JSON Lines. Each may return a failure or throw a
 * GsrError, nothing else; no single call may take long (a hang) and the heap may not grow without bound.
 * Fixed seed (GSR_FUZZ_SEED) and a time budget per parser (GSR_FUZZ_MS, default 2500 ms), so CI
 * time stays bounded; the run count reached is whatever fits the budget, in the seed's order.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { benchAnswerer, benchmarks, generateBenchmark, importBenchmark, judgeOutput, JUDGED_CHARS, loadItemSet, writeBenchPromptFile } from '../../src/benchmarks/index.js';
import { sampleRoot as vspSampleRoot } from '../benchmarks/vsp/sample.js';
import { readCocoFile } from '../../src/formats/coco.js';
import { importWhatsup } from '../../src/datasets/index.js';
import { readManifestAll } from '../../src/formats/manifest.js';
import { convertControlledRecord, convertQaRecord, WHATSUP_FILES } from '../../src/datasets/whatsup-records.js';
import { readBenchPrompts } from '../../src/formats/chat-prompt.js';
import { extractJson } from '../../src/formats/json-text.js';
import { parsePipeline } from '../../src/formats/pipeline-file.js';
import { extractChoiceAnswer, extractTemplateAnswer, matchOptionText } from '../../src/scoring/answer.js';
import { BOX_FORMATS } from '../../src/scoring/box-formats.js';
import { parseBox } from '../../src/scoring/box-parse.js';
import { GsrError } from '../../src/util/errors.js';
import { readJsonlAll } from '../../src/util/jsonl.js';
import { scaled } from '../helpers/cli.js';

const SEED = Number(process.env.GSR_FUZZ_SEED ?? 20261201);
const BUDGET_MS = Number(process.env.GSR_FUZZ_MS ?? 2500);
/** One call slower than this is a hang (generous: the machine running CI is shared and slow). */
const SLOW_CALL_MS = 2000;
const HEAP_GROWTH_LIMIT = 256 * 2 ** 20;
const dir = mkdtempSync(join(tmpdir(), 'gsr-fuzz-'));

/** Runs `fn`; returns normally on success or a GsrError, fails the property on any other throw or a slow call. */
async function onlyTypedErrors(fn: () => unknown, slowMs = SLOW_CALL_MS): Promise<void> {
  const t = performance.now();
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof GsrError)) throw new Error(`threw ${(err as Error)?.name}: ${(err as Error)?.message}`, { cause: err });
  }
  const ms = performance.now() - t;
  if (ms > slowMs) throw new Error(`one call took ${ms.toFixed(0)} ms`);
}

/** Checks a property for the time budget with the fixed seed; reports how many runs fit. */
async function fuzz<T>(name: string, arb: fc.Arbitrary<T>, body: (value: T) => Promise<void> | void, { minRuns = 11, budgetMs = BUDGET_MS } = {}): Promise<number> {
  const heapBefore = process.memoryUsage().heapUsed;
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(arb, async (v) => {
      runs++;
      await body(v);
    }),
    { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: budgetMs, markInterruptAsFailure: false, endOnFailure: true },
  );
  expect(process.memoryUsage().heapUsed - heapBefore, `${name}: heap growth`).toBeLessThan(HEAP_GROWTH_LIMIT);
  expect(runs, `${name}: runs in ${budgetMs} ms`).toBeGreaterThanOrEqual(minRuns);
  process.stderr.write(`fuzz ${name}: ${runs} cases in ${budgetMs} ms (seed ${SEED})\n`);
  return runs;
}

// Numbers as model outputs write them, and as they should not.
const numText = fc.oneof(
  fc.integer({ min: -2000, max: 3000 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom('1e999', '-0', '.5', '5.', '0x10', 'NaN', 'Infinity', '9'.repeat(400), '1'.repeat(30) + '.' + '1'.repeat(30), ''),
);
const four = fc.tuple(numText, numText, numText, numText);
const boxText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  four.map(([a, b, c, d]) => `[${a}, ${b}, ${c}, ${d}]`),
  four.map(([a, b, c, d]) => `[[${a},${b},${c},${d}]]`),
  four.map(([a, b, c, d]) => `<box>(${a},${b}),(${c},${d})</box>`),
  four.map(([a, b, c, d]) => `<|box_start|>(${a},${b}),(${c},${d})<|box_end|>`),
  four.map(([a, b, c, d]) => `{"bbox_2d": [${a}, ${b}, ${c}, ${d}], "label": "mug"}`),
  four.map(([a, b, c, d]) => `\`\`\`json\n[{"box_2d": [${a}, ${b}, ${c}, ${d}]}]\n\`\`\``),
  four.map(([a, b, c, d]) => `<loc_${a}><loc_${b}><loc_${c}><loc_${d}>`),
  four.map(([a, b, c, d]) => `<loc${a}><loc${b}><loc${c}><loc${d}>`),
  four.map(([a, b, c, d]) => `<object>mug</object><patch_index_${a}><patch_index_${b}></object>${c}${d}`),
  four.map(([a, b, c, d]) => `<|ref|>mug<|/ref|><|det|>[[${a}, ${b}, ${c}, ${d}]]<|/det|>`),
  fc.array(numText, { maxLength: 40 }).map((xs) => xs.join(',')),
  fc.constantFrom('('.repeat(5000), '[' + '1,'.repeat(3000), '<box>'.repeat(2000), '<loc_'.repeat(3000)),
);
const size = fc.oneof(fc.integer({ min: 1, max: 5000 }), fc.constantFrom(0, -1, Number.NaN, Number.POSITIVE_INFINITY, 0.5));

describe('fuzzing the input parsers (fixed seed, time budget)', () => {
  it('box text in every format: a box inside the image or a failure, never a throw', async () => {
    await fuzz(
      'boxes',
      fc.record({ text: boxText, format: fc.constantFrom(...BOX_FORMATS, 'auto' as const), width: size, height: size, inputWidth: fc.option(size, { nil: undefined }), inputHeight: fc.option(size, { nil: undefined }), llavaPadded: fc.boolean() }),
      async ({ text, ...options }) => {
        await onlyTypedErrors(() => {
          const r = parseBox(text, options);
          if (r.ok) {
            const [x1, y1, x2, y2] = r.box;
            if (![x1, y1, x2, y2].every(Number.isFinite) || x1 > x2 || y1 > y2) throw new Error(`bad box ${JSON.stringify(r.box)} from ${JSON.stringify(text)}`);
            if (x1 < 0 || y1 < 0 || x2 > options.width || y2 > options.height) throw new Error(`box ${JSON.stringify(r.box)} outside ${options.width}x${options.height}`);
          }
        });
      },
    );
  }, scaled(60_000));

  it('answer extraction (TG, MC, option matching, JSON in text): an index in range or unparsed', async () => {
    const options = fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('A mug on a table', 'A mug under a table', '', 'left', 'Left')), { maxLength: 8 });
    const output = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 100 }), fc.constantFrom('A'.repeat(50_000), '(B) '.repeat(5000), '```' + '{'.repeat(3000)), fc.json());
    await fuzz('answers', fc.record({ output, options }), async ({ output, options }) => {
      await onlyTypedErrors(() => {
        for (const r of [extractTemplateAnswer(output, options), extractChoiceAnswer(output, options), matchOptionText(output, options)]) {
          if (r.status === 'ok' && !(Number.isInteger(r.index) && r.index >= 0 && r.index < Math.max(options.length, 26))) throw new Error(`index ${r.index} for ${options.length} options`);
        }
        extractJson(output);
      });
    });
  }, scaled(60_000));

  it("What'sUp JSON: records and whole files", async () => {
    const record = fc.oneof(
      fc.jsonValue(),
      fc.record({ image_path: fc.oneof(fc.string(), fc.constantFrom('data/controlled_images/x.jpeg', '../x', '/etc/passwd', 'data/../../x', 'C:\\x', '')), caption_options: fc.oneof(fc.array(fc.string(), { maxLength: 6 }), fc.jsonValue()) }, { requiredKeys: [] }),
      fc.tuple(fc.integer(), fc.string(), fc.array(fc.string(), { maxLength: 6 })).map(([id, q, opts]) => [id, q, ...opts]),
    );
    let n = 0;
    await fuzz('whatsup', fc.oneof(fc.array(record, { maxLength: 5 }).map((a) => JSON.stringify(a)), fc.string({ maxLength: 200 })), async (text) => {
      await onlyTypedErrors(() => {
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* also fed to the importer as is */
        }
        for (const r of Array.isArray(parsed) ? parsed : [parsed]) for (const spec of WHATSUP_FILES) (spec.kind === 'controlled' ? convertControlledRecord : convertQaRecord)(spec, r);
      });
      // Every 20th case also goes through a real import (file I/O is slow).
      if (n++ % 20 === 0) {
        const root = join(dir, `w${n}`);
        mkdirSync(root, { recursive: true });
        writeFileSync(join(root, 'controlled_images_dataset.json'), text);
        await onlyTypedErrors(() => importWhatsup(root, { readSizes: false }));
      }
    });
  }, scaled(60_000));

  it('COCO JSON, JSON Lines and manifests: one-line typed errors only', async () => {
    const ann = fc.record({ id: fc.jsonValue(), image_id: fc.oneof(fc.integer(), fc.jsonValue()), bbox: fc.oneof(fc.array(fc.double(), { maxLength: 5 }), fc.jsonValue()), role: fc.constantFrom('subject', 'object', 'x'), segmentation: fc.oneof(fc.record({ size: fc.array(fc.integer(), { maxLength: 3 }), counts: fc.oneof(fc.string(), fc.array(fc.integer())) }), fc.jsonValue()) }, { requiredKeys: [] });
    const coco = fc.oneof(fc.jsonValue(), fc.record({ images: fc.array(fc.record({ id: fc.integer(), file_name: fc.string(), width: fc.integer(), height: fc.integer(), item_id: fc.string() }, { requiredKeys: [] }), { maxLength: 3 }), annotations: fc.array(ann, { maxLength: 4 }), info: fc.jsonValue() }, { requiredKeys: [] }));
    const lines = fc.array(fc.oneof(fc.json(), fc.string({ maxLength: 80 }), fc.constantFrom('', '\r', '{', '[1,2', '"\\ud800"', '\u2028', '{"id": "a", "image": "../../etc/passwd"}')), { maxLength: 8 }).map((ls) => ls.join('\n'));
    let n = 0;
    await fuzz('coco+jsonl', fc.record({ coco: coco.map((v) => JSON.stringify(v)), jsonl: lines }), async ({ coco: cocoText, jsonl }) => {
      const i = n++;
      writeFileSync(join(dir, `c${i}.json`), cocoText);
      writeFileSync(join(dir, `l${i}.jsonl`), jsonl);
      await onlyTypedErrors(() => readCocoFile(join(dir, `c${i}.json`)));
      await onlyTypedErrors(() => readJsonlAll(join(dir, `l${i}.jsonl`)));
      await onlyTypedErrors(() => readManifestAll(join(dir, `l${i}.jsonl`)));
      await onlyTypedErrors(() => readBenchPrompts(join(dir, `l${i}.jsonl`)));
    });
  }, scaled(60_000));

  it('pipeline YAML: arbitrary text, near-valid files, anchors and aliases', async () => {
    const key = fc.constantFrom('name', 'out', 'dataset', 'synthetic', 'count', 'seed', 'whatsup', 'root', 'annotations', 'source', 'prompts', 'tasks', 'models', 'kind', 'scoring', 'report', '<<', 'x');
    const scalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String), fc.constantFrom('~', 'null', 'true', '[]', '{}', '${GSR_X}', '${GSR_X:-3}', '*a', '&a x', '!!binary x', '!!js/function x', "'", '"'));
    const yamlText = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), key, scalar), { maxLength: 20 }).map((rows) => rows.map(([indent, k, v]) => `${'  '.repeat(indent)}${k}: ${v}`).join('\n'));
    const near = fc.array(fc.tuple(fc.nat(2000), fc.string({ maxLength: 8 })), { maxLength: 4 }).map((edits) => {
      let t = 'name: t\nout: o\ndataset:\n  synthetic:\n    count: 4\n    seed: 1\nmodels:\n  - name: random\n    kind: random\n';
      for (const [at, s] of edits) t = t.slice(0, at % (t.length + 1)) + s + t.slice(at % (t.length + 1));
      return t;
    });
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]', ...[1, 2, 3, 4, 5, 6].map((i) => `l${i}: &l${i} [${Array(9).fill(i === 1 ? '*a' : `*l${i - 1}`).join(', ')}]`)];
    const bomb = fc.constant(levels.join('\n'));
    await fuzz('yaml', fc.oneof(fc.string({ maxLength: 300 }), yamlText, near, bomb), async (text) => {
      await onlyTypedErrors(() => parsePipeline(text, join(dir, 'p.yaml'), { GSR_X: '1' }));
    });
  }, scaled(60_000));
});

/**
 * The benchmark plug-ins, through their interface only (the registry's `judge` and `parseItem`, and
 * importBenchmark / loadItemSet), so these keep working when a plug-in's insides are rewritten. Model
 * outputs start from every baseline's answers to real prompts of a small set and are cut, grown and
 * spliced; item files start from the set's own items.jsonl lines.
 */
const SETS: Record<string, { make: (out: string) => Promise<unknown>; root?: () => Promise<string> }> = {
  vsp: { make: async (out) => importBenchmark('vsp', await vspSampleRoot(), out), root: vspSampleRoot },
  'snorkel-spatial': { make: (out) => generateBenchmark('snorkel-spatial', { count: 4 }, out) },
  svat: { make: (out) => generateBenchmark('svat', { count: 2, width: 64, height: 64 }, out) },
};

/** Text edits of `base`: cut at a point, a string spliced in, and (with `repeat`) the result repeated up to past the judged length. */
const edited = (bases: string[], repeat: boolean) =>
  fc.record({ base: fc.constantFrom(...bases), at: fc.nat(), cut: fc.nat(40), add: fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 10 }), fc.constantFrom('\n', '```', '<Output>', '</Output>', 'Answer:', '{', '[', ']', '0'.repeat(400))), times: fc.integer({ min: 1, max: 100 }) })
    .map(({ base, at, cut, add, times }) => {
      const i = base.length === 0 ? 0 : at % (base.length + 1);
      const spliced = base.slice(0, i) + add + base.slice(i + cut);
      // One case in twenty is long: repeated to about 1.5 times the judged length.
      return repeat && times > 95 ? spliced.repeat(Math.ceil((1.5 * JUDGED_CHARS) / Math.max(1, spliced.length))) : spliced;
    });

describe.each(Object.keys(SETS))('fuzzing the %s plug-in (fixed seed, time budget)', (name) => {
  const b = benchmarks.get(name);
  let set: Awaited<ReturnType<typeof loadItemSet>>;
  let prompts: Awaited<ReturnType<typeof readBenchPrompts>>;
  let outputs: string[];
  let lines: string[];
  const setDir = join(dir, `${name}-set`);
  beforeAll(async () => {
    await SETS[name].make(setDir);
    set = await loadItemSet(setDir);
    await writeBenchPromptFile(b, set.items.values(), {}, set.context, join(dir, `${name}-prompts.jsonl`));
    prompts = (await readBenchPrompts(join(dir, `${name}-prompts.jsonl`))).slice(0, 200);
    outputs = [''];
    for (const kind of Object.keys(b.baselines)) {
      const answerer = await benchAnswerer(b, set.items, kind, { model: kind, seed: 1 });
      for (const p of prompts.slice(0, 40)) {
        const a = await answerer.answer(p, new AbortController().signal).catch(() => '');
        outputs.push(typeof a === 'string' ? a : a.text);
      }
    }
    lines = readFileSync(join(setDir, 'items.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 50);
  }, 180_000);

  it('judge (through judgeOutput, as scoring calls it): model outputs in every mode give a judgement, never an error other than GsrError', async () => {
    expect(prompts.length).toBeGreaterThan(0);
    const output = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 100 }), fc.string({ unit: 'binary', maxLength: 200 }), edited(outputs, true), fc.json());
    await fuzz(`${name} judge`, fc.record({ i: fc.nat(), mode: fc.constantFrom(...b.modes), output }), async ({ i, mode, output }) => {
      const p = prompts[i % prompts.length];
      await onlyTypedErrors(() => {
        const j = judgeOutput(b, set.items.get(p.item)!, p, output, mode);
        if (typeof j.valid !== 'boolean' || typeof j.correct !== 'boolean') throw new Error(`judgement without valid/correct: ${JSON.stringify(j)}`);
        if (j.credit !== undefined && !(j.credit >= 0 && j.credit <= 1)) throw new Error(`credit ${j.credit} outside [0, 1]`);
      });
    });
  }, 120_000);

  it('parseItem: near-valid and arbitrary records give an item or a GsrError', async () => {
    const raws = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const mutated = fc.record({ raw: fc.constantFrom(...raws), key: fc.nat(), value: fc.jsonValue({ maxDepth: 3 }), drop: fc.boolean() }).map(({ raw, key, value, drop }) => {
      const keys = Object.keys(raw);
      const k = keys[key % keys.length];
      const copy: Record<string, unknown> = { ...raw };
      if (drop) delete copy[k];
      else copy[k] = value;
      return copy;
    });
    await fuzz(`${name} parseItem`, fc.oneof(fc.jsonValue({ maxDepth: 4 }), mutated), async (raw) => {
      await onlyTypedErrors(() => b.parseItem(raw));
    });
  }, 120_000);

  it('item files: a set whose items.jsonl is cut, spliced or replaced loads or fails with a GsrError', async () => {
    const text = lines.join('\n') + '\n';
    let n = 0;
    await fuzz(`${name} items.jsonl`, fc.oneof(edited([text], false), fc.string({ maxLength: 300 })), async (items) => {
      const d = join(dir, `${name}-fuzz-${n++}`);
      mkdirSync(d);
      writeFileSync(join(d, 'items.jsonl'), items);
      writeFileSync(join(d, 'context.json'), readFileSync(join(setDir, 'context.json')));
      await onlyTypedErrors(() => loadItemSet(d));
    });
  }, 120_000);

  it.runIf(SETS[name].root !== undefined)('importer: a copy with one record file fuzzed imports or fails with a GsrError', async () => {
    const root = join(dir, `${name}-copy`);
    cpSync(await SETS[name].root!(), root, { recursive: true });
    const records = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(txt|json)$/.test(f) || !f.includes('.')).filter((f) => statSync(join(root, f)).isFile()).sort();
    // A whole import reads hundreds of files: "too slow" and the time budget are measured against a clean import.
    const t = performance.now();
    await importBenchmark(name, root, join(dir, `${name}-clean`));
    const clean = performance.now() - t;
    const slow = Math.max(SLOW_CALL_MS, 5 * clean);
    let n = 0;
    await fuzz(`${name} import`, fc.record({ file: fc.constantFrom(...records), text: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 100 }), fc.json()) }), async ({ file, text }) => {
      const before = readFileSync(join(root, file));
      writeFileSync(join(root, file), text);
      try {
        await onlyTypedErrors(() => importBenchmark(name, root, join(dir, `${name}-imp-${n++}`)), slow);
      } finally {
        writeFileSync(join(root, file), before);
      }
    }, { minRuns: 3, budgetMs: Math.round(Math.max(BUDGET_MS, 4 * clean)) });
  }, 180_000);
});
