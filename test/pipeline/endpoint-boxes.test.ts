/**
 * The README's "ask a model" example against a fake OpenAI-compatible server: the shipped demo's
 * endpoint entry (on fewer scenes) scores a server answering in Qwen2.5-VL's `bbox_2d` style, in plain
 * lists and in gibberish. The true G-Score is counted here from the boxes the server sent, never from
 * the scorer: the server answers each object with its exact box (a hit) or a box that does not touch it
 * (a miss), in the coordinates the format asks for.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPipeline, type PipelineResult } from '../../src/pipeline/index.js';
import { formatSummaryTable } from '../../src/pipeline/summary.js';
import { qwenSmartResize } from '../../src/scoring/index.js';
import { scaled } from '../helpers/cli.js';
import { writeReducedDemo } from '../helpers/demo.js';
import { startFakeServer, type FakeServer } from '../mllm/fake-server.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-endpoint-boxes-'));
const out = join(work, 'out');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * The shipped demo on 24 scenes, scored against the scenes' exact truth (not the shipped detector's
 * pseudo-labels, which miss objects): this test is about reading the boxes.
 */
const reducedDemo = () => writeReducedDemo(work, out, 24);

type Style = 'bbox_2d' | 'qwen-list' | 'pixels-list' | 'gibberish';
type Box = [number, number, number, number];

interface Truth {
  item: string;
  role: string;
  split: string;
  phrase: string;
  width: number;
  height: number;
  box: Box;
}

/** Each grounding prompt's object (by image bytes and prompt text), read once the prompts and annotations exist. */
function truthIndex(): Map<string, Truth> {
  const coco = JSON.parse(readFileSync(join(out, 'annotate', 'annotations.json'), 'utf8')) as {
    images: Array<{ id: number; item_id: string; split: string; width: number; height: number }>;
    annotations: Array<{ image_id: number; role: string; bbox: Box }>;
  };
  const images = new Map(coco.images.map((i) => [i.id, i]));
  const boxes = new Map<string, { image: (typeof coco.images)[number]; bbox: Box }>();
  for (const a of coco.annotations) boxes.set(`${images.get(a.image_id)!.item_id}\0${a.role}`, { image: images.get(a.image_id)!, bbox: a.bbox });
  const index = new Map<string, Truth>();
  for (const line of readFileSync(join(out, 'prompts', 'grounding.jsonl'), 'utf8').trim().split('\n')) {
    const p = JSON.parse(line) as { item: string; role: string; phrase: string; image: string; text: string };
    const t = boxes.get(`${p.item}\0${p.role}`)!;
    const [x, y, w, h] = t.bbox;
    const sha = createHash('sha256').update(readFileSync(p.image)).digest('hex');
    index.set(`${sha}\0${p.text}`, { item: p.item, role: p.role, split: t.image.split, phrase: p.phrase, width: t.image.width, height: t.image.height, box: [x, y, x + w, y + h] });
  }
  return index;
}

/** A box in an image corner that does not touch `b` (IoU 0). */
function missBox(b: Box, width: number, height: number): Box {
  const [w, h] = [Math.round(width / 8), Math.round(height / 8)];
  const corners: Box[] = [[0, 0, w, h], [width - w, 0, width, h], [0, height - h, w, height], [width - w, height - h, width, height]];
  return corners.find((c) => c[2] <= b[0] || c[0] >= b[2] || c[3] <= b[1] || c[1] >= b[3])!;
}

/** A fake server answering in `style`; `sent` records, per object, whether the box it sent was the exact one. */
async function boxServer(style: Style): Promise<{ server: FakeServer; sent: Map<string, { split: string; role: string; hit: boolean }> }> {
  const sent = new Map<string, { split: string; role: string; hit: boolean }>();
  let index: Map<string, Truth> | undefined;
  const server = await startFakeServer({
    reply: (text, _before, body) => {
      if (style === 'gibberish') return 'Lorem ipsum dolor sit amet, the answer is blue.';
      if (!/bounding box/.test(text)) {
        // TG: the first caption listed; MC and DAP: the first letter (wrong in most rotations, but readable).
        const caption = /^- (.*)$/m.exec(text);
        return caption ? caption[1] : 'A';
      }
      index ??= truthIndex();
      const url = (body as { messages: Array<{ content: Array<{ type: string; image_url?: { url: string } }> }> }).messages[0].content.find((c) => c.type === 'image_url')!.image_url!.url;
      const sha = createHash('sha256').update(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).digest('hex');
      const t = index.get(`${sha}\0${text}`);
      if (!t) throw new Error(`no grounding prompt for ${text}`);
      // About a third of the objects get a miss, chosen by a hash of the object (not by anything the scorer sees).
      const hit = createHash('sha256').update(`${t.item}/${t.role}`).digest()[0] >= 96;
      sent.set(`${t.item}\0${t.role}`, { split: t.split, role: t.role, hit });
      const box = hit ? t.box : missBox(t.box, t.width, t.height);
      if (style === 'pixels-list') return `The ${t.phrase} is at [${box.map((v) => v.toFixed(1)).join(', ')}].`;
      // Qwen2.5-VL: whole pixels of the image as its processor resized it.
      const [rw, rh] = qwenSmartResize(t.width, t.height)!;
      const q = [(box[0] * rw) / t.width, (box[1] * rh) / t.height, (box[2] * rw) / t.width, (box[3] * rh) / t.height].map(Math.round);
      if (style === 'qwen-list') return `[${q.join(', ')}]`;
      return '```json\n[\n\t{"bbox_2d": [' + q.join(', ') + `], "label": "${t.phrase}"}\n]\n\`\`\``;
    },
  });
  return { server, sent };
}

