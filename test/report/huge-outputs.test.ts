import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAllResults } from '../../src/analysis/index.js';
import { reportWriters } from '../../src/report/index.js';
import { exampleWorkspace } from './helpers.js';
import { scaled } from '../helpers/cli.js';

describe('huge model outputs in the report', () => {
  it('three 1 MB outputs: the page holds bounded previews, each whole text is one linked side file', async () => {
    const { dir, results, manifest } = await exampleWorkspace();
    const write = reportWriters.get('html');
    const options = { manifest, resamples: 50, generated: 'test' };
    await write(await loadAllResults(results), join(dir, 'plain.html'), options);
    const plain = statSync(join(dir, 'plain.html')).size;

    const items = join(results[0], 'reasoning-items.jsonl');
    const lines = readFileSync(items, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const huge = [0, 1, 2].map((i) => `${'<b>'.repeat(i + 1)}${String.fromCharCode(65 + i).repeat(1 << 20)}`);
    huge.forEach((text, i) => (lines[i].output = text));
    writeFileSync(items, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await write(await loadAllResults(results), join(dir, 'report.html'), options);

    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    // Three 2,000-character previews (escaped) and their notes, not 3 MB.
    expect(html.length - plain).toBeLessThan(3 * 2_500 + 3 * 200);
    for (const text of huge) {
      const links = [...html.matchAll(/<a href="(report\.files\/output-[0-9a-f]{16}\.txt)">whole output<\/a>/g)].map((m) => m[1]);
      expect(links).toHaveLength(3);
      expect(links.map((l) => readFileSync(join(dir, l), 'utf8'))).toContain(text);
      expect(html).toContain(`first 2000 of ${text.length} characters`);
    }
  }, scaled(120_000));
});
