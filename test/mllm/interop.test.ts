/**
 * VLMEvalKit and lmms-eval in (and VLMEvalKit out): the fixtures in test/fixtures/interop were
 * written by Python the way those harnesses write their files (make-fixtures.sh), from prompt files
 * this test rebuilds. Imported and scored, they must give the results files the same answers give
 * when imported as gsr JSONL.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadItemSet, scoreModels, writeBenchScores } from '../../src/benchmarks/index.js';
import { readBenchPrompts } from '../../src/formats/chat-prompt.js';
import { readPromptFile } from '../../src/formats/prompts.js';
import { readResponseFile } from '../../src/formats/responses.js';
import { readVlmevalkitPredictions } from '../../src/formats/vlmevalkit.js';
import { exportResponses, importResponses, RunStore, type ImportOptions } from '../../src/mllm/index.js';
import { buildPromptFile, exportVlmevalkit } from '../../src/prompts/index.js';
import { scoreReasoning, writeReasoningResults } from '../../src/scoring/index.js';
import { parsePythonJson } from '../../src/util/python-json.js';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { FAIL_PREDICTION, fixtureAnswers, writeInteropPrompts, type InteropPrompts } from '../helpers/interop.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'interop');
let dir: string;
let files: InteropPrompts;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gsr-interop-'));
  files = await writeInteropPrompts(dir);
});

async function imported(name: string, opts: Omit<ImportOptions, 'model'>) {
  const store = RunStore.open(join(dir, `${name}.sqlite`));
  try {
    const summary = await importResponses(store, { model: 'm', ...opts });
    const out = join(dir, `${name}.responses.jsonl`);
    await exportResponses(store, { out, model: 'm' });
    return { summary, out, store: join(dir, `${name}.sqlite`) };
  } finally {
    store.close();
  }
}

/** The results files of a responses file: What'sUp's reasoning results, or the plug-in's scores.jsonl and cells.json. */
async function results(name: string, which: 'whatsup' | 'vsp', responsesFile: string): Promise<string[]> {
  const out = join(dir, `${name}.results`);
  const responses = await readResponseFile(responsesFile, []);
  let paths: string[];
  if (which === 'whatsup') {
    const { result, items } = scoreReasoning(await readPromptFile(files.whatsup, []), responses, {});
    paths = await writeReasoningResults(out, result, items);
  } else {
    const set = await loadItemSet(files.vspItems);
    paths = await writeBenchScores(out, scoreModels(set.benchmark, set.items, await readBenchPrompts(files.vsp), new Map([['m', responses]])));
  }
  return paths.map((p) => readFileSync(p, 'utf8'));
}

/** The fixture answers as gsr JSONL lines (a failed request as status failed, with VLMEvalKit's message as the importer words it). */
async function jsonlAnswers(which: 'whatsup' | 'vsp'): Promise<string> {
  const answers = await fixtureAnswers(which === 'whatsup' ? files.whatsup : files.vsp, which === 'vsp' ? files.vspItems : undefined);
  const path = join(dir, `${which}.answers.jsonl`);
  writeFileSync(path, answers.map(({ prompt, answer }) => JSON.stringify(answer === null ? { key: prompt.key, status: 'failed', output: null, error: `VLMEvalKit: ${FAIL_PREDICTION}` } : { key: prompt.key, output: answer })).join('\n') + '\n');
  return path;
}

