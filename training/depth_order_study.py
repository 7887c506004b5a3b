"""Why a depth model orders the subject and object of furniture scenes wrong (docs/perception.md,
"Which pairs have a depth order"): on the held-out scenes rendered by training/make-data.ts, per
style and relation, how far apart the true median depths of the two objects are, which one is truly
nearer, how often the model (an ONNX file, run as the port runs it) gets the order right inside the
true masks and boxes, and the model's bias per region: the median of log(predicted / true depth)
inside the subject's mask, the object's mask and the background, the prediction scaled per image by
median(true) / median(predicted) as train_depth.py evaluates it.

  python training/depth_order_study.py [--model models/gsr-synth-depth/model.onnx] [--json FILE]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gsr_synth as g  # noqa: E402
from train_depth import full_size  # noqa: E402

BINS = [0, 0.01, 0.02, 0.05, 0.1, 0.2, float('inf')]


def heldout_predictions(model: Path):
    """For each held-out scene: the scene, the model's disparity at full size (the ONNX file run as
    the port runs it), the true depth, and the prediction as depth scaled by median(true) /
    median(predicted), as train_depth.py evaluates it."""
    net = g.OnnxDepth(model)
    data = g.load_split('heldout', depth='full')
    for i, s in enumerate(data['scenes']):
        x = g.normalise(data['images'][i].transpose(1, 2, 0))[None]
        disp = full_size(net(torch.from_numpy(x)))[0]
        gt = data['depth'][i].astype(np.float32)
        pred = 1.0 / np.maximum(disp, 1e-6)
        yield s, disp, gt, pred * np.median(gt) / np.median(pred)


def true_difference(r: dict) -> float:
    """The subject's true median depth minus the object's, as a share of the nearer one."""
    return (r['subject']['true'] - r['object']['true']) / min(r['subject']['true'], r['object']['true'])


def order_right(r: dict, region: str) -> bool:
    """Whether the median predicted inverse depths in `region` order the pair as the true depths do."""
    return (r['subject'][region] > r['object'][region]) == (r['subject']['true'] < r['object']['true'])


def study(model: Path) -> dict:
    pairs, bias = [], {}
    for s, disp, gt, pred in heldout_predictions(model):
        if s['object'] is None:
            continue
        labels = g.read_labels('heldout', s['id'])
        boxes = {o['entity']: o['bbox'] for o in s['objects']}
        row = {'id': s['id'], 'style': s['style'], 'relation': s['relation']}
        for e, role in ((1, 'subject'), (2, 'object'), (0, 'background')):
            m = labels == e
            bias.setdefault(f"{s['style']}:{role}", []).append(float(np.median(np.log(pred[m] / gt[m]))))
            for k in (3, 6) if e else ():
                # The mask eroded by k pixels: is a bias only at the edges (thin legs blurred with the floor)?
                inner = (-F.max_pool2d(-torch.from_numpy(m.astype(np.float32))[None, None], 2 * k + 1, 1, k))[0, 0].numpy() > 0.5
                if inner.sum() >= 20:
                    bias.setdefault(f"{s['style']}:{role}:eroded {k} px", []).append(float(np.median(np.log(pred[inner] / gt[inner]))))
            if e == 0:
                continue
            bx, by, bw, bh = boxes[e]
            row[role] = {'true': float(np.median(gt[m])), 'mask': float(np.median(disp[m])), 'box': float(np.median(disp[by:by + bh, bx:bx + bw]))}
        pairs.append(row)

    def summary(rows: list[dict]) -> dict:
        rel = np.array([true_difference(r) for r in rows])
        out = {'pairs': len(rows), 'median_abs_relative_difference': float(np.median(np.abs(rel))), 'subject_truly_nearer': float(np.mean(rel < 0))}
        for region in ('mask', 'box'):
            right = [order_right(r, region) for r in rows if r['subject']['true'] != r['object']['true']]
            out[f'order_right_{region}'] = float(np.mean(right)) if right else None
        ordered = [r for r in rows if g.true_order(r['subject']['true'], r['object']['true']) != 0]
        out['ordered_pairs'] = len(ordered)
        out['order_right_mask_ordered'] = float(np.mean([order_right(r, 'mask') for r in ordered])) if ordered else None
        return out

    by_relation = {}
    for style in ('tabletop', 'furniture'):
        for rel in sorted({r['relation'] for r in pairs if r['style'] == style}):
            by_relation[f'{style}:{rel}'] = summary([r for r in pairs if r['style'] == style and r['relation'] == rel])
        by_relation[style] = summary([r for r in pairs if r['style'] == style])
    by_difference = {}
    for style in ('tabletop', 'furniture'):
        rows = [r for r in pairs if r['style'] == style]
        d = np.array([abs(true_difference(r)) for r in rows])
        for lo, hi in zip(BINS[:-1], BINS[1:]):
            sel = [r for r, v in zip(rows, d) if lo <= v < hi]
            if sel:
                by_difference[f'{style}: {lo:.0%}-{hi:.0%}' if hi != float('inf') else f'{style}: >= {lo:.0%}'] = summary(sel)
    return {
        'model': str(model),
        'sha256': g.sha256(model),
        'order_margin': g.ORDER_MARGIN,
        'by_relation': by_relation,
        'by_true_difference': by_difference,
        'bias_median_log_pred_over_true': {k: float(np.median(v)) for k, v in sorted(bias.items())},
        # Which pairs with an order the model gets wrong in the masks: the same pairs across trainings are
        # the hard ones, others the seed's (docs/perception.md, "Which pairs have a depth order").
        'wrong_in_masks': [{'id': r['id'], 'style': r['style'], 'relation': r['relation'], 'true_relative_difference': abs(true_difference(r))}
                           for r in pairs if g.true_order(r['subject']['true'], r['object']['true']) != 0 and not order_right(r, 'mask')],
    }


def main() -> None:
    a = g.depth_model_args()
    torch.set_num_threads(1)
    r = study(Path(a.model))
    if a.json:
        g.write_json(Path(a.json), r)
    pct = lambda v: '-' if v is None else f'{100 * v:.1f}'  # noqa: E731
    print(f"{r['model']} ({r['sha256'][:12]})")
    print('| pairs | n | median abs relative difference % | subject truly nearer % | order right, masks % | boxes % | pairs with an order | right among them % |')
    for k, v in {**r['by_relation'], **r['by_true_difference']}.items():
        print(f"| {k} | {v['pairs']} | {pct(v['median_abs_relative_difference'])} | {pct(v['subject_truly_nearer'])} | {pct(v['order_right_mask'])} | {pct(v['order_right_box'])} | {v['ordered_pairs']} | {pct(v['order_right_mask_ordered'])} |")
    print('bias, median log(pred / true):', json.dumps({k: round(v, 3) for k, v in r['bias_median_log_pred_over_true'].items()}))
    print('ordered wrong in the masks:', ', '.join(f"{w['id']} ({w['style']} {w['relation']}, {100 * w['true_relative_difference']:.1f}%)" for w in r['wrong_in_masks']))


if __name__ == '__main__':
    main()
