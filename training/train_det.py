"""Trains gsr-synth-det, the project's own detector for the renderer's kinds, on scenes rendered by
training/make-data.ts; evaluates it on the held-out scenes with pycocotools; exports ONNX, checks
the export against PyTorch, writes the parity fixture, the training record and the manifest's size
and sha256. Deterministic for a seed and thread count (training/README.md).

  nice -n 19 /work/venv/bin/python training/train_det.py [--seed 0] [--steps 1000] [--out models/gsr-synth-det]
"""
from __future__ import annotations

import os

# Threads that wait sleep instead of spinning: on a shared machine a spinning thread burns the CPU
# time its partner needs (measured about 7x the CPU time per step with 2 threads).
os.environ.setdefault('OMP_WAIT_POLICY', 'PASSIVE')

import contextlib  # noqa: E402
import io
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gsr_synth as g  # noqa: E402

MODEL_ID = 'gsr-synth-det'
# Decoding defaults (also the manifest's postprocess, which the port reads).
SCORE_THRESHOLD = 0.1
TOP_K = 10
EVAL_THRESHOLD = 0.01
EVAL_MAX_DETS = 100


# ---------------------------------------------------------------- targets

def targets(objects: list[dict], flip: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heat map [C, gh, gw] (elliptic Gaussians peaking at 1 in each object's centre cell), box
    targets [4, gh, gw] (l, t, r, b in input pixels) and their weights [gh, gw]."""
    gh, gw = g.IN_H // g.DET_STRIDE, g.IN_W // g.DET_STRIDE
    heat = np.zeros((len(g.CLASSES), gh, gw), np.float32)
    box = np.zeros((4, gh, gw), np.float32)
    weight = np.zeros((gh, gw), np.float32)
    claim = np.zeros((gh, gw), np.float32)
    sx, sy = g.IN_W / 640, g.IN_H / 480
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    cyc, cxc = (ys + 0.5) * g.DET_STRIDE, (xs + 0.5) * g.DET_STRIDE
    # Larger objects first, so that a small object's cells are its own where they overlap.
    for o in sorted(objects, key=lambda o: -o['bbox'][2] * o['bbox'][3]):
        if o['pixels'] < g.MIN_PIXELS:
            continue
        x, y, w, h = o['bbox']
        if flip:
            x = 640 - x - w
        x0, y0, x1, y1 = x * sx, y * sy, (x + w) * sx, (y + h) * sy
        cx, cy = (x0 + x1) / 2 / g.DET_STRIDE, (y0 + y1) / 2 / g.DET_STRIDE
        ix, iy = min(int(cx), gw - 1), min(int(cy), gh - 1)
        sgx = max(0.5, 0.15 * (x1 - x0) / g.DET_STRIDE)
        sgy = max(0.5, 0.15 * (y1 - y0) / g.DET_STRIDE)
        gauss = np.exp(-((xs - ix) ** 2 / (2 * sgx ** 2) + (ys - iy) ** 2 / (2 * sgy ** 2)))
        c = g.CLASSES.index(o['kind'])
        heat[c] = np.maximum(heat[c], gauss)
        heat[c, iy, ix] = 1.0
        ltrb = np.stack([cxc - x0, cyc - y0, x1 - cxc, y1 - cyc])
        take = (gauss >= 0.3) & (ltrb.min(axis=0) > 0) & (gauss >= claim)
        take[iy, ix] = True
        box[:, take] = np.maximum(ltrb[:, take], 0.5)
        # Each object's cells share a weight of 1, so a thin candle's few cells weigh as much as a
        # table's many (with the Gaussian as weight, large objects set the box loss).
        weight[take] = gauss[take] / gauss[take].sum()
        claim[take] = gauss[take]
    return heat, box, weight


def focal_loss(pred: torch.Tensor, gt: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss, per positive."""
    p = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - p) * p ** 2 * (1 - gt) ** 4 * (1 - pos)).sum()
    return (pos_loss + neg_loss) / pos.sum().clamp(min=1)


