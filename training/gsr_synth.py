"""Shared pieces of the two training scripts (train_det.py, train_depth.py): the scenes rendered by
training/make-data.ts, the pre-processing the ports repeat (src/perception/models/gsr-synth.ts),
the networks, the detector's decoding, held-out evaluation helpers, the ONNX export with its
parity check, and the training record. training/README.md describes the whole procedure.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import time
from pathlib import Path
from typing import Callable

import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
# GSR_SYNTH_CACHE: another folder make-data.ts rendered, such as a fresh held-out set (training/README.md).
CACHE = Path(os.environ.get('GSR_SYNTH_CACHE') or REPO / '.cache' / 'gsr-synth').resolve()

# The port's input: every image stretched to this size with PIL's bilinear resize (as the port's
# resizePilRgb), /255, ImageNet mean/std, CHW. The synthetic scenes are 640x480, so they halve.
IN_W, IN_H = 320, 240
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)

# The renderer's kinds in SYNTH_CATEGORIES order (src/datasets/synth/records.ts: sorted names).
CLASSES = ['ball', 'bench', 'block', 'book', 'bottle', 'bowl', 'box', 'can', 'candle', 'chair', 'desk', 'mug', 'plate', 'table', 'vase']
DET_STRIDE = 4
DEPTH_STRIDE = 2
# Objects with fewer visible pixels (at 640x480) are neither targets nor counted in the evaluation
# (pycocotools' iscrowd, i.e. ignored); the renderer keeps named objects above 246 pixels.
MIN_PIXELS = 40
# Two objects whose true median depths differ by less than this share of the nearer one's have no
# depth order (docs/perception.md, "Which pairs have a depth order"; the same margin as
# DEPTH_ORDER_MARGIN in src/annotate/quality.ts).
ORDER_MARGIN = 0.05


def true_order(subject: float, obj: float) -> int:
    """-1 when the subject is nearer, 1 when farther, 0 when the two true depths are within
    ORDER_MARGIN of each other (no order)."""
    if abs(subject - obj) < ORDER_MARGIN * min(subject, obj):
        return 0
    return -1 if subject < obj else 1


# ---------------------------------------------------------------- data

def resize_rgb(img: Image.Image) -> np.ndarray:
    """The port's resize: PIL bilinear to IN_W x IN_H (uint8 HWC)."""
    return np.asarray(img.convert('RGB').resize((IN_W, IN_H), Image.BILINEAR), dtype=np.uint8)


def normalise(hwc: np.ndarray) -> np.ndarray:
    """uint8 HWC -> float32 CHW: v * (1/255), then (x - mean) / std, in float32 (the port's toChw)."""
    x = hwc.astype(np.float32) * np.float32(1 / 255)
    x = (x - MEAN) / STD
    return np.ascontiguousarray(x.transpose(2, 0, 1))


def read_objects(split: str) -> list[dict]:
    with open(CACHE / split / 'objects.jsonl') as f:
        return [json.loads(line) for line in f if line.strip()]


def load_split(split: str, depth: str | None = None) -> dict:
    """Resized images (uint8 NCHW) of every scene of a split and, with depth='full', true depth at
    full size (float16 metres) or, with depth='target', the training target (log_disparity_target);
    cached as .npy beside the scenes (rebuilt when the scene list changes)."""
    scenes = read_objects(split)
    key = hashlib.sha256(json.dumps([s['id'] for s in scenes]).encode()).hexdigest()[:12]
    base = CACHE / split / f'cache-{key}'
    base.mkdir(exist_ok=True)

    def cached(name: str, make):
        path = base / f'{name}.npy'
        if not path.exists():
            tmp = base / f'{name}.tmp.npy'
            np.save(tmp, np.stack([make(s) for s in scenes]))
            os.replace(tmp, path)
        return np.load(path)

    out = {'scenes': scenes, 'images': cached('images', lambda s: resize_rgb(Image.open(CACHE / split / 'images' / f"{s['id']}.jpg")).transpose(2, 0, 1))}
    if depth == 'full':
        out['depth'] = cached('depth', lambda s: read_depth(split, s['id']).astype(np.float16))
    elif depth == 'target':
        out['target'] = cached('target', lambda s: log_disparity_target(read_depth(split, s['id'])))
        out['object_share'] = cached('object-share', lambda s: object_share(read_labels(split, s['id'])))
        out['cell_labels'] = cached('cell-labels', lambda s: cell_labels(read_labels(split, s['id'])))
    return out


