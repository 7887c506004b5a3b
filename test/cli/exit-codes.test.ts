/**
 * The exit-code table of docs/cli.md ("Exit codes"), one test per row, on the commands that name it.
 * Commands run in-process (runCliInProcess): these tests are about what each command decides, not
 * about starting a process (test/cli/options.test.ts checks that the process exits with the code).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit.js';
import { REPO_ROOT, runCliInProcess as gsr } from '../helpers/cli.js';
import { DOUBLE_DETECTOR, registerDoubles } from '../annotate/helpers/doubles.js';

const IMAGES = join(REPO_ROOT, 'test', 'fixtures', 'perception', 'images');
const item = (id: string) => ({ id, split: 'whatsup-a', image: 'exif-1.jpg', root: IMAGES, subject: 'mug', object: 'table', relation: 'on', options: ['A mug on a table', 'A mug under a table'], answer: 0 });
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

let dir: string;
let manifest: string;
let prompts: string;
beforeAll(async () => {
  registerDoubles();
  dir = mkdtempSync(join(tmpdir(), 'gsr-exit-'));
  manifest = join(dir, 'manifest.jsonl');
  writeFileSync(manifest, jsonl([item('a1'), item('a2')]));
  prompts = join(dir, 'prompts.jsonl');
  expect((await gsr(['prompts', '--manifest', manifest, '--task', 'mc', '--out', prompts])).status).toBe(0);
});

const annotate = (images: string[]) => gsr(['annotate', 'run', ...images, '--objects', 'left,right', '--detector', DOUBLE_DETECTOR, '--models-dir', join(dir, 'no-models'), '--device', 'cpu', '--out', mkdtempSync(join(dir, 'ann-'))]);

describe('exit codes (docs/cli.md, "Exit codes")', () => {
  it('0: everything asked for was done', async () => {
    const r = await gsr(['prompts', '--manifest', manifest, '--task', 'tg', '--out', join(dir, 'tg.jsonl')]);
    expect(r.status).toBe(EXIT.ok);
    expect(r.stderr).toBe('');
    const run = await gsr(['run', '--prompts', prompts, '--model', 'first', '--answerer', 'always-first', '--store', join(dir, 'ok.sqlite')]);
    expect(run.status).toBe(EXIT.ok);
    expect((await annotate([join(IMAGES, 'exif-1.jpg')])).status).toBe(EXIT.ok);
  });

  it('1: the command failed, or not one item succeeded; one reason per line on stderr', async () => {
    // Every image fails, even one that does not exist.
    const missing = await annotate([join(dir, 'no-such-image.jpg')]);
    expect(missing.status).toBe(EXIT.failed);
    expect(missing.stderr).toMatch(/^gsr: 1 of 1 images failed; none succeeded; exit code 1:\ngsr: {3}.*no-such-image\.jpg/m);
    // An empty manifest, and one that is a JSON array: no prompts are written.
    writeFileSync(join(dir, 'empty.jsonl'), '');
    const empty = await gsr(['prompts', '--manifest', join(dir, 'empty.jsonl'), '--task', 'mc', '--out', join(dir, 'p0.jsonl')]);
    expect(empty.status).toBe(EXIT.failed);
    expect(empty.stderr).toMatch(/gsr: error: .*empty\.jsonl: no items, so no prompts were written/);
    writeFileSync(join(dir, 'array.jsonl'), JSON.stringify([item('a1'), item('a2')]) + '\n');
    const array = await gsr(['prompts', '--manifest', join(dir, 'array.jsonl'), '--task', 'mc', '--out', join(dir, 'p1.jsonl')]);
    expect(array.status).toBe(EXIT.failed);
    expect(array.stderr).toMatch(/1 of 1 items failed; none succeeded; exit code 1:\n.*a JSON array, not an item/);
    // A prompt file with no valid prompt.
    writeFileSync(join(dir, 'bad-prompts.jsonl'), '{"key": "x"}\n');
    const run = await gsr(['run', '--prompts', join(dir, 'bad-prompts.jsonl'), '--model', 'first', '--answerer', 'always-first', '--store', join(dir, 'bad.sqlite')]);
    expect(run.status).toBe(EXIT.failed);
    expect(run.stderr).toMatch(/gsr: error: .*bad-prompts\.jsonl: no valid prompts \(1 invalid lines/);
    // A file that does not exist.
    expect((await gsr(['score', 'reasoning', '--prompts', join(dir, 'none.jsonl'), '--responses', join(dir, 'none.jsonl')])).status).toBe(EXIT.failed);
  });

  it('2: a usage error, before anything runs', async () => {
    const unknown = await gsr(['prompts', '--manifset', manifest, '--task', 'mc', '--out', join(dir, 'u.jsonl')]);
    expect(unknown.status).toBe(EXIT.usage);
    expect(unknown.stderr).toBe('gsr: error: unknown option --manifset (did you mean --manifest?)\n');
    expect((await gsr(['run', '--prompts', prompts, '--model', 'm', '--store', 's', '--seed', '-1'])).status).toBe(EXIT.usage);
    expect((await gsr(['score', 'reasoning'])).status).toBe(EXIT.usage);
    expect((await gsr(['no-such-command'])).status).toBe(EXIT.usage);
  });

  it('3: it finished, but some items failed; a summary and the reasons on stderr', async () => {
    const some = await annotate([join(IMAGES, 'exif-1.jpg'), join(dir, 'no-such-image.jpg')]);
    expect(some.status).toBe(EXIT.someFailed);
    expect(some.stderr).toMatch(/^gsr: 1 of 2 images failed; exit code 3:\ngsr: {3}.*no-such-image\.jpg/m);

    writeFileSync(join(dir, 'mixed.jsonl'), jsonl([item('a1'), { id: 'b1' }, item('a2')]));
    const p = await gsr(['prompts', '--manifest', join(dir, 'mixed.jsonl'), '--task', 'mc', '--out', join(dir, 'mixed-prompts.jsonl')]);
    expect(p.status).toBe(EXIT.someFailed);
    expect(p.stderr).toMatch(/^gsr: 1 of 3 items failed; exit code 3:\ngsr: {3}b1: invalid manifest record/m);

    const mixedPrompts = join(dir, 'mixed-prompts.jsonl');
    writeFileSync(mixedPrompts, readFileSync(mixedPrompts, 'utf8') + '{"key": "x"}\n');
    const run = await gsr(['run', '--prompts', mixedPrompts, '--model', 'first', '--answerer', 'always-first', '--store', join(dir, 'mixed.sqlite')]);
    expect(run.status).toBe(EXIT.someFailed);
    expect(run.stderr).toMatch(/^gsr: 1 of \d+ prompts failed \(ok \d+, already done 0\); exit code 3:\ngsr: {3}invalid prompt: /m);

    const responses = join(dir, 'responses.jsonl');
    expect((await gsr(['responses', 'export', '--store', join(dir, 'mixed.sqlite'), '--out', responses])).status).toBe(EXIT.ok);
    writeFileSync(responses, readFileSync(responses, 'utf8') + '{not json\n');
    const score = await gsr(['score', 'reasoning', '--prompts', mixedPrompts, '--responses', responses, '--out', join(dir, 'results')]);
    expect(score.status).toBe(EXIT.someFailed);
    expect(score.stderr).toMatch(/gsr: 2 of \d+ records failed; exit code 3:\n(gsr: {3}skipped .*\n){2}/);
  });

  it('130: interrupted; what was finished is kept', async () => {
    // An endpoint that never answers: the first request it sees stands for Ctrl-C.
    const server = createServer(() => {
      const onSigint = process.listeners('SIGINT').at(-1) as () => void; // the command's own handler
      onSigint();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const r = await gsr(['run', '--prompts', prompts, '--model', 'm', '--base-url', `http://127.0.0.1:${port}/v1`, '--concurrency', '1', '--max-retries', '0', '--store', join(dir, 'int.sqlite')]);
      expect(r.status).toBe(EXIT.interrupted);
      expect(r.stderr).toMatch(/gsr: interrupted: finishing up/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