/** Avg G-Score as the paper defines it, from what the server sent: mean over split/role columns of the share of objects hit. */
function trueGScore(sent: Map<string, { split: string; role: string; hit: boolean }>): number {
  const cols = new Map<string, { n: number; hits: number }>();
  for (const s of sent.values()) {
    const c = cols.get(`${s.split}/${s.role}`) ?? cols.set(`${s.split}/${s.role}`, { n: 0, hits: 0 }).get(`${s.split}/${s.role}`)!;
    c.n++;
    if (s.hit) c.hits++;
  }
  const shares = [...cols.values()].map((c) => c.hits / c.n);
  return shares.reduce((a, b) => a + b, 0) / shares.length;
}

async function runWith(style: Style, model: string, force = false): Promise<{ result: PipelineResult; lines: string[]; sent: Map<string, { split: string; role: string; hit: boolean }> }> {
  const { server, sent } = await boxServer(style);
  const lines: string[] = [];
  try {
    const result = await runPipeline(reducedDemo(), { env: { ...process.env, GSR_BASE_URL: server.url, GSR_MODEL: model, GSR_BOX_FORMAT: '' }, log: (l) => lines.push(l), force });
    return { result, lines, sent };
  } finally {
    await server.close();
  }
}

const rowOf = (r: PipelineResult, model: string) => r.rows.find((x) => x.model === model)!;
const folder = (model: string) => model.replace(/[^A-Za-z0-9._-]/g, '_');
const objects = () => JSON.parse(readFileSync(join(out, 'annotate', 'annotations.json'), 'utf8')).annotations.length as number;

/** Every "value [low, high]" the report prints, and those whose value lies outside its interval. */
function intervalsIn(html: string): { all: number; outside: string[] } {
  const outside: string[] = [];
  let all = 0;
  for (const m of html.matchAll(/>([+-]?\d+(?:\.\d+)?)<span class="ci">\[([+-]?\d+(?:\.\d+)?), ([+-]?\d+(?:\.\d+)?)\]<\/span>/g)) {
    all++;
    const [v, lo, hi] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (v < lo || v > hi) outside.push(m[0]);
  }
  return { all, outside };
}