describe('VLMEvalKit prediction files', () => {
  for (const which of ['whatsup', 'vsp'] as const) {
    const base = which === 'whatsup' ? 'whatsup-tg' : 'vsp';
    it(`${base}: xlsx, tsv and json as VLMEvalKit writes them score as the same answers in JSONL`, async () => {
      const prompts = which === 'whatsup' ? files.whatsup : files.vsp;
      const viaJsonl = await imported(`${which}-jsonl`, { file: await jsonlAnswers(which), prompts });
      const n = viaJsonl.summary.records;
      expect(viaJsonl.summary).toMatchObject({ matched: n, imported: n, failed: 1, empty: 1, unmatched: 0, invalid: 0, missing: 0 });
      const expected = await results(`${which}-jsonl`, which, viaJsonl.out);
      for (const ext of ['xlsx', 'tsv', 'json']) {
        const r = await imported(`${which}-${ext}`, { file: join(FIXTURES, `${base}.${ext}`), prompts, from: 'vlmevalkit' });
        expect(r.summary, ext).toMatchObject({ records: n, matched: n, imported: n, failed: 1, empty: 1, unmatched: 0, duplicated: 0, invalid: 0, missing: 0 });
        expect(await results(`${which}-${ext}`, which, r.out), ext).toEqual(expected);
      }
    });
  }

  it('an xlsx written by exceljs (as a user might fill one) reads back the same', async () => {
    const tsv = join(dir, 'export.tsv');
    await exportVlmevalkit({ prompts: files.whatsup, out: tsv, images: 'paths' });
    const answers = await fixtureAnswers(files.whatsup);
    const { default: ExcelJS } = await import('exceljs');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Sheet1');
    const rows = await readVlmevalkitPredictions(tsv);
    const columns = [...Object.keys(rows[0].cells), 'prediction'];
    sheet.addRow(columns);
    for (const [i, row] of rows.entries()) {
      const prediction = answers[i].answer === null ? FAIL_PREDICTION : answers[i].answer || null;
      sheet.addRow([...columns.slice(0, -1).map((c) => (c === 'index' ? Number(row.cells[c]) : row.cells[c])), prediction]);
    }
    const xlsx = join(dir, 'exceljs.xlsx');
    await book.xlsx.writeFile(xlsx);
    const viaJsonl = await imported('exceljs-jsonl', { file: await jsonlAnswers('whatsup'), prompts: files.whatsup });
    const r = await imported('exceljs', { file: xlsx, prompts: files.whatsup, from: 'vlmevalkit' });
    expect(r.summary).toMatchObject({ matched: viaJsonl.summary.matched, failed: 1, empty: 1, unmatched: 0 });
    expect(await results('exceljs', 'whatsup', r.out)).toEqual(await results('exceljs-jsonl', 'whatsup', viaJsonl.out));
  });

  it('names rows of another prompt file, past the end, or without an index; --strict imports nothing', async () => {
    const tsv = join(dir, 'bad.tsv');
    // Row 1 claims another key, row 2 an index past the end, row 3 has no index.
    const text = readFileSync(join(FIXTURES, 'whatsup-tg.tsv'), 'utf8')
      .replace(/"[0-9a-f]{64}"/, `"${'0'.repeat(64)}"`)
      .replace(/^"1"\t/m, '"999"\t')
      .replace(/^"2"\t/m, '""\t');
    writeFileSync(tsv, text);
    const r = await imported('bad', { file: tsv, prompts: files.whatsup, from: 'vlmevalkit' });
    expect(r.summary).toMatchObject({ unmatched: 2, invalid: 1, missing: 3 });
    expect(r.summary.problems.join('\n')).toMatch(/bad\.tsv:row 1: unmatched: index 0 carries key 0{64}, but prompt 0 of .* has key [0-9a-f]{64}/);
    expect(r.summary.problems.join('\n')).toMatch(/row 2: unmatched: index 999 is past the last prompt/);
    expect(r.summary.problems.join('\n')).toMatch(/row 3: invalid: index "" is not a non-negative integer/);
    await expect(imported('bad-strict', { file: tsv, prompts: files.whatsup, from: 'vlmevalkit', strict: true })).rejects.toThrow(/row 1: index 0 carries key .*--strict: nothing was imported/);
    const store = RunStore.open(join(dir, 'bad-strict.sqlite'));
    expect(store.counts()).toEqual({});
    store.close();
  });
});

