/**
 * Notices printed while a progress bar shows (src/util/progress.ts, docs/cli.md "Notices and
 * progress") stay on screen on a line of their own: the bar is drawn below them, never over them.
 * stderr is made a terminal for the test and its bytes are played on a small terminal model.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { notice } from '../../src/util/log.js';
import { createProgress } from '../../src/util/progress.js';

/** The screen a terminal shows after `bytes`: text, CR/LF, and the cursor and erase sequences readline writes. */
function screen(bytes: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => (lines[row] ??= []);
  const seq = /^\x1b\[(\??)([0-9;]*)([A-Za-z])/;
  for (let i = 0; i < bytes.length; ) {
    const m = seq.exec(bytes.slice(i));
    if (m) {
      i += m[0].length;
      const n = m[2] === '' ? NaN : Number(m[2].split(';')[0]);
      if (m[1] === '?') continue; // cursor shown or hidden
      if (m[3] === 'A') row = Math.max(0, row - (n || 1));
      else if (m[3] === 'B') row += n || 1;
      else if (m[3] === 'C') col += n || 1;
      else if (m[3] === 'D') col = Math.max(0, col - (n || 1));
      else if (m[3] === 'G') col = (n || 1) - 1;
      else if (m[3] === 'K') {
        if (m[2] === '2') line().length = 0;
        else if (m[2] === '1') line().fill(' ', 0, col);
        else line().length = Math.min(line().length, col);
      } else if (m[3] === 'J') lines.length = row + 1;
      continue;
    }
    const ch = bytes[i++]!;
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      col = 0;
    } else {
      const l = line();
      while (l.length < col) l.push(' ');
      l[col++] = ch;
    }
  }
  return [...lines].map((l) => (l ?? []).join('').trimEnd());
}

describe('notices and the progress bar', () => {
  let written: string[];
  const saved = { isTTY: process.stderr.isTTY, progress: process.env.GSR_PROGRESS };
  beforeEach(() => {
    written = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
    process.stderr.isTTY = true;
    process.env.GSR_PROGRESS = '1';
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.stderr.isTTY = saved.isTTY;
    if (saved.progress === undefined) delete process.env.GSR_PROGRESS;
    else process.env.GSR_PROGRESS = saved.progress;
  });

  it('a notice during a run keeps its own line above the bar; after the bar stops, notices print plainly', () => {
    const progress = createProgress('answer', 10, 'prompts');
    progress.tick(3);
    notice('interrupted: finishing up (committed responses are kept; Ctrl-C again to quit now)');
    progress.tick(2, true);
    progress.stop();
    notice('after the bar');
    const shown = screen(written.join(''));
    const at = shown.indexOf('gsr: interrupted: finishing up (committed responses are kept; Ctrl-C again to quit now)');
    expect(at, shown.join('\n')).toBeGreaterThanOrEqual(0);
    // The bar is below the notice, with its last count.
    expect(shown.slice(at + 1).some((l) => /^answer \[.*\] 5\/10 prompts \| failed 2/.test(l)), shown.join('\n')).toBe(true);
    expect(shown.filter(Boolean).at(-1)).toBe('gsr: after the bar');
  });
});
