"""Trains gsr-synth-depth, the project's own monocular depth model (relative inverse depth, larger =
nearer), on the exact depth of scenes rendered by training/make-data.ts; evaluates it on the
held-out scenes; exports ONNX, checks the export against PyTorch, writes the parity fixture, the
training record and the manifest's size and sha256 (training/README.md).

  nice -n 19 /work/venv/bin/python training/train_depth.py [--seed 0] [--steps 9000] [--object-loss 3] [--order-loss 1] [--out models/gsr-synth-depth]
"""
from __future__ import annotations

import os

# Threads that wait sleep instead of spinning: on a shared machine a spinning thread burns the CPU
# time its partner needs (measured about 7x the CPU time per step with 2 threads).
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')

import json  # noqa: E402
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gsr_synth as g  # noqa: E402
from train_det import jitter  # noqa: E402

MODEL_ID = 'gsr-synth-depth'
SILOG_LAMBDA = 0.85
# Object pixels weigh 1 + OBJECT_WEIGHT in the scale-invariant loss: they are a few percent of a
# picture, and unweighted the model put furniture about 20% too far (docs/perception.md).
OBJECT_WEIGHT = 4.0
# Regions of the object loss: the background and up to this many entities (the renderer draws at
# most 2 named objects and a few clutter ones).
MAX_ENTITIES = 8
# Weight of object_loss beside the pixel losses (docs/perception.md, "Which pairs have a depth order").
OBJECT_LOSS = 3.0
# order_loss's margin: the share of a pair's true log-depth gap the prediction must keep in the true
# order, and its weight: at weight 1 it ordered the tabletop pairs better in three seeds out of three
# (docs/perception.md, "Which pairs have a depth order").
ORDER_HINGE = 0.5
ORDER_LOSS = 1.0
# Encoder widths at strides 4-32 and the decoder's at strides 16 and 8 (DepthNet, training/gsr_synth.py):
# wider than the detector's, for the depth targets of docs/perception.md.
WIDTHS = (32, 64, 112, 160)
MIDS = (112, 64)


def batch(data: dict, idx: np.ndarray, rng: np.random.Generator):
    flips = rng.random(len(idx)) < 0.5
    imgs = data['images'][idx].astype(np.float32)
    imgs[flips] = imgs[flips][..., ::-1]
    imgs = np.clip(jitter(imgs, rng), 0, 255)
    x = (imgs * np.float32(1 / 255) - g.MEAN[None, :, None, None]) / g.STD[None, :, None, None]
    t = data['target'][idx]
    t[flips] = t[flips][..., ::-1]
    w = 1 + OBJECT_WEIGHT * data['object_share'][idx].astype(np.float32)
    w[flips] = w[flips][..., ::-1]
    cells = data['cell_labels'][idx]
    cells[flips] = cells[flips][..., ::-1]
    return (*(torch.from_numpy(np.ascontiguousarray(v, dtype=np.float32)) for v in (x, t, w)), torch.from_numpy(np.ascontiguousarray(cells, dtype=np.int64)))