describe("the README's ask-a-model example against servers answering in different box styles", () => {
  it("Qwen2.5-VL's bbox_2d in resized-input pixels: the true G-Score, named by the model id, every point inside its interval", async () => {
    const model = 'Qwen/Qwen2.5-VL-7B-Instruct';
    const { result, lines, sent } = await runWith('bbox_2d', model);
    expect(sent.size).toBe(objects());
    const truth = trueGScore(sent);
    expect(truth).toBeGreaterThan(0.4);
    expect(truth).toBeLessThan(0.9);
    const row = rowOf(result, model);
    expect(row.kind).toBe('openai');
    expect(row.g_score).toBeCloseTo(truth, 12);
    expect([row.g_unparsed, row.g_objects]).toEqual([0, objects()]);
    expect(result.warnings).toEqual([]);
    expect(lines.some((l) => l.includes(`${model}: box format: qwen2.5-vl (the family of model id "${model}")`))).toBe(true);
    // Its own folders, named after the model id.
    expect(existsSync(join(out, 'answer', folder(model), 'responses.jsonl'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'score', folder(model), 'grounding.json'), 'utf8'))).toMatchObject({ model, box_format: 'qwen2.5-vl' });
    expect(result.regression!.models).toBe(7);
    expect(result.regression!.left_out).toEqual([]);
    expect(formatSummaryTable(result.rows)).toMatch(new RegExp(`^${model.replace(/[.\\/]/g, '\\$&')} +openai .* ${(100 * truth).toFixed(1)} +0/${objects()} +0 +0$`, 'm'));

    // Every point estimate in the report lies inside its interval; VanillaEval's interval is its own.
    const html = readFileSync(result.report!, 'utf8');
    const intervals = intervalsIn(html);
    expect(intervals.all).toBeGreaterThan(40);
    expect(intervals.outside).toEqual([]);
    const ci = (id: string) => new RegExp(`data-testid="${id}"[^>]*>[^<]*<span class="ci">([^<]*)<`).exec(html)![1];
    for (const sim of ['sim-g20', 'sim-g60', 'sim-g95']) expect(ci(`t1:tg:${sim}:synthetic:vanilla`)).not.toBe(ci(`t1:tg:${sim}:synthetic:circular`));
    // Above chance: always-first and random never read significant; the geometric baseline does.
    const chance = (m: string) => Number(new RegExp(`data-testid="chance:${m}:synthetic:p" data-value="([^"]*)"`).exec(html)![1]);
    expect(chance('always-first')).toBe(1);
    expect(chance('random')).toBeGreaterThan(0.05);
    expect(chance('geometric')).toBeLessThan(1e-6);
    expect(html).toContain('H0: each item passes CircularEval with probability 1/k');
    // analysis.json: the fit's estimates inside their intervals.
    const analysis = JSON.parse(readFileSync(join(out, 'analyze', 'analysis.json'), 'utf8'));
    for (const c of analysis.regression.fit.coefficients) expect(c.estimate >= c.ci[0] && c.estimate <= c.ci[1]).toBe(true);
  }, scaled(600_000));

  it('a second model id gets its own row and folders; a server answering gibberish gives a warning, the unparsed count and no regression point', async () => {
    const model = 'Qwen/Qwen2.5-VL-3B-Instruct';
    const { result, lines } = await runWith('gibberish', model);
    const row = rowOf(result, model);
    // Nothing reused from the 7B model's answers: every box is unparsed.
    expect([row.g_score, row.g_unparsed, row.g_objects]).toEqual([0, objects(), objects()]);
    expect(result.rows.some((r) => r.model === 'Qwen/Qwen2.5-VL-7B-Instruct')).toBe(false);
    const warning = result.warnings.find((w) => w.includes('grounding answers unparsed'))!;
    expect(warning).toMatch(new RegExp(`^Qwen/Qwen2\\.5-VL-3B-Instruct: ${objects()} of ${objects()} grounding answers unparsed \\(100%; ${objects()} no-box\\)`));
    expect(lines.some((l) => l.includes(`warning: ${warning}`))).toBe(true);
    expect(result.warnings.some((w) => w.startsWith(`${model}: `) && w.includes(' tg answers unparsed'))).toBe(true);
    // Left out of the regression, and said so in the summary, analysis.json and the report.
    expect(result.regression!.models).toBe(6);
    // The regression's G-Score is the subjects' column: one subject per scene.
    // Its TG answers are gibberish too: both reasons.
    expect(result.regression!.left_out!.map((m) => m.label)).toEqual([model]);
    expect(result.regression!.left_out![0].reason).toMatch(/^no box read from 24 of 24 grounding answers \(24 unparsed, 0 missing\); no option read from (\d+) of \1 TG answers \(\1 unparsed, 0 missing\)$/);
    const analysis = JSON.parse(readFileSync(join(out, 'analyze', 'analysis.json'), 'utf8'));
    expect(analysis.regression.left_out.map((m: { label: string }) => m.label)).toEqual([model]);
    expect(analysis.regression.fit.labels).not.toContain(model);
    const html = readFileSync(result.report!, 'utf8');
    expect(html).toMatch(/data-testid="regression-left-out">Left out of the regression: Qwen\/Qwen2\.5-VL-3B-Instruct \(no box read from/);
    expect(html).toContain(`data-testid="t2:${model}:unparsed" data-value="${objects()}"`);
    expect(lines.some((l) => l.includes(`warning: ${model} left out of the regression`))).toBe(true);
  }, scaled(600_000));

  it('plain lists: resized-input pixels under the Qwen2.5-VL id, original pixels under an unknown id (auto)', async () => {
    // The same model id and request as the first test's: answers are keyed by the request, not the
    // server, so only --force asks this server (docs/pipeline.md, "Answers and `--force`").
    const qwen = await runWith('qwen-list', 'Qwen/Qwen2.5-VL-7B-Instruct', true);
    expect(rowOf(qwen.result, 'Qwen/Qwen2.5-VL-7B-Instruct').g_score).toBeCloseTo(trueGScore(qwen.sent), 12);
    const unknown = await runWith('pixels-list', 'my-vlm');
    const row = rowOf(unknown.result, 'my-vlm');
    expect(row.g_score).toBeCloseTo(trueGScore(unknown.sent), 12);
    expect(row.g_unparsed).toBe(0);
    expect(unknown.lines.some((l) => l.includes('my-vlm: box format: auto (no family known for "my-vlm"'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'score', 'my-vlm', 'grounding.json'), 'utf8')).guessed_formats).toEqual({ pixels: objects() });
  }, scaled(600_000));
});
