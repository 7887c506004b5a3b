"""Evaluates a depth model's ONNX file, run as the port runs it, on the held-out scenes with the
figures and protocol of train_depth.py's training record (AbsRel, delta1, the subject-object order
in the true masks and boxes). With GSR_SYNTH_CACHE set to another folder make-data.ts rendered
(another --heldout-seed), it checks a model on scenes that no choice was made on (training/README.md).

  GSR_SYNTH_CACHE=.cache/gsr-synth-confirm python training/evaluate_depth.py [--model FILE.onnx] [--json FILE]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gsr_synth as g  # noqa: E402
from train_depth import evaluate  # noqa: E402


def main() -> None:
    a = g.depth_model_args()
    torch.set_num_threads(1)
    settings = json.loads((g.CACHE / 'settings.json').read_text())
    metrics = evaluate(g.OnnxDepth(Path(a.model)), g.load_split('heldout', depth='full'), 'heldout')
    out = {'model': a.model, 'sha256': g.sha256(Path(a.model)), 'data': {'cache': str(g.CACHE), **settings['heldout']}, 'heldout': metrics}
    if a.json:
        g.write_json(Path(a.json), out)
    pct = lambda v: '-' if v is None else f'{100 * v:.1f}%'  # noqa: E731
    print(f"{a.model} ({out['sha256'][:12]}) on {metrics['scenes']} held-out scenes, seed {settings['heldout']['seed']}: AbsRel {metrics['absrel']:.4f}, delta1 {pct(metrics['delta1'])}")
    for region, groups in metrics['depth_order'].items():
        print(f"order in the true {'masks' if region == 'mask' else 'boxes'}:", ', '.join(f"{k} {pct(v['accuracy'])} ({v['agree']}/{v['pairs']})" for k, v in groups.items()))


if __name__ == '__main__':
    main()