def object_share(labels: np.ndarray) -> np.ndarray:
    """The share of each depth-output cell's pixels that belong to an object (named or clutter), at
    the resolution of log_disparity_target."""
    h, w = labels.shape
    k = h // (IN_H // DEPTH_STRIDE)
    return (labels > 0).reshape(h // k, k, w // k, k).mean(axis=(1, 3)).astype(np.float16)


MIXED_CELL = 255


def cell_labels(labels: np.ndarray) -> np.ndarray:
    """Each depth-output cell's entity (0 = background) where all its pixels share one, else
    MIXED_CELL, at the resolution of log_disparity_target."""
    h, w = labels.shape
    k = h // (IN_H // DEPTH_STRIDE)
    cells = labels.reshape(h // k, k, w // k, k).transpose(0, 2, 1, 3).reshape(h // k, w // k, k * k)
    same = (cells == cells[..., :1]).all(axis=2)
    return np.where(same, cells[..., 0], MIXED_CELL).astype(np.uint8)


def log_disparity_target(depth: np.ndarray) -> np.ndarray:
    """The depth model's training target: log(mean of 1 / depth over each output cell), [H/2, W/2]
    of the model input from the 640x480 depth (4x4 cells)."""
    h, w = depth.shape
    k = h // (IN_H // DEPTH_STRIDE)
    inv = 1.0 / np.maximum(depth, 1e-3)
    return np.log(inv.reshape(h // k, k, w // k, k).mean(axis=(1, 3))).astype(np.float32)


def read_depth(split: str, scene_id: str) -> np.ndarray:
    """True depth in metres (the renderer's millimetre PNG; 0 = no value, which never occurs)."""
    return np.asarray(Image.open(CACHE / split / 'depth' / f'{scene_id}.png'), dtype=np.float32) * 0.001


def read_labels(split: str, scene_id: str) -> np.ndarray:
    return np.asarray(Image.open(CACHE / split / 'labels' / f'{scene_id}.png').convert('L'), dtype=np.uint8)


# ---------------------------------------------------------------- networks

def conv_bn(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Encoder(nn.Module):
    """A 4x4 stride-4 patch stem (no full-resolution layer: on a CPU those cost most, for little),
    then strided 3x3 conv-BN-ReLU stages; features at strides 4, 8, 16 and 32. The stride-32
    features get the whole picture's mean added through a 1x1 conv (global context, for the depth
    model's furniture, which it put ~20% too far: docs/perception.md, "Which pairs have a depth order")."""

    def __init__(self, widths=(24, 48, 64, 96), coords: bool = False):
        super().__init__()
        w = widths
        # With coords, the stride-4 features get a learned function of each cell's position (its row
        # and column in [-1, 1], a constant of the exported graph): the camera looks down at a floor,
        # so where a pixel sits in the picture says much about its depth.
        self.coords = nn.Conv2d(2, w[0], 1, bias=False) if coords else None
        if coords:
            ys = torch.linspace(-1, 1, IN_H // 4)[:, None].expand(IN_H // 4, IN_W // 4)
            xs = torch.linspace(-1, 1, IN_W // 4)[None, :].expand(IN_H // 4, IN_W // 4)
            self.register_buffer('grid', torch.stack([ys, xs])[None].contiguous(), persistent=False)
        self.s4 = nn.Sequential(nn.Conv2d(3, w[0], 4, 4, bias=False), nn.BatchNorm2d(w[0]), nn.ReLU(inplace=True), conv_bn(w[0], w[0]))
        self.s8 = nn.Sequential(conv_bn(w[0], w[1], 2), conv_bn(w[1], w[1]))
        self.s16 = nn.Sequential(conv_bn(w[1], w[2], 2), conv_bn(w[2], w[2]), conv_bn(w[2], w[2]))
        self.s32 = nn.Sequential(conv_bn(w[2], w[3], 2), conv_bn(w[3], w[3]))
        self.context = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(w[3], w[3], 1), nn.ReLU(inplace=True))
        self.widths = w

    def forward(self, x):
        f4 = self.s4(x)
        if self.coords is not None:
            f4 = f4 + self.coords(self.grid)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        return f4, f8, f16, f32 + self.context(f32)


class Up(nn.Module):
    """Upsample the coarser map to the skip's size (nearest), project and add, then a 3x3 conv."""

    def __init__(self, cin: int, cskip: int, cout: int):
        super().__init__()
        self.proj = nn.Conv2d(cin, cout, 1)
        self.skip = nn.Conv2d(cskip, cout, 1)
        self.conv = conv_bn(cout, cout)

    def forward(self, x, skip):
        x = F.interpolate(self.proj(x), size=skip.shape[-2:], mode='nearest')
        return self.conv(x + self.skip(skip))


class Decoder(nn.Module):
    """From stride 32 back to stride 4 with the encoder's skips."""

    def __init__(self, w, mids=(64, 48), out: int = 32):
        super().__init__()
        self.up16 = Up(w[3], w[2], mids[0])
        self.up8 = Up(mids[0], w[1], mids[1])
        self.up4 = Up(mids[1], w[0], out)

    def forward(self, f4, f8, f16, f32):
        return self.up4(self.up8(self.up16(f32, f16), f8), f4)


class Detector(nn.Module):
    """Anchor-free, single scale (stride 4): a class heat map whose peaks are object centres, and at
    every cell the distances (input pixels) from the cell centre to the box's left, top, right and
    bottom edges. Outputs `heatmap` (sigmoid) [1, C, H/4, W/4] and `box` [1, 4, H/4, W/4]."""

    def __init__(self, classes: int = len(CLASSES)):
        super().__init__()
        self.enc = Encoder()
        self.dec = Decoder(self.enc.widths)
        # Separate branches for the heat map and the box distances: with one shared branch the boxes
        # of thin candles came out as wide as plates' (docs/perception.md).
        self.head = conv_bn(32, 32)
        self.heat = nn.Conv2d(32, classes, 1)
        self.box_head = conv_bn(32, 32)
        self.box = nn.Conv2d(32, 4, 1)
        nn.init.constant_(self.heat.bias, -4.6)  # start near 0.01, as CenterNet does

    def forward(self, x):
        y = self.dec(*self.enc(x))
        return torch.sigmoid(self.heat(self.head(y))), F.softplus(self.box(self.box_head(y))) * 16.0


class DepthNet(nn.Module):
    """Encoder-decoder to stride 4, then one learned 2x upsampling to stride 2; outputs relative
    inverse depth exp(x) > 0 [1, H/2, W/2] (larger = nearer), trained scale-invariant, so only
    ratios are meaningful."""

    def __init__(self, coords: bool = False, widths=(24, 48, 64, 96), mids=(64, 48), out: int = 32):
        super().__init__()
        self.enc = Encoder(widths, coords=coords)
        self.dec = Decoder(self.enc.widths, mids, out)
        self.up2 = nn.Sequential(nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False), conv_bn(out, out // 2))
        self.out = nn.Conv2d(out // 2, 1, 3, 1, 1)

    def log_disparity(self, x):
        return self.out(self.up2(self.dec(*self.enc(x))))[:, 0]

    def forward(self, x):
        return torch.exp(self.log_disparity(x))


class FlipAveraged(nn.Module):
    """What gsr-synth-depth's ONNX file computes: a DepthNet on the picture and on its mirror image in
    one batch, the mirrored prediction flipped back, the two averaged in log (a geometric mean of the
    inverse depths). Same input and output as the DepthNet, same weights, about twice its compute
    (docs/perception.md, "Which pairs have a depth order")."""

    def __init__(self, net: DepthNet):
        super().__init__()
        self.net = net

    def forward(self, x):
        both = self.net.log_disparity(torch.cat([x, x.flip(-1)]))
        return torch.exp(0.5 * (both[:1] + both[1:].flip(-1)))


class OnnxDepth:
    """A depth model's ONNX file, on one CPU thread, behind the callable train_depth.evaluate()
    expects (a batch-1 tensor in, the predicted inverse depth out)."""

    def __init__(self, path: Path):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=['CPUExecutionProvider'])

    def eval(self) -> None:
        pass

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(self.session.run(['predicted_depth'], {'pixel_values': x.numpy()})[0])


# ---------------------------------------------------------------- detector decoding (the port's)

def decode_class(heat: np.ndarray, box: np.ndarray, c: int, width: int, height: int, threshold: float, top_k: int) -> list[tuple[list[float], float]]:
    """Peaks of class c (a cell at least as high as its 8 neighbours, above threshold), best first
    (ties by cell order), at most top_k, as (xyxy box in original pixels clipped to the image, score).
    The same steps as decodeGsrSynthDet in src/perception/models/gsr-synth.ts."""
    h = heat[c]
    gh, gw = h.shape
    padded = np.pad(h, 1, constant_values=-np.inf)
    neigh = np.max(np.stack([padded[dy:dy + gh, dx:dx + gw] for dy in range(3) for dx in range(3)]), axis=0)
    ys, xs = np.nonzero((h >= neigh) & (h > threshold))
    scores = h[ys, xs]
    order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), int(ys[i]) * gw + int(xs[i])))[:top_k]
    sx, sy = np.float32(width / IN_W), np.float32(height / IN_H)
    out = []
    for i in order:
        y, x = int(ys[i]), int(xs[i])
        cx, cy = np.float32((x + 0.5) * DET_STRIDE), np.float32((y + 0.5) * DET_STRIDE)
        l, t, r, b = (box[k, y, x] for k in range(4))
        xyxy = [float(np.float32(cx - l) * sx), float(np.float32(cy - t) * sy), float(np.float32(cx + r) * sx), float(np.float32(cy + b) * sy)]
        xyxy = [min(max(xyxy[0], 0.0), width), min(max(xyxy[1], 0.0), height), min(max(xyxy[2], 0.0), width), min(max(xyxy[3], 0.0), height)]
        out.append((xyxy, float(h[y, x])))
    return out


# ---------------------------------------------------------------- training support

def set_seed(seed: int) -> np.random.Generator:
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    return np.random.default_rng(seed)


def lr_at(step: int, steps: int, base: float, warmup: int = 200) -> float:
    if step < warmup:
        return base * (step + 1) / warmup
    return base * 0.5 * (1 + np.cos(np.pi * (step - warmup) / max(1, steps - warmup)))


class Clock:
    """Wall time, this process's CPU time (user + system) and the machine's load average."""

    def __init__(self):
        self.wall0 = time.time()
        self.cpu0 = self._cpu()
        self.load0 = os.getloadavg()

    @staticmethod
    def _cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def record(self) -> dict:
        return {
            'wall_seconds': round(time.time() - self.wall0, 1),
            'cpu_seconds': round(self._cpu() - self.cpu0, 1),
            'load_average_start': [round(v, 2) for v in self.load0],
            'load_average_end': [round(v, 2) for v in os.getloadavg()],
        }


def environment(threads: int) -> dict:
    return {
        'torch': torch.__version__,
        'numpy': np.__version__,
        'python': platform.python_version(),
        'cpu': platform.processor() or platform.machine(),
        'threads': threads,
        'nice': os.nice(0),
    }


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_onnx(model: nn.Module, path: Path, output_names: list[str]) -> None:
    """Exports at the port's fixed input size, opset 17 (the legacy TorchScript exporter)."""
    model.eval()
    dummy = torch.zeros(1, 3, IN_H, IN_W)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.tmp.onnx')
    torch.onnx.export(model, (dummy,), str(tmp), input_names=['pixel_values'], output_names=output_names, opset_version=17, dynamo=False, do_constant_folding=True)
    os.replace(tmp, path)


def parity_inputs() -> list[dict]:
    """The lossless held-out pictures make-data.ts writes for the parity fixture: scene id, seed and
    index (the test renders the scene again from them), the sha256 of the full-size RGB bytes (which
    the test checks), and the resized uint8 HWC input."""
    seed = json.loads((CACHE / 'settings.json').read_text())['heldout']['seed']
    out = []
    for p in sorted((CACHE / 'parity').glob('*.png')):
        rgb = np.asarray(Image.open(p).convert('RGB'), dtype=np.uint8)
        resized = resize_rgb(Image.open(p))
        out.append({'scene': p.stem, 'seed': seed, 'index': int(p.stem.split('-')[1]), 'rgb_sha256': hashlib.sha256(rgb.tobytes()).hexdigest(), 'resized': resized,
                    'resized_sha256': hashlib.sha256(resized.tobytes()).hexdigest()})
    return out


def sample_positions(n_values: int, count: int, seed: int) -> list[int]:
    return sorted(np.random.default_rng(seed).choice(n_values, size=min(count, n_values), replace=False).tolist())


def update_manifest(model_id: str, onnx_path: Path) -> None:
    """Writes the committed ONNX file's size and sha256 into models/<id>.json."""
    path = REPO / 'models' / f'{model_id}.json'
    manifest = json.loads(path.read_text())
    manifest['files'][0]['bytes'] = onnx_path.stat().st_size
    manifest['files'][0]['sha256'] = sha256(onnx_path)
    path.write_text(json.dumps(manifest, indent=2) + '\n')


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.tmp')
    tmp.write_text(json.dumps(value, indent=2) + '\n')
    os.replace(tmp, path)


# ---------------------------------------------------------------- the training run both scripts share

def depth_model_args(description: str | None = None) -> argparse.Namespace:
    """The depth study scripts' arguments: --model (default: the shipped depth model's ONNX file) and --json."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument('--model', default=str(REPO / 'models' / 'gsr-synth-depth' / 'model.onnx'))
    ap.add_argument('--json', help='also write the figures here')
    return ap.parse_args()


def parse_args(model_id: str, fixture: str, batch: int, steps: int, extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    if extra:
        extra(ap)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--steps', type=int, default=steps)
    ap.add_argument('--batch', type=int, default=batch)
    ap.add_argument('--lr', type=float, default=2e-3)
    ap.add_argument('--threads', type=int, default=1, help='torch threads (a training is deterministic for a seed and a thread count; the shipped models used 1)')
    ap.add_argument('--checkpoint', help='where the trained weights are saved; when the file exists, training is skipped and the run evaluates and exports it')
    ap.add_argument('--out', default=str(REPO / 'models' / model_id))
    ap.add_argument('--fixture', default=str(REPO / 'test' / 'fixtures' / 'perception' / 'gsr-synth' / fixture))
    ap.add_argument('--no-manifest', action='store_true', help=f'do not write size and sha256 into models/{model_id}.json (a repeat run)')
    return ap.parse_args()


def train(model: nn.Module, a: argparse.Namespace, clock: Clock, n: int, rng: np.random.Generator,
          losses: Callable[[nn.Module, np.ndarray], tuple[torch.Tensor, dict[str, torch.Tensor]]]) -> tuple[nn.Module, list[dict]]:
    """AdamW with lr_at's schedule for a.steps steps (none when a.checkpoint exists: its weights are
    loaded instead; a new checkpoint is saved after training). `losses(model, idx)` returns the loss
    to minimise and its named parts, logged as `<name>_loss` averaged over every 100 steps."""
    if a.checkpoint and Path(a.checkpoint).exists():
        # A finished training's weights (written below): evaluate and export again without training;
        # its steps, losses and times come from the file beside them, for the record.
        model.load_state_dict(torch.load(a.checkpoint))
        done = checkpoint_log(a.checkpoint)
        a.steps, a.trained = (done['steps'], done) if done else (0, None)
        return model, done['losses'] if done else []
    model = model.to(memory_format=torch.channels_last)  # measured about 1.5x faster on this CPU
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    log = []
    acc: dict[str, float] = {}
    model.train()
    for step in range(a.steps):
        for group in opt.param_groups:
            group['lr'] = lr_at(step, a.steps, a.lr)
        loss, parts = losses(model, rng.integers(0, n, a.batch))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        for k, v in parts.items():
            acc[k] = acc.get(k, 0.0) + v.item()
        if (step + 1) % 100 == 0:
            row = {'step': step + 1, **{f'{k}_loss': round(v / 100, 4) for k, v in acc.items()}, **{k: v for k, v in clock.record().items() if k in ('wall_seconds', 'cpu_seconds')}}
            log.append(row)
            print(json.dumps(row), flush=True)
            acc = {}
    model = model.to(memory_format=torch.contiguous_format)
    if a.checkpoint and not Path(a.checkpoint).exists():
        Path(a.checkpoint).parent.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), a.checkpoint)
        write_json(Path(f'{a.checkpoint}.json'), {'steps': a.steps, 'losses': log, 'time': clock.record()})
    return model, log


def checkpoint_log(checkpoint: str) -> dict | None:
    """The steps, losses and times of the training that wrote `checkpoint` (beside it, as .json)."""
    path = Path(f'{checkpoint}.json')
    return json.loads(path.read_text()) if path.exists() else None


def training_record(model_id: str, script: str, a: argparse.Namespace, model: nn.Module, onnx_path: Path, log: list[dict], metrics: dict, clock: Clock,
                    loss: str | None, parity: tuple[str, object]) -> dict:
    """The training record (training/README.md); `loss` describes the loss where the script says it,
    `parity` names and gives the largest ONNX-vs-PyTorch difference."""
    return {
        'model': model_id,
        'script': script,
        'data': json.loads((CACHE / 'settings.json').read_text()),
        'seed': a.seed,
        'steps': a.steps,
        'batch': a.batch,
        'optimizer': {'name': 'AdamW', 'lr': a.lr, 'weight_decay': 1e-4, 'schedule': '200-step linear warm-up, then cosine to 0'},
        **({'loss': loss} if loss is not None else {}),
        'augmentation': 'horizontal flip (p 0.5); brightness 0.75-1.25, per-channel gain 0.9-1.1, contrast 0.8-1.2',
        'parameters': sum(p.numel() for p in model.parameters()),
        'onnx': {'file': 'model.onnx', 'bytes': onnx_path.stat().st_size, 'sha256': sha256(onnx_path), parity[0]: parity[1]},
        'losses': log,
        'final_loss': log[-1] if log else None,
        'heldout': metrics,
        'environment': environment(a.threads),
        # From a checkpoint: the training's time, and this run's (evaluation and export) apart.
        **({'time': a.trained['time'], 'evaluation_time': clock.record()} if getattr(a, 'trained', None) else {'time': clock.record()}),
    }
