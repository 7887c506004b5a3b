import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, scaled } from '../helpers/cli.js';
import { EXAMPLE_RESULTS, MODELS } from './helpers.js';

describe('notebooks', () => {
  it('paper-tables.ts rebuilds Tables 1-3 and Figure 4 headless', { timeout: scaled(180_000) }, () => {
    const out = mkdtempSync(join(tmpdir(), 'gsr-nb-'));
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'notebooks', 'paper-tables.ts'), '--out', out, ...MODELS.map((m) => join(EXAMPLE_RESULTS, m))], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('## Table 1');
    expect(r.stdout).toContain('## Table 3');
    const alpha = JSON.parse(readFileSync(join(EXAMPLE_RESULTS, 'model-alpha', 'reasoning.json'), 'utf8'));
    const t1 = readFileSync(join(out, 'table1.csv'), 'utf8').trim().split('\n');
    expect(t1[0]).toBe('model,whatsup-a circular,whatsup-a vanilla,whatsup-b circular,whatsup-b vanilla,total circular,total vanilla');
    expect(t1[1]).toBe(['model-alpha', alpha.splits['whatsup-a'].circular, alpha.splits['whatsup-a'].vanilla, alpha.splits['whatsup-b'].circular, alpha.splits['whatsup-b'].vanilla, alpha.total_average.circular, alpha.total_average.vanilla].join(','));
    expect(readFileSync(join(out, 'table2.csv'), 'utf8').trim().split('\n')).toHaveLength(4);
    expect(readFileSync(join(out, 'figure4.svg'), 'utf8').startsWith('<svg')).toBe(true);
  });
});
