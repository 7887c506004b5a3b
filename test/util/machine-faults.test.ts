import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GsrError, MachineFault, isMachineFault, isMachineFaultOnRead, machineFaultCode, machineFaultInMessage } from '../../src/util/errors.js';
import { faultPoint, faultPointsSeen, parseFaultPlan, setFaultPlan } from '../../src/util/faults.js';
import { AnswerError } from '../../src/mllm/errors.js';
import { openJournal } from '../../src/annotate/journal.js';
import { failureLines, promptShortfalls, stageFailures } from '../../src/pipeline/summary.js';
import { ReviewJournal } from '../../src/review/journal.js';
import { RunStore } from '../../src/mllm/store.js';

const errno = (code: string) => Object.assign(new Error(`${code}: x`), { code });

afterEach(() => setFaultPlan(null));

describe('the machine-fault classifier (src/util/errors.ts)', () => {
  it('tells the machine from the item', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EMFILE', 'EACCES', 'SQLITE_FULL', 'SQLITE_BUSY', 'SQLITE_IOERR_WRITE', 'SQLITE_READONLY']) expect(isMachineFault(errno(code)), code).toBe(true);
    expect(machineFaultCode(errno('SQLITE_IOERR_WRITE'))).toBe('SQLITE_IOERR');
    // Item faults: an input that cannot be read is wrapped without its code; a refused prompt; a decode error.
    for (const err of [new GsrError('cannot read image a.jpg: EACCES'), new AnswerError('HTTP 400: refused', false), new Error('contains unsupported image format'), errno('ENOENT'), errno('SQLITE_CONSTRAINT'), null, 'text']) {
      expect(isMachineFault(err), String(err)).toBe(false);
    }
    // Through a cause chain (the pipeline engine wraps stage errors), and a MachineFault itself.
    expect(isMachineFault(new Error('annotate: x', { cause: errno('ENOSPC') }))).toBe(true);
    expect(isMachineFault(new MachineFault('the detector vanished'))).toBe(true);
  });

  it('on the input side only running out of handles or memory is the machine', () => {
    expect(isMachineFaultOnRead(errno('EMFILE'))).toBe(true);
    expect(isMachineFaultOnRead(errno('EACCES'))).toBe(false);
    expect(isMachineFaultOnRead(errno('EIO'))).toBe(false);
  });

  it('reads a machine code in a recorded reason (journals of older versions)', () => {
    expect(machineFaultInMessage("ENOSPC: no space left on device, write")).toBe('ENOSPC');
    expect(machineFaultInMessage('run store s: database or disk is full')).toBe('DATABASE OR DISK IS FULL');
    expect(machineFaultInMessage('cannot decode image a.png: unsupported image format')).toBeNull();
  });
});

describe('injected faults (src/util/faults.ts)', () => {
  it('parses plans and refuses malformed ones', () => {
    expect(parseFaultPlan('ENOSPC@12')).toEqual({ code: 'ENOSPC', at: 12, once: false, pathIncludes: undefined });
    expect(parseFaultPlan('EIO@3!~depth/')).toEqual({ code: 'EIO', at: 3, once: true, pathIncludes: 'depth/' });
    for (const bad of ['ENOSPC', 'ENOSPC@0', 'enospc@1', '@1']) expect(() => parseFaultPlan(bad)).toThrow(/GSR_FAULTS/);
  });

  it('fails point N and after (a full disk stays full), or N only; counts only matching paths', () => {
    setFaultPlan({ code: 'ENOSPC', at: 2 });
    expect(() => faultPoint('/a')).not.toThrow();
    expect(() => faultPoint('/b')).toThrow(expect.objectContaining({ code: 'ENOSPC', message: "ENOSPC: no space left on device, write '/b'" }));
    expect(() => faultPoint('/c')).toThrow(/ENOSPC/);
    setFaultPlan({ code: 'EIO', at: 1, once: true, pathIncludes: 'x' });
    expect(() => faultPoint('/a')).not.toThrow();
    expect(() => faultPoint('/x', 'sqlite')).toThrow(expect.objectContaining({ code: 'SQLITE_IOERR_WRITE' }));
    expect(() => faultPoint('/x')).not.toThrow();
    expect(faultPointsSeen()).toBe(2);
    setFaultPlan(null);
    expect(() => faultPoint('/x')).not.toThrow();
  });
});

