import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('gsr CLI skeleton', () => {
  it('lists the command groups in data-flow order', () => {
    const r = runCli(['--help']);
    expect(r.status).toBe(0);
    const groups = ['dataset', 'models', 'annotate', 'prompts', 'run', 'responses', 'score', 'analyze', 'report', 'review', 'pipeline', 'worker', 'queue'];
    const positions = groups.map((g) => r.stdout.search(new RegExp(`^  ${g}\\b`, 'm')));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('prints the version', () => {
    const r = runCli(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('fails with one line and a non-zero exit on an unknown command', () => {
    const r = runCli(['no-such-command']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/^gsr: error: unknown command/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