def giou_loss(pred: torch.Tensor, gt: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """1 - GIoU of boxes given as distances from the same point, weighted."""
    pl, pt, pr, pb = pred.unbind(1)
    gl, gtp, gr, gb = gt.unbind(1)
    inter = (torch.min(pl, gl) + torch.min(pr, gr)) * (torch.min(pt, gtp) + torch.min(pb, gb))
    union = (pl + pr) * (pt + pb) + (gl + gr) * (gtp + gb) - inter
    enclose = (torch.max(pl, gl) + torch.max(pr, gr)) * (torch.max(pt, gtp) + torch.max(pb, gb))
    giou = inter / union - (enclose - union) / enclose
    return ((1 - giou) * weight).sum() / weight.sum().clamp(min=1e-6)


def jitter(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Brightness, contrast and per-channel gain, on 0..255 floats (clipped)."""
    b = x.shape[0]
    gain = rng.uniform(0.75, 1.25, (b, 1, 1, 1)) * rng.uniform(0.9, 1.1, (b, 3, 1, 1))
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    contrast = rng.uniform(0.8, 1.2, (b, 1, 1, 1))
    return np.clip((x - mean) * contrast + mean, 0, 255) * gain


def batch(data: dict, idx: np.ndarray, rng: np.random.Generator):
    flips = rng.random(len(idx)) < 0.5
    imgs = data['images'][idx].astype(np.float32)
    imgs[flips] = imgs[flips][..., ::-1]
    imgs = np.clip(jitter(imgs, rng), 0, 255)
    x = (imgs * np.float32(1 / 255) - g.MEAN[None, :, None, None]) / g.STD[None, :, None, None]
    t = [targets(data['scenes'][i]['objects'], bool(f)) for i, f in zip(idx, flips)]
    return (torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)),) + tuple(torch.from_numpy(np.stack(a)) for a in zip(*t))


# ---------------------------------------------------------------- evaluation

def detections(heat: np.ndarray, box: np.ndarray, width: int, height: int, threshold: float, top_k: int) -> list[tuple[int, list[float], float]]:
    out = []
    for c in range(len(g.CLASSES)):
        out += [(c, b, s) for b, s in g.decode_class(heat, box, c, width, height, threshold, top_k)]
    return out


def evaluate(model: torch.nn.Module, data: dict) -> dict:
    """pycocotools at IoU 0.5 over every visible object of the held-out scenes (objects under
    MIN_PIXELS are iscrowd, i.e. ignored), and the top-1 hit rate per phrase over the named objects
    (what `gsr annotate` keeps: the best box for the caption's noun)."""
    model.eval()
    images, anns, dets = [], [], []
    top1 = {c: [0, 0] for c in g.CLASSES}
    with torch.no_grad():
        for i, s in enumerate(data['scenes']):
            x = torch.from_numpy(g.normalise(data['images'][i].transpose(1, 2, 0))[None])
            heat, box = (t[0].numpy() for t in model(x))
            images.append({'id': i + 1, 'width': s['width'], 'height': s['height']})
            for o in s['objects']:
                x0, y0, w, h = o['bbox']
                anns.append({'id': len(anns) + 1, 'image_id': i + 1, 'category_id': g.CLASSES.index(o['kind']) + 1, 'bbox': [x0, y0, w, h], 'area': w * h, 'iscrowd': int(o['pixels'] < g.MIN_PIXELS)})
            for c, b, sc in detections(heat, box, s['width'], s['height'], EVAL_THRESHOLD, EVAL_MAX_DETS):
                dets.append({'image_id': i + 1, 'category_id': c + 1, 'bbox': [b[0], b[1], b[2] - b[0], b[3] - b[1]], 'score': sc})
            for o in s['objects']:
                if o['role'] == 'clutter':
                    continue
                c = g.CLASSES.index(o['kind'])
                best = g.decode_class(heat, box, c, s['width'], s['height'], SCORE_THRESHOLD, 1)
                x0, y0, w, h = o['bbox']
                hit = bool(best) and iou(best[0][0], [x0, y0, x0 + w, y0 + h]) >= 0.5
                top1[o['kind']][0] += int(hit)
                top1[o['kind']][1] += 1
    dets.sort(key=lambda d: (d['image_id'], -d['score']))
    gt = COCO()
    gt.dataset = {'images': images, 'annotations': anns, 'categories': [{'id': i + 1, 'name': c} for i, c in enumerate(g.CLASSES)]}
    with contextlib.redirect_stdout(io.StringIO()):
        gt.createIndex()
        dt = gt.loadRes(dets) if dets else COCO()
        ev = COCOeval(gt, dt, 'bbox')
        ev.params.iouThrs = np.array([0.5])
        ev.params.maxDets = [1, 10, EVAL_MAX_DETS]
        ev.evaluate()
        ev.accumulate()
    prec = ev.eval['precision'][0, :, :, 0, 2]  # [recall thresholds, classes], area all, 100 dets
    rec = ev.eval['recall'][0, :, 0, 2]
    per_kind = {}
    for k, c in enumerate(g.CLASSES):
        p = prec[:, k]
        n_obj = sum(1 for a in anns if a['category_id'] == k + 1 and not a['iscrowd'])
        per_kind[c] = {
            'objects': n_obj,
            'ap50': float(p[p > -1].mean()) if (p > -1).any() else None,
            'recall50': float(rec[k]) if rec[k] > -1 else None,
            'named_objects': top1[c][1],
            'top1_hit_rate': top1[c][0] / top1[c][1] if top1[c][1] else None,
        }
    aps = [v['ap50'] for v in per_kind.values() if v['ap50'] is not None]
    named = sum(v[1] for v in top1.values())
    return {
        'scenes': len(images),
        'objects': sum(1 for a in anns if not a['iscrowd']),
        'ignored_small_objects': sum(1 for a in anns if a['iscrowd']),
        'map50': float(np.mean(aps)),
        'top1_hit_rate': sum(v[0] for v in top1.values()) / named,
        'per_kind': per_kind,
        'protocol': f'pycocotools COCOeval (bbox), IoU 0.5 only, maxDets {EVAL_MAX_DETS}, area all; detections: every class\'s peaks above {EVAL_THRESHOLD}, at most {EVAL_MAX_DETS} per class; top-1: the best peak of the named object\'s class above {SCORE_THRESHOLD}, a hit at IoU >= 0.5',
    }


def iou(a: list[float], b: list[float]) -> float:
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


# ---------------------------------------------------------------- export and parity

def parity(model: torch.nn.Module, onnx_path: Path) -> tuple[dict, dict]:
    """Outputs of PyTorch on the parity pictures (the fixture) and the ONNX file's largest
    differences from them (onnxruntime, Python)."""
    sess = ort.InferenceSession(str(onnx_path), providers=['CPUExecutionProvider'])
    fixture = {'model': MODEL_ID, 'onnx_sha256': g.sha256(onnx_path), 'score_threshold': SCORE_THRESHOLD, 'top_k': TOP_K, 'images': []}
    worst = {'heatmap': 0.0, 'box': 0.0}
    gh, gw = g.IN_H // g.DET_STRIDE, g.IN_W // g.DET_STRIDE
    heat_pos = g.sample_positions(len(g.CLASSES) * gh * gw, 400, 1)
    box_pos = g.sample_positions(4 * gh * gw, 200, 2)
    for inp in g.parity_inputs():
        x = g.normalise(inp['resized'])[None]
        with torch.no_grad():
            heat, box = (t[0].numpy() for t in model(torch.from_numpy(x)))
        oh, ob = (t[0] for t in sess.run(['heatmap', 'box'], {'pixel_values': x}))
        worst['heatmap'] = max(worst['heatmap'], float(np.abs(oh - heat).max()))
        worst['box'] = max(worst['box'], float(np.abs(ob - box).max()))
        fixture['images'].append({
            **{k: v for k, v in inp.items() if k != 'resized'},
            'heatmap': {'positions': heat_pos, 'values': [float(v) for v in heat.reshape(-1)[heat_pos]], 'max': float(heat.max()), 'sum': float(heat.sum(dtype=np.float64))},
            'box': {'positions': box_pos, 'values': [float(v) for v in box.reshape(-1)[box_pos]], 'sum': float(box.sum(dtype=np.float64))},
            'detections': {c: [{'box': b, 'score': s} for b, s in g.decode_class(heat, box, k, 640, 480, SCORE_THRESHOLD, TOP_K)] for k, c in enumerate(g.CLASSES)},
        })
    return fixture, worst


# ---------------------------------------------------------------- main

def main() -> None:
    a = g.parse_args(MODEL_ID, 'det-parity.json', batch=16, steps=3000)
    clock = g.Clock()
    torch.set_num_threads(a.threads)
    rng = g.set_seed(a.seed)
    train = g.load_split('train')
    heldout = g.load_split('heldout')

    def losses(model: torch.nn.Module, idx: np.ndarray):
        x, heat_t, box_t, w_t = batch(train, idx, rng)
        heat, box = model(x.contiguous(memory_format=torch.channels_last))
        lh = focal_loss(heat, heat_t)
        lb = giou_loss(box, box_t, w_t)
        return lh + lb, {'heat': lh, 'box': lb}

    model, log = g.train(g.Detector(), a, clock, len(train['scenes']), rng, losses)
    out = Path(a.out)
    onnx_path = out / 'model.onnx'
    g.export_onnx(model, onnx_path, ['heatmap', 'box'])
    metrics = evaluate(model, heldout)
    fixture, worst = parity(model, onnx_path)
    g.write_json(Path(a.fixture), fixture)
    record = g.training_record(MODEL_ID, 'training/train_det.py', a, model, onnx_path, log, metrics, clock, None, ('max_abs_diff_vs_torch', worst))
    g.write_json(out / 'training.json', record)
    if not a.no_manifest:
        g.update_manifest(MODEL_ID, onnx_path)
    print(json.dumps({'map50': metrics['map50'], 'top1_hit_rate': metrics['top1_hit_rate'], 'time': record['time']}))


if __name__ == '__main__':
    main()
