import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scaled } from '../helpers/cli.js';
import { FOUR, answerAll, itemPrompts, letterOf, response } from './fixtures.js';

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

// Each CLI call compiles the project with tsx: slow on a loaded machine, hence the long timeout.
describe('gsr score (CLI)', { timeout: scaled(180_000) }, () => {
  it('reasoning: writes reasoning.json/.csv/-items.jsonl; --json prints only JSON; bad lines are skipped and named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-score-'));
    const prompts = [...itemPrompts('a1', 'whatsup-a', 'on', FOUR, 0), ...itemPrompts('b1', 'whatsup-b', 'behind', FOUR, 1)];
    const responses = answerAll(prompts, (p) => letterOf(p.answer_index!), 'llava-1.5');
    writeFileSync(join(dir, 'prompts.jsonl'), jsonl(prompts));
    writeFileSync(join(dir, 'responses.jsonl'), jsonl(responses) + '{not json\n' + JSON.stringify({ output: 'no key' }) + '\n');
    const out = join(dir, 'res');
    const r = runCli(['score', 'reasoning', '--prompts', join(dir, 'prompts.jsonl'), '--responses', join(dir, 'responses.jsonl'), '--out', out, '--json']);
    // Scored, with two records skipped: exit 3 (docs/cli.md, "Exit codes").
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/gsr: 2 of \d+ records failed; exit code 3:/);
    const printed = JSON.parse(r.stdout);
    expect(printed).toMatchObject({ model: 'llava-1.5', task: 'mc', splits: { 'whatsup-a': { n: 1, circular: 1, vanilla: 1, unparsed: 0 } }, total_average: { circular: 1, vanilla: 1 } });
    expect(r.stderr).toMatch(/responses\.jsonl:9: malformed JSON/);
    expect(r.stderr).toMatch(/responses\.jsonl:10: key/);
    expect(JSON.parse(readFileSync(join(out, 'reasoning.json'), 'utf8'))).toEqual(printed);
    const csv = readFileSync(join(out, 'reasoning.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('model,task,whatsup-a circular,whatsup-a vanilla,whatsup-b circular,whatsup-b vanilla,total_average circular,total_average vanilla');
    expect(csv[1]).toBe('llava-1.5,mc,1,1,1,1,1,1');
    const items = readFileSync(join(out, 'reasoning-items.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(items).toHaveLength(8);
    expect(items[0]).toMatchObject({ key: 'a1#mc#0', item: 'a1', split: 'whatsup-a', relation: 'on', task: 'mc', extracted: 'A', correct: true, status: 'ok' });
  });

  it('grounding: writes grounding.json/.csv/-items.jsonl, declares the format from the model name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsr-score-'));
    const coco = {
      info: { tool: 't', version: '0', date_created: '', source: 'auto' },
      images: [{ id: 1, file_name: 'a1.jpg', width: 1000, height: 500, item_id: 'a1', split: 'whatsup-a' }],
      annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [100, 100, 200, 100], area: 1, iscrowd: 0, role: 'subject', phrase: 'mug', score: 0.9 }],
      categories: [],
    };
    writeFileSync(join(dir, 'ann.json'), JSON.stringify(coco));
    writeFileSync(join(dir, 'resp.jsonl'), jsonl([response('k1', '<|box_start|>(100,200),(300,400)<|box_end|>', { model: 'Qwen2-VL-7B', item: 'a1', role: 'subject' })]));
    const out = join(dir, 'res');
    const r = runCli(['score', 'grounding', '--responses', join(dir, 'resp.jsonl'), '--annotations', join(dir, 'ann.json'), '--out', out, '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/box format: qwen2-vl/);
    const printed = JSON.parse(r.stdout);
    expect(printed).toMatchObject({ model: 'Qwen2-VL-7B', columns: { 'whatsup-a/subject': { n: 1, hits: 1, accuracy: 1, mean_iou: 1, unparsed: 0, missing: 0 } }, avg_g_score: 1 });
    expect(readFileSync(join(out, 'grounding.csv'), 'utf8').split('\n')[1]).toBe('Qwen2-VL-7B,1,1,1,0,0,0');
    const item = JSON.parse(readFileSync(join(out, 'grounding-items.jsonl'), 'utf8').trim());
    expect(item).toMatchObject({ key: 'k1', item: 'a1', role: 'subject', phrase: 'mug', box: [100, 100, 300, 200], gt: [100, 100, 300, 200], iou: 1, hit: true });
  });

  it('bad input: a one-line error naming the file, non-zero exit', () => {
    const missing = runCli(['score', 'reasoning', '--prompts', '/nope.jsonl', '--responses', '/nope.jsonl']);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr.trim()).toBe('gsr: error: file not found: /nope.jsonl');
  });
});
