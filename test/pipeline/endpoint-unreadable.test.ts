/**
 * The README's "ask a model" example (`GSR_BASE_URL=... GSR_MODEL=... npm start`, the shipped demo's
 * endpoint entry) against endpoints whose answers no rule can read: the printed summary names the model
 * it left out of the regression and why, for unreadable reasoning answers as for unreadable boxes, and
 * the report's MC position bias shows an endpoint that answers "A" to every MC prompt.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scaled } from '../helpers/cli.js';
import { writeReducedDemo } from '../helpers/demo.js';
import { startFakeServer } from '../mllm/fake-server.js';
import { spawnCli } from '../mllm/spawn.js';

const work = mkdtempSync(join(tmpdir(), 'gsr-endpoint-unreadable-'));
const out = join(work, 'out');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SCENES = 16;

const reducedDemo = () => writeReducedDemo(work, out, SCENES);

/** `npm start` with the endpoint set: the printed summary and the report. */
async function askModel(model: string, reply: (text: string) => string): Promise<{ stdout: string; html: string }> {
  const server = await startFakeServer({ reply });
  try {
    const run = spawnCli(['pipeline', 'run', reducedDemo()], { GSR_BASE_URL: server.url, GSR_MODEL: model, GSR_BOX_FORMAT: '' });
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    const report = /^report: (.*)$/m.exec(done.stdout)![1];
    return { stdout: done.stdout, html: readFileSync(report, 'utf8') };
  } finally {
    await server.close();
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe("the ask-a-model example with an endpoint whose answers no rule reads", () => {
  it('answering "A" to everything: the summary and the report name the model left out and both reasons; the MC position bias shows it', async () => {
    const model = 'always-a-vlm';
    const { stdout, html } = await askModel(model, () => 'A');
    // Grounding: one subject per scene; reasoning: the regression's y is TG CircularEval (4 rotations per scene).
    const objects = Number(new RegExp(`^${escape(model)} .* (\\d+)/(\\d+) +\\d+ +\\d+$`, 'm').exec(stdout)![2]);
    expect(objects).toBeGreaterThanOrEqual(SCENES);
    const why = new RegExp(`^  left out: ${escape(model)}: no box read from ${SCENES} of ${SCENES} grounding answers \\(${SCENES} unparsed, 0 missing\\); no option read from (\\d+) of \\1 TG answers \\(\\1 unparsed, 0 missing\\)$`, 'm');
    expect(stdout).toMatch(why);
    expect(stdout).toMatch(/^regression reasoning:synthetic:circular ~ grounding:synthetic\/subject across 6 models:/m);
    expect(html).toMatch(new RegExp(`data-testid="regression-left-out">Left out of the regression: ${escape(model)} \\(no box read from .*; no option read from \\d+ of \\d+ TG answers`));
    // MC: every answer "A", so the whole share sits at the first shown position; TG and MC labelled apart.
    expect(html).toContain(`data-testid="pb:mc:${model}:A" data-value="1"`);
    expect(html).toContain('data-testid="position-bias:tg"');
    expect(html).toContain('data-testid="position-bias:mc"');
    expect(html).toMatch(/<table id="table1-tg"><caption>TG \(template-based generation\)/);
    expect(html).toMatch(/<table id="table1-mc"><caption>MC \(multiple choice\)/);
    expect(html).toContain(`data-testid="t1:mc:${model}:synthetic:vanilla"`);
  }, scaled(600_000));

  it('readable boxes but "A" to every TG prompt: left out for its TG answers alone, the regression fitted on the others', async () => {
    const model = 'tg-a-vlm';
    // A plain pixel list for every box (read, a miss); "A" to TG and MC.
    const { stdout } = await askModel(model, (text) => (/bounding box/.test(text) ? '[0, 0, 4, 4]' : 'A'));
    expect(stdout).toMatch(new RegExp(`^  left out: ${escape(model)}: no option read from (\\d+) of \\1 TG answers \\(\\1 unparsed, 0 missing\\)$`, 'm'));
    expect(stdout).toMatch(/^regression reasoning:synthetic:circular ~ grounding:synthetic\/subject across 6 models:/m);
  }, scaled(600_000));
});