describe('VLMEvalKit out', () => {
  it('--shape mcq: option columns in the shown order, the answer letter, the question without its option lines; TG is refused', async () => {
    const mc = join(dir, 'mc.jsonl');
    await buildPromptFile({ manifest: files.manifest, task: 'mc', out: mc });
    const tsv = join(dir, 'mc.tsv');
    await exportVlmevalkit({ prompts: mc, out: tsv, shape: 'mcq', images: 'paths' });
    const rows = (await readVlmevalkitPredictions(tsv)).map((r) => r.cells);
    const prompts = await readPromptFile(mc, []);
    expect(rows).toHaveLength(prompts.length);
    for (const [i, p] of prompts.entries()) {
      expect(rows[i]).toMatchObject({ index: String(i), key: p.key, answer: p.expected, image_path: p.image, A: p.options[0], B: p.options[1] });
      expect(rows[i].question).toBe('Which caption describes the image correctly?\nAnswer with the letter of the correct option only.');
    }
    expect(rows.find((r) => r.C === '')).toBeDefined(); // two-option items leave C and D blank
    await expect(exportVlmevalkit({ prompts: files.whatsup, out: join(dir, 'tg.tsv'), shape: 'mcq' })).rejects.toThrow(/prompt 0 \(.*\) is not a multiple-choice prompt; --shape mcq takes What'sUp MC prompts/);
  });
});

describe('lmms-eval --log_samples', () => {
  it('imports by doc_id with counts; the duplicate and the unknown document are named', async () => {
    const answers = await fixtureAnswers(files.vsp, files.vspItems);
    const r = await imported('lmms', { file: join(FIXTURES, 'vsp_samples.jsonl'), prompts: files.vsp, from: 'lmms-eval' });
    const n = answers.length;
    // Every answered prompt once (the failed one has no sample), one document twice, one unknown.
    // filtered: doc 4, whose filter changed the answer (resps beside filtered_resps).
    expect(r.summary).toMatchObject({ records: n + 1, matched: n - 1, imported: n - 1, duplicated: 1, unmatched: 1, empty: 1, failed: 0, invalid: 0, missing: 1, filtered: 1 });
    expect(r.summary.problems.join('\n')).toMatch(/vsp_samples\.jsonl:\d+ \(doc_id 0\): duplicated: answers the same prompt as .*vsp_samples\.jsonl:1 \(doc_id 0\)/);
    expect(r.summary.problems.join('\n')).toMatch(/\(doc_id \d+\): unmatched: index \d+ is past the last prompt/);
    const stored = new Map((await readResponseFile(r.out, [])).map((x) => [x.key, x.output]));
    for (const { prompt, answer } of answers) if (answer !== null) expect(stored.get(prompt.key)).toBe(answer);
    // The raw answer, not the filtered one, where a filter changed it (doc 4).
    expect(stored.get(answers[4].prompt.key)).toMatch(/^<Output> /);
    const samples = readFileSync(join(FIXTURES, 'vsp_samples.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => parsePythonJson(l) as Record<string, unknown>);
    expect(samples.some((s) => s.exact_match === null)).toBe(true);
    expect(samples.some((s) => typeof s.filtered_resps === 'string') && samples.some((s) => Array.isArray(s.filtered_resps))).toBe(true);
  });

  it('imports by input text: a text several prompts share is named, never guessed', async () => {
    const r = await imported('lmms-input', { file: join(FIXTURES, 'vsp_samples.jsonl'), prompts: files.vsp, from: 'lmms-eval', match: 'input' });
    const s = r.summary;
    expect(s.matched + s.unmatched + s.duplicated + s.invalid).toBe(s.records);
    expect(s.matched).toBeGreaterThan(0);
    for (const p of s.problems.filter((x) => x.includes('unmatched'))) expect(p).toMatch(/several prompts of .* have this text|no prompt of .* has this text/);
  });
});

describe('gsr JSONL import', () => {
  it('skips and counts bad lines (--strict stops at the first); a repeated import changes nothing', async () => {
    const answers = await fixtureAnswers(files.whatsup);
    const lines = answers.map(({ prompt, answer }) => JSON.stringify({ key: prompt.key, output: answer ?? '' }));
    lines.splice(2, 0, '{"key": "broken', '{"output": "no key"}');
    const file = join(dir, 'lines.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const first = await imported('lines', { file, prompts: files.whatsup });
    expect(first.summary).toMatchObject({ records: answers.length + 2, matched: answers.length, imported: answers.length, invalid: 2, unchanged: 0 });
    expect(first.summary.problems).toEqual([`${file}:3: invalid: malformed JSON`, `${file}:4: invalid: key is missing (or give item, with --prompts)`]);
    const before = readFileSync(first.out, 'utf8');
    const again = await imported('lines', { file, prompts: files.whatsup });
    expect(again.summary).toMatchObject({ imported: 0, unchanged: answers.length, kept: 0 });
    expect(readFileSync(again.out, 'utf8')).toBe(before);
    await expect(imported('lines-strict', { file, prompts: files.whatsup, strict: true })).rejects.toThrow(`${file}:3: malformed JSON (--strict: nothing was imported)`);
  });

  it('the CLI: export, import with counts on stdout, problems on stderr, exit 3 when records were left out', () => {
    const tsv = join(dir, 'cli.tsv');
    const exported = runCli(['prompts', 'export', '--prompts', files.whatsup, '--format', 'vlmevalkit', '--out', tsv]);
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toMatch(/^wrote \d+ rows \(\d+ images, shape prompt\) to /);
    const store = join(dir, 'cli.sqlite');
    const ok = runCli(['responses', 'import', join(FIXTURES, 'whatsup-tg.xlsx'), '--from', 'vlmevalkit', '--prompts', files.whatsup, '--model', 'm', '--store', store]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/matched (\d+) \| imported \1 \| unchanged 0 \| kept 0 \| unmatched 0 \| duplicated 0 \| empty 1 \| failed 1 \| invalid 0 \| prompts without an answer 0/);
    const lmms = runCli(['responses', 'import', join(FIXTURES, 'vsp_samples.jsonl'), '--from', 'lmms-eval', '--prompts', files.vsp, '--model', 'm', '--store', store]);
    expect(lmms.status).toBe(3);
    expect(lmms.stderr).toMatch(/unmatched: index \d+ is past the last prompt/);
    expect(lmms.stderr).toContain('gsr: 1 samples have resps beside filtered_resps (a filter changed the answer): imported from resps, which is the model\'s raw answer only if lmms-eval ran with --reasoning_tags none');
    // lmms-eval's current file name, %Y%m%d_%H%M%S_samples_<task>.jsonl, is read like any other.
    const current = join(dir, '20250101_120000_samples_gsr_vsp.jsonl');
    writeFileSync(current, readFileSync(join(FIXTURES, 'vsp_samples.jsonl')));
    const named = runCli(['responses', 'import', current, '--from', 'lmms-eval', '--prompts', files.vsp, '--model', 'm2', '--store', store, '--json']);
    expect(JSON.parse(named.stdout)).toMatchObject({ from: 'lmms-eval', filtered: 1, unmatched: 1 });
    const noPrompts = runCli(['responses', 'import', join(FIXTURES, 'vsp.tsv'), '--from', 'vlmevalkit', '--model', 'm', '--store', store]);
    expect(noPrompts.stderr.trim()).toBe('gsr: error: --from vlmevalkit needs --prompts FILE: its records are matched by their place in that file');
  }, 120_000);
});