describe('the annotation journal and machine faults', () => {
  const header = JSON.stringify({ type: 'header', created: 't', settings: { s: 1 } });
  const done = (id: string) => JSON.stringify({ type: 'done', item_id: id, image: { file_name: `${id}.png` }, annotations: [] });
  const failed = (id: string, error: string) => JSON.stringify({ type: 'failed', item_id: id, file: `${id}.png`, error });

  it('an older journal that recorded ENOSPC as failed images is cut before the first: those images and the ones after are done again', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gsr-jmf-')), 'journal.jsonl');
    writeFileSync(path, [header, done('a'), failed('b', 'cannot decode image b.png'), failed('c', 'ENOSPC: no space left on device, write'), done('d'), failed('e', 'ENOSPC: no space left on device, write'), ''].join('\n'));
    const told: unknown[] = [];
    const j = await openJournal(path, { s: 1 }, { onMachineFailures: (f) => told.push(f) });
    j.close();
    expect(told).toEqual([{ failed: 2, first: { item_id: 'c', error: 'ENOSPC: no space left on device, write' }, dropped: 3 }]);
    expect([...j.finished]).toEqual([['a', 'done'], ['b', 'failed']]);
    expect(readFileSync(path, 'utf8')).toBe([header, done('a'), failed('b', 'cannot decode image b.png'), ''].join('\n'));
  });

  it('an image that fails again for the same reason is not recorded twice', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gsr-jmf-')), 'journal.jsonl');
    writeFileSync(path, [header, failed('b', 'cannot decode image b.png'), ''].join('\n'));
    const j = await openJournal(path, { s: 1 });
    j.append({ type: 'failed', item_id: 'b', file: 'b.png', error: 'cannot decode image b.png' });
    j.append({ type: 'failed', item_id: 'b', file: 'b.png', error: 'another reason' });
    j.close();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(3);
  });
});

describe('pipeline failure lines (src/pipeline/summary.ts)', () => {
  it('names failed items by stage and prompt files that cover fewer items', () => {
    const failures = stageFailures({
      annotate: { images: 60, failed: 2, failures: [{ item_id: 's1', error: 'cannot decode' }, { item_id: 's2', error: 'x' }] },
      answer: { models: [{ name: 'm', prompts: 10, failed: 3, failures: { 'HTTP 500': 3 } }, { name: 'n', prompts: 10, failed: 0 }] },
    });
    expect(failureLines(failures)).toEqual(['annotate: 2 of 60 images failed (first: s1: cannot decode)', 'answer: 3 of 20 answers failed (m: 3 (HTTP 500 3))']);
    expect(stageFailures({ annotate: { images: 5, failed: 0 } })).toEqual([]);
    expect(promptShortfalls({ counts: { 'tg.jsonl': { items: 60, skipped: 0 }, 'dap.jsonl': { items: 9, skipped: 1 } }, skipped_examples: [{ file: 'dap.jsonl', item: 's28', reason: 'object not annotated' }] }))
      .toEqual(['prompts: dap.jsonl covers 9 of 10 items (1 skipped; first: s28: object not annotated)']);
  });
});

describe('the stores on a full disk', () => {
  it('the review journal refuses the edit with a machine fault and records nothing', () => {
    const j = ReviewJournal.open(join(mkdtempSync(join(tmpdir(), 'gsr-rjf-')), 'review.sqlite'), { file: 'a.json', sha256: 'ab' });
    j.append('s1', 'me', { kind: 'accept' });
    setFaultPlan({ code: 'ENOSPC', at: 1 });
    expect(() => j.append('s1', 'me', { kind: 'accept' })).toThrow(MachineFault);
    setFaultPlan(null);
    expect(j.events()).toHaveLength(1);
    j.close();
  });

  it('the run store names itself and the SQLite code', () => {
    const s = RunStore.open(join(mkdtempSync(join(tmpdir(), 'gsr-rsf-')), 'runs.sqlite'));
    setFaultPlan({ code: 'ENOSPC', at: 1 });
    expect(() => s.registerSettings({ answerer: 'x', model: 'm' })).toThrow(/^run store .*runs\.sqlite: database or disk is full \(SQLITE_FULL\)/);
    setFaultPlan(null);
    s.close();
  });
});

describe('episode runs', () => {
  it('an item whose episode cannot start for a bad input is skipped; a fault of the machine stops the run', async () => {
    const { runEpisodes } = await import('../../src/benchmarks/episodes.js');
    const items = new Map([['a', { id: 'a' }], ['b', { id: 'b' }]]);
    const base = { benchmark: { name: 'x' }, items, model: 'm', actor: { policy: { act: () => '' } }, concurrency: 1 } as never as Parameters<typeof runEpisodes>[0];
    const bad = await runEpisodes({ ...base, start: () => { throw new GsrError('apartment a: bad graph'); } });
    expect(bad.summary.skipped).toEqual([{ item: 'a', reason: 'apartment a: bad graph' }, { item: 'b', reason: 'apartment a: bad graph' }]);
    await expect(runEpisodes({ ...base, start: () => { throw errno('ENOSPC'); } })).rejects.toMatchObject({ code: 'ENOSPC' });
  });
});
