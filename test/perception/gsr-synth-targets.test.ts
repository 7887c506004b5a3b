/**
 * The shipped own models' held-out figures against the targets of docs/perception.md ("Targets"),
 * read from the training records the training scripts wrote beside the files
 * (models/<id>/training.json; nothing is trained here). A figure below its target fails, unless it
 * is listed in SHORTFALLS with the value the shipped record holds: a listed figure must still equal
 * that value (a new training updates the list) and still miss its target (a reached target leaves it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPTH_ORDER_MARGIN } from '../../src/annotate/quality.js';
import { getManifest } from '../../src/perception/manifest.js';
import { REPO_ROOT } from '../helpers/cli.js';

interface Rate {
  pairs: number;
  accuracy: number | null;
  unordered?: number;
  /** The same statistic on the true depth map: what a perfect depth map gives in that region. */
  exact_depth_accuracy?: number | null;
}
interface DetRecord {
  onnx: { sha256: string };
  heldout: { top1_hit_rate: number; per_kind: Record<string, { named_objects: number; top1_hit_rate: number | null }> };
}
interface DepthRecord {
  onnx: { sha256: string };
  heldout: { absrel: number; order_margin?: number; depth_order: Record<string, Record<string, Rate>> };
}

const record = <T>(id: string) => JSON.parse(readFileSync(join(REPO_ROOT, 'models', id, 'training.json'), 'utf8')) as T;

/** The targets (issue 37; docs/perception.md, "Targets"). */
const TARGETS = {
  detTop1: 0.95,
  detTop1PerKind: 0.85,
  depthOrder: 0.95,
  depthAbsRel: 0.05,
};

/**
 * Figures of the shipped records that miss their target, with the value the record holds (docs/perception.md,
 * "Targets": what was reached). Keyed as the checks below name them.
 */
const SHORTFALLS: Record<string, number> = {};

/** One figure: at least (or at most) its target, or a listed shortfall that still holds its recorded value. */
function check(name: string, value: number | null, target: number, direction: 'min' | 'max'): string | null {
  const meets = value !== null && (direction === 'min' ? value >= target : value <= target);
  if (name in SHORTFALLS) {
    if (meets) return `${name} = ${value} now meets its target ${target}: remove it from SHORTFALLS`;
    if (value === null || Math.abs(value - SHORTFALLS[name]) > 1e-12) return `${name} = ${value}, but SHORTFALLS records ${SHORTFALLS[name]}: update the list with the new training`;
    return null;
  }
  return meets ? null : `${name} = ${value} misses its target (${direction === 'min' ? '>=' : '<='} ${target})`;
}

/** AbsRel and the order of every group of pairs a model can be held to; the groups out of reach apart. */
function depthChecks(h: DepthRecord['heldout'], prefix: string): { problems: string[]; beyondReach: string[] } {
  const problems = [check(`${prefix}:absrel`, h.absrel, TARGETS.depthAbsRel, 'max')];
  const beyondReach: string[] = [];
  for (const [region, groups] of Object.entries(h.depth_order)) {
    for (const [group, v] of Object.entries(groups)) {
      if (v.pairs === 0) continue;
      // A region whose statistic misorders the pairs even on the true depth cannot be held to the
      // target by any model (docs/perception.md, "Which pairs have a depth order": a table's box).
      if (v.exact_depth_accuracy == null) throw new Error(`${prefix}:order:${region}:${group}: the record has no exact_depth_accuracy (train_depth.py writes it)`);
      if (v.exact_depth_accuracy < TARGETS.depthOrder) beyondReach.push(`${region}:${group}`);
      else problems.push(check(`${prefix}:order:${region}:${group}`, v.accuracy, TARGETS.depthOrder, 'min'));
    }
  }
  return { problems: problems.filter((p): p is string => p !== null), beyondReach };
}

describe('gsr-synth held-out figures against the targets (from the training records)', () => {
  it('the records describe the shipped files', async () => {
    for (const id of ['gsr-synth-det', 'gsr-synth-depth']) {
      const manifest = await getManifest(id);
      expect(record<{ onnx: { sha256: string } }>(id).onnx.sha256).toBe(manifest.files[0].sha256);
    }
  });

  it('detector: the named object boxed (top-1, IoU >= 0.5) overall and for every kind', () => {
    const h = record<DetRecord>('gsr-synth-det').heldout;
    const problems = [check('det:top1', h.top1_hit_rate, TARGETS.detTop1, 'min')];
    for (const [kind, v] of Object.entries(h.per_kind)) {
      if (v.named_objects > 0) problems.push(check(`det:top1:${kind}`, v.top1_hit_rate, TARGETS.detTop1PerKind, 'min'));
    }
    expect(Object.keys(h.per_kind)).toHaveLength(15);
    expect(problems.filter((p) => p !== null)).toEqual([]);
  });

  it('depth: AbsRel, and the subject-object order on every group of pairs with an order', () => {
    const h = record<DepthRecord>('gsr-synth-depth').heldout;
    // The record's "no order" margin is the one the pipeline's quality report uses.
    expect(h.order_margin).toBe(DEPTH_ORDER_MARGIN);
    const { problems, beyondReach } = depthChecks(h, 'depth');
    // The true masks define the order, so every mask group is held to the target; of the boxes, those
    // with furniture are out of reach (their exact-depth figures are in the record and the docs).
    expect(beyondReach).toEqual(['box:all', 'box:furniture']);
    expect(Object.keys(h.depth_order.mask)).toEqual(expect.arrayContaining(['all', 'furniture', 'tabletop']));
    expect(problems).toEqual([]);
  });

  it('depth: the shipped file on the second held-out set, rendered after the setting was chosen', () => {
    // training/evaluate_depth.py's figures (docs/perception.md, "A second held-out set").
    const confirm = JSON.parse(readFileSync(join(REPO_ROOT, 'training', 'records', 'confirm-3003', 'gsr-synth-depth-seed0.json'), 'utf8')) as {
      sha256: string;
      data: { seed: number; count: number };
      heldout: DepthRecord['heldout'];
    };
    const shipped = record<DepthRecord & { data: { heldout: { seed: number } } }>('gsr-synth-depth');
    expect(confirm.sha256).toBe(shipped.onnx.sha256);
    expect(confirm.data.seed).not.toBe(shipped.data.heldout.seed);
    expect(confirm.data.count).toBe(500);
    expect(confirm.heldout.order_margin).toBe(DEPTH_ORDER_MARGIN);
    const { problems, beyondReach } = depthChecks(confirm.heldout, 'confirm');
    expect(beyondReach.filter((g) => g.startsWith('mask:'))).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a figure below its target fails the check', () => {
    expect(check('x', 0.9, 0.95, 'min')).toMatch(/misses its target/);
    expect(check('x', 0.06, 0.05, 'max')).toMatch(/misses its target/);
    expect(check('x', null, 0.95, 'min')).toMatch(/misses its target/);
    expect(check('x', 0.95, 0.95, 'min')).toBeNull();
  });
});
