"""Where a depth model's AbsRel comes from (docs/perception.md, "Where the AbsRel comes from"): on
the held-out scenes rendered by training/make-data.ts, with the prediction scaled per image as
train_depth.py evaluates it, the error at depth edges (pixels whose 7x7 neighbourhood spans more than
10% of true depth) against the rest, and per style the AbsRel left once each picture's best-fitting
plane in log depth (a + b row + c column: the camera's pitch and height) is taken out of the error.

  python training/depth_error_study.py [--model models/gsr-synth-depth/model.onnx] [--json FILE]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gsr_synth as g  # noqa: E402
from depth_order_study import heldout_predictions  # noqa: E402

EDGE_WINDOW = 7
EDGE_RATIO = 1.1


def window(a: np.ndarray, reduce) -> np.ndarray:
    """Max or min over the EDGE_WINDOW x EDGE_WINDOW neighbourhood (edge-padded), one axis at a time."""
    r = EDGE_WINDOW // 2
    for axis in (0, 1):
        p = np.pad(a, [(r, r) if k == axis else (0, 0) for k in (0, 1)], mode='edge')
        a = reduce(np.lib.stride_tricks.sliding_window_view(p, EDGE_WINDOW, axis=axis), axis=-1)
    return a


def study(model: Path) -> dict:
    sums = {'edge': [0.0, 0], 'rest': [0.0, 0]}
    styles: dict[str, list] = {}
    for s, _, gt, pred in heldout_predictions(model):
        err = np.abs(pred - gt) / gt
        edge = window(gt, np.max) / window(gt, np.min) > EDGE_RATIO
        for key, sel in (('edge', edge), ('rest', ~edge)):
            sums[key][0] += float(err[sel].sum())
            sums[key][1] += int(sel.sum())
        r = np.log(pred / gt)
        rows, cols = np.mgrid[0:gt.shape[0], 0:gt.shape[1]]
        design = np.stack([np.ones(r.size), rows.ravel() / gt.shape[0], cols.ravel() / gt.shape[1]], 1)
        coef, *_ = np.linalg.lstsq(design, r.ravel(), rcond=None)
        untilted = np.exp(r - (design @ coef).reshape(r.shape))
        styles.setdefault(s['style'], []).append((float(err.mean()), float(np.abs(untilted - 1).mean())))
    pixels = sum(n for _, n in sums.values())
    per = lambda v: {'scenes': len(v), 'absrel': float(np.mean([a for a, _ in v])), 'absrel_without_tilt': float(np.mean([b for _, b in v]))}  # noqa: E731
    return {
        'model': str(model),
        'edge': {k: {'pixel_share': n / pixels, 'absrel': e / n, 'contribution': e / pixels} for k, (e, n) in sums.items()},
        'by_style': {k: per(v) for k, v in sorted(styles.items())},
        'all': per([p for v in styles.values() for p in v]),
        'protocol': f'prediction as depth scaled per image by median(true) / median(pred); edge = a pixel whose {EDGE_WINDOW}x{EDGE_WINDOW} neighbourhood has max / min true depth > {EDGE_RATIO}; contribution = its share of the all-pixel mean error; absrel_without_tilt = mean |exp(e - plane) - 1| where e = log(pred / true) and plane its least-squares fit a + b row + c column per picture',
    }


def main() -> None:
    a = g.depth_model_args(__doc__.split('\n\n')[0])
    out = study(Path(a.model))
    if a.json:
        g.write_json(Path(a.json), out)
    print(json.dumps(out, indent=1))


if __name__ == '__main__':
    main()
