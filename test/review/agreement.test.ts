/** Agreement of two reviewers: kappa of keep/remove, box IoU, disagreements; and the CLI. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cohenKappa } from '../../src/analysis/agreement.js';
import type { CocoFile } from '../../src/formats/coco.js';
import { labelOf, type Edit } from '../../src/review/edits.js';
import { buildReviewedCoco } from '../../src/review/export.js';
import { buildSlots } from '../../src/review/labels.js';
import { reviewAgreement } from '../../src/review/agreement.js';
import { REPO_ROOT, runCli, scaled } from '../helpers/cli.js';
import { syntheticReviewSet, type SyntheticReviewSet } from './helpers.js';

describe('cohenKappa', () => {
  it('matches the textbook cases', () => {
    // 2x2 table [[20, 5], [10, 15]]: po = 0.7, pe = 0.5*0.6 + 0.5*0.4 = 0.5, kappa = 0.4.
    const a = [...Array(25).fill('yes'), ...Array(25).fill('no')];
    const b = [...Array(20).fill('yes'), ...Array(5).fill('no'), ...Array(10).fill('yes'), ...Array(15).fill('no')];
    const k = cohenKappa(a, b);
    expect(k.observed).toBeCloseTo(0.7, 12);
    expect(k.expected).toBeCloseTo(0.5, 12);
    expect(k.kappa).toBeCloseTo(0.4, 12);
    expect(cohenKappa(['x', 'y'], ['x', 'y']).kappa).toBe(1);
    // No variation at all: kappa is undefined.
    expect(cohenKappa(['x', 'x'], ['x', 'x']).kappa).toBeNull();
    expect(() => cohenKappa(['x'], [])).toThrow(RangeError);
  }, scaled(180_000));

  it('equals statsmodels cohens_kappa (test/fixtures/review/make_kappa_reference.py)', () => {
    const ref = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/review/kappa-reference.json'), 'utf8')) as { cases: Array<{ a: string[]; b: string[]; kappa: number }> };
    expect(ref.cases.length).toBe(5);
    for (const c of ref.cases) expect(cohenKappa(c.a, c.b).kappa).toBeCloseTo(c.kappa, 12);
  }, scaled(180_000));
});

describe('two reviewers over the same labels', () => {
  let set: SyntheticReviewSet;
  let files: [string, string];
  let keys: string[];

  function reviewed(reviewer: string, edits: Record<string, Edit[]>): CocoFile {
    const { slots } = buildSlots(set.pseudo, set.items);
    let seq = 0;
    const labels = new Map(slots.map((s) => [s.key, labelOf(s, (edits[s.key] ?? []).map((edit) => ({ seq: ++seq, slot: s.key, reviewer, time: 't', edit })))]));
    return buildReviewedCoco({ base: set.pseudo, slots, labels, meta: { base_file: '', base_sha256: '', journal: '', exported_at: '' } }).coco;
  }

  beforeAll(async () => {
    set = await syntheticReviewSet(12, { seed: 1, rate: 0 });
    keys = buildSlots(set.pseudo, set.items).slots.filter((s) => s.model).map((s) => s.key);
    const box = (k: string, dx = 0) => {
      const s = buildSlots(set.pseudo, set.items).slots.find((x) => x.key === k)!;
      const [x, y, w, h] = s.model!.bbox;
      return [x + dx, y, x + w + dx, y + h] as [number, number, number, number];
    };
    const [k0, k1, k2, k3, k4, k5] = keys;
    // a: accept k0 k1 k2, move k3 a little, reject k4, k5 not reviewed.
    const a = reviewed('ann <i>', { [k0]: [{ kind: 'accept' }], [k1]: [{ kind: 'accept' }], [k2]: [{ kind: 'accept' }], [k3]: [{ kind: 'box', box: box(k3, 2) }], [k4]: [{ kind: 'reject' }] });
    // b: accept k0, reject k1, move k2 far, accept k3, reject k4 and k5.
    const b = reviewed('bob', { [k0]: [{ kind: 'accept' }], [k1]: [{ kind: 'reject' }], [k2]: [{ kind: 'box', box: box(k2, 400) }], [k3]: [{ kind: 'accept' }], [k4]: [{ kind: 'absent' }], [k5]: [{ kind: 'reject' }] });
    const dir = mkdtempSync(join(tmpdir(), 'gsr-agreement-'));
    files = [join(dir, 'a.json'), join(dir, 'b.json')];
    writeFileSync(files[0], JSON.stringify(a));
    writeFileSync(files[1], JSON.stringify(b));
    expect(keys.length).toBeGreaterThanOrEqual(6);
  }, scaled(60_000));

  it('compares only labels both reviewed, with kappa, IoU and the disagreements', async () => {
    const { readCocoFile } = await import('../../src/formats/coco.js');
    const s = reviewAgreement(await readCocoFile(files[0]), await readCocoFile(files[1]));
    expect(s.n).toBe(5);
    expect(s.only_b).toBe(1);
    expect(s.only_a).toBe(0);
    // keep/remove: a = keep keep keep keep remove, b = keep remove keep keep remove (in key order).
    expect(s.kappa.observed).toBeCloseTo(4 / 5, 12);
    expect(s.kappa.kappa).toBeCloseTo((0.8 - (0.8 * 0.6 + 0.2 * 0.4)) / (1 - (0.8 * 0.6 + 0.2 * 0.4)), 12);
    expect(s.iou.n).toBe(3);
    expect(s.disagreements.map((d) => `${d.key} ${d.why}`).sort()).toEqual([`${keys[1]} decision`, `${keys[2]} box`].sort());
    expect(s.iou.at_least['0.5']).toBeCloseTo(2 / 3, 12);
  }, scaled(180_000));

  it('prints the summary and the disagreements; reviewer names are quoted', () => {
    const r = runCli(['review', 'agreement', ...files]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/labels reviewed in both: 5/);
    expect(r.stdout).toMatch(/Cohen kappa 0\.545/);
    expect(r.stdout).toMatch(/disagreements to adjudicate: 2/);
    expect(r.stdout).toContain('"ann <i>"');
  }, scaled(180_000));
});