def silog(pred_log: torch.Tensor, gt_log: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Scale-invariant log loss (Eigen et al.) with per-cell weights (weighted means), per image,
    then averaged."""
    d = (pred_log - gt_log).flatten(1)
    w = weight.flatten(1)
    w = w / w.sum(1, keepdim=True)
    return ((w * d ** 2).sum(1) - SILOG_LAMBDA * (w * d).sum(1) ** 2).clamp(min=0).sqrt().mean()


def object_loss(pred_log: torch.Tensor, gt_log: torch.Tensor, cells: torch.Tensor) -> torch.Tensor:
    """Per image, the mean log residual of each region (the background and each entity, over the
    cells wholly inside it): the square root of their variance, averaged over images. It is zero when
    every object is off by the same factor as the background, so it is scale-invariant, and it
    weighs a small object's bias as much as a table's (what subject-object order depends on)."""
    d = pred_log - gt_log
    regions = torch.arange(MAX_ENTITIES + 1, dtype=cells.dtype)[None, :, None, None]
    onehot = (cells[:, None] == regions).to(d.dtype)
    count = onehot.sum((2, 3))
    mean = (onehot * d[:, None]).sum((2, 3)) / count.clamp(min=1)
    present = (count > 0).to(d.dtype)
    centre = (mean * present).sum(1, keepdim=True) / present.sum(1, keepdim=True)
    var = (((mean - centre) ** 2) * present).sum(1) / present.sum(1)
    return (var + 1e-8).sqrt().mean()


def order_loss(pred_log: torch.Tensor, gt_log: torch.Tensor, cells: torch.Tensor) -> torch.Tensor:
    """Over the images whose two named objects (entities 1 and 2) have a depth order (mean true log
    inverse depths over their cells at least log(1 + ORDER_MARGIN) apart), a hinge on the predicted
    gap: zero once the prediction sets them apart in the true order by ORDER_HINGE of their true gap
    or more, else the shortfall. Scale-invariant, and silent on the pairs already well ordered."""
    pred, true, present = [], [], []
    for e in (1, 2):
        inside = (cells == e).to(pred_log.dtype)
        count = inside.sum((1, 2))
        present.append(count > 0)
        pred.append((inside * pred_log).sum((1, 2)) / count.clamp(min=1))
        true.append((inside * gt_log).sum((1, 2)) / count.clamp(min=1))
    gap = true[0] - true[1]
    ordered = (present[0] & present[1] & (gap.abs() >= np.log1p(g.ORDER_MARGIN))).to(pred_log.dtype)
    shortfall = F.relu(ORDER_HINGE * gap.abs() - torch.sign(gap) * (pred[0] - pred[1]))
    return (shortfall * ordered).sum() / ordered.sum().clamp(min=1)


def gradient_loss(pred_log: torch.Tensor, gt_log: torch.Tensor) -> torch.Tensor:
    """L1 of the residual's horizontal and vertical differences, at two scales (sharp edges)."""
    total = 0.0
    r = pred_log - gt_log
    for _ in range(2):
        total = total + (r[:, :, 1:] - r[:, :, :-1]).abs().mean() + (r[:, 1:] - r[:, :-1]).abs().mean()
        r = F.avg_pool2d(r[:, None], 2)[:, 0]
    return total


def full_size(disp: torch.Tensor, height: int = 480, width: int = 640) -> np.ndarray:
    """The port's post-processing: bilinear (align_corners false) to the original size."""
    return F.interpolate(disp[:, None], size=(height, width), mode='bilinear', align_corners=False)[:, 0].numpy()


def evaluate(model: torch.nn.Module, data: dict, split: str) -> dict:
    """Per image, the prediction (as depth, 1 / disparity) is scaled by median(true) / median(pred)
    (scale-only alignment: the model is trained scale-invariant); then AbsRel and delta < 1.25 over
    every pixel. Depth order: subject against object by the median predicted disparity inside each
    true mask, and inside each true box, against the order of their true median depths (each region
    also with the true depth in place of the prediction: the region's ceiling); a pair whose
    true medians differ by less than ORDER_MARGIN (relative) has no order and is counted apart
    (docs/perception.md, "Which pairs have a depth order")."""
    model.eval()
    absrel, d1 = [], []
    by_style: dict[str, list] = {}
    order = {'mask': {}, 'box': {}}
    with torch.no_grad():
        for i, s in enumerate(data['scenes']):
            x = torch.from_numpy(g.normalise(data['images'][i].transpose(1, 2, 0))[None])
            disp = full_size(model(x))[0]
            gt = data['depth'][i].astype(np.float32)
            pred = 1.0 / np.maximum(disp, 1e-6)
            pred = pred * np.median(gt) / np.median(pred)
            ratio = np.maximum(pred / gt, gt / pred)
            a, d = float(np.mean(np.abs(pred - gt) / gt)), float(np.mean(ratio < 1.25))
            absrel.append(a)
            d1.append(d)
            by_style.setdefault(s['style'], []).append((a, d))
            if s['object'] is None:
                continue
            labels = g.read_labels(split, s['id'])
            boxes = {o['entity']: o['bbox'] for o in s['objects']}
            for region in ('mask', 'box'):
                med = {}
                for e in (1, 2):
                    if region == 'mask':
                        sel = labels == e
                    else:
                        bx, by, bw, bh = boxes[e]
                        sel = np.zeros_like(labels, dtype=bool)
                        sel[by:by + bh, bx:bx + bw] = True
                    med[e] = (float(np.median(disp[sel])), float(np.median(gt[labels == e])), float(np.median(gt[sel])))
                ordered = g.true_order(med[1][1], med[2][1]) != 0
                agree = ordered and (med[1][0] > med[2][0]) == (med[1][1] < med[2][1]) and med[1][0] != med[2][0]
                # The exact depth through the same region: what the statistic allows a perfect model.
                exact = ordered and (med[1][2] < med[2][2]) == (med[1][1] < med[2][1]) and med[1][2] != med[2][2]
                for key in ('all', s['style'], f"{s['style']}:{s['relation']}"):
                    o = order[region].setdefault(key, [0, 0, 0, 0])
                    o[0] += int(agree)
                    o[1] += int(ordered)
                    o[2] += int(not ordered)
                    o[3] += int(exact)
    rate = lambda v: {'pairs': v[1], 'agree': v[0], 'accuracy': v[0] / v[1] if v[1] else None, 'unordered': v[2], 'exact_depth_accuracy': v[3] / v[1] if v[1] else None}  # noqa: E731
    front_behind = lambda o: [sum(o.get(f'tabletop:{r}', [0, 0, 0, 0])[k] for r in ('front', 'behind')) for k in range(4)]  # noqa: E731
    return {
        'scenes': len(data['scenes']),
        'absrel': float(np.mean(absrel)),
        'delta1': float(np.mean(d1)),
        'by_style': {k: {'scenes': len(v), 'absrel': float(np.mean([a for a, _ in v])), 'delta1': float(np.mean([d for _, d in v]))} for k, v in sorted(by_style.items())},
        'order_margin': g.ORDER_MARGIN,
        'depth_order': {region: {**{k: rate(v) for k, v in sorted(o.items()) if ':' not in k}, 'tabletop front/behind': rate(front_behind(o))} for region, o in order.items()},
        'depth_order_by_relation': {region: {k: rate(v) for k, v in sorted(o.items()) if ':' in k} for region, o in order.items()},
        'protocol': f'full size (bilinear from the model output, as the port); prediction as depth (1 / disparity) scaled per image by median(true) / median(pred); AbsRel = mean |pred - true| / true and delta1 = share of pixels with max(pred/true, true/pred) < 1.25, per image, averaged over images; depth order over two-object scenes, regions = true masks or true boxes; pairs = those whose true median depths differ by at least {g.ORDER_MARGIN:.0%} of the nearer (a defined order), unordered = the others; exact_depth_accuracy = the same statistic on the true depth map (what a perfect depth map gives in that region)',
    }


def parity(model: torch.nn.Module, onnx_path: Path) -> tuple[dict, float]:
    sess = ort.InferenceSession(str(onnx_path), providers=['CPUExecutionProvider'])
    fixture = {'model': MODEL_ID, 'onnx_sha256': g.sha256(onnx_path), 'images': []}
    worst = 0.0
    raw_pos = g.sample_positions((g.IN_H // g.DEPTH_STRIDE) * (g.IN_W // g.DEPTH_STRIDE), 400, 3)
    full_pos = g.sample_positions(480 * 640, 400, 4)
    for inp in g.parity_inputs():
        x = g.normalise(inp['resized'])[None]
        with torch.no_grad():
            disp = model(torch.from_numpy(x))
        raw = disp[0].numpy()
        onnx_raw = sess.run(['predicted_depth'], {'pixel_values': x})[0][0]
        worst = max(worst, float(np.abs(onnx_raw - raw).max() / (raw.max() - raw.min())))
        full = full_size(disp)[0]
        fixture['images'].append({
            **{k: v for k, v in inp.items() if k != 'resized'},
            'raw': {'positions': raw_pos, 'values': [float(v) for v in raw.reshape(-1)[raw_pos]], 'min': float(raw.min()), 'max': float(raw.max()), 'sum': float(raw.sum(dtype=np.float64))},
            'full': {'positions': full_pos, 'values': [float(v) for v in full.reshape(-1)[full_pos]], 'sum': float(full.sum(dtype=np.float64))},
        })
    return fixture, worst


def ints(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(','))


def main() -> None:
    def extra(ap):
        ap.add_argument('--object-loss', type=float, default=OBJECT_LOSS, help='weight of object_loss (0: off)')
        ap.add_argument('--order-loss', type=float, default=ORDER_LOSS, help='weight of order_loss (0: off)')
        ap.add_argument('--no-flip-average', action='store_true', help='export, evaluate and check the DepthNet alone, not FlipAveraged (training/gsr_synth.py)')
        ap.add_argument('--coords', action='store_true', help='give the encoder each cell\'s position (Encoder, training/gsr_synth.py)')
        ap.add_argument('--widths', type=ints, default=WIDTHS, help='encoder widths at strides 4, 8, 16, 32 (comma-separated)')
        ap.add_argument('--mids', type=ints, default=MIDS, help='decoder widths at strides 16 and 8 (comma-separated)')
    a = g.parse_args(MODEL_ID, 'depth-parity.json', batch=8, steps=9000, extra=extra)
    clock = g.Clock()
    torch.set_num_threads(a.threads)
    rng = g.set_seed(a.seed)
    train = g.load_split('train', depth='target')
    heldout = g.load_split('heldout', depth='full')

    def losses(model: torch.nn.Module, idx: np.ndarray):
        x, t, w, cells = batch(train, idx, rng)
        pred = torch.log(model(x.contiguous(memory_format=torch.channels_last)))
        ls = silog(pred, t, w)
        lg = gradient_loss(pred, t)
        total, parts = ls + 0.5 * lg, {'silog': ls, 'gradient': lg}
        if a.object_loss:
            parts['object'] = object_loss(pred, t, cells)
            total = total + a.object_loss * parts['object']
        if a.order_loss:
            parts['order'] = order_loss(pred, t, cells)
            total = total + a.order_loss * parts['order']
        return total, parts

    model, log = g.train(g.DepthNet(coords=a.coords, widths=tuple(a.widths), mids=tuple(a.mids)), a, clock, len(train['scenes']), rng, losses)
    # What ships (and is evaluated and checked) averages the prediction with the mirror image's.
    served = model if a.no_flip_average else g.FlipAveraged(model)
    out = Path(a.out)
    onnx_path = out / 'model.onnx'
    g.export_onnx(served, onnx_path, ['predicted_depth'])
    metrics = evaluate(served, heldout, 'heldout')
    fixture, worst = parity(served, onnx_path)
    g.write_json(Path(a.fixture), fixture)
    loss = f'scale-invariant log loss (lambda {SILOG_LAMBDA}) on log inverse depth at stride 2, object pixels weighing 1 + {OBJECT_WEIGHT}, + 0.5 x gradient loss of the log residual at two scales' + (f', + {a.object_loss} x object loss (per-region mean log residual, root of its variance)' if a.object_loss else '') + (f', + {a.order_loss} x order loss (hinge on the two named objects\' predicted log-depth gap, margin {ORDER_HINGE} of the true gap, over pairs with an order)' if a.order_loss else '') + ('; encoder with cell positions' if a.coords else '') + f'; encoder widths {list(a.widths)}, decoder widths {list(a.mids)}'
    record = g.training_record(MODEL_ID, 'training/train_depth.py', a, model, onnx_path, log, metrics, clock, loss, ('max_abs_diff_vs_torch_over_range', worst))
    record['inference'] = 'the network alone' if a.no_flip_average else 'flip-averaged: the network on the picture and its mirror image, averaged in log (FlipAveraged, training/gsr_synth.py)'
    g.write_json(out / 'training.json', record)
    if not a.no_manifest:
        g.update_manifest(MODEL_ID, onnx_path)
    print(json.dumps({'absrel': metrics['absrel'], 'delta1': metrics['delta1'], 'order': metrics['depth_order']['mask']['all'], 'time': record['time']}))


if __name__ == '__main__':
    main()
