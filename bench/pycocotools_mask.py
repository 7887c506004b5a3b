#!/usr/bin/env python3
"""The pycocotools side of bench/scoring.bench.ts: times mask.encode and mask.iou on the masks the
bench made, so both sides run on the same input in the same run.

Called by the bench as `PYTHON bench/pycocotools_mask.py INPUT.json`; INPUT names a file of packed
row-major bits (numpy.packbits) and holds the bench's RLE strings. Prints one JSON object.
Needs numpy and pycocotools, e.g. `python3 -m venv DIR && DIR/bin/pip install pycocotools`, then
GSR_BENCH_PYTHON=DIR/bin/python npm run bench -- scoring.
"""
import base64
import json
import sys
import time
from importlib.metadata import version

import numpy as np
from pycocotools import mask as M


def timed(fn):
    """Result, wall seconds and CPU seconds of fn()."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main():
    spec = json.load(open(sys.argv[1]))
    n, h, w = spec['masks'], spec['height'], spec['width']
    bits = np.fromfile(spec['bits'], dtype=np.uint8)
    masks = np.unpackbits(bits)[: n * h * w].reshape(n, h, w)
    rles = [{'size': [h, w], 'counts': c.encode()} for c in spec['counts']]
    crowd = [0] * n
    encode, iou = [], []
    for _ in range(spec['runs']):
        # Row-major input, as the TypeScript side gets: the Fortran copy is part of the cost.
        encoded, ws, cs = timed(lambda: [M.encode(np.asfortranarray(m)) for m in masks])
        encode.append({'wall_s': ws, 'cpu_s': cs})
        matrix, ws, cs = timed(lambda: M.iou(rles, rles, crowd))
        iou.append({'wall_s': ws, 'cpu_s': cs})
    json.dump({
        'pycocotools': version('pycocotools'),
        'numpy': np.__version__,
        'encode_runs': encode,
        'iou_runs': iou,
        'encode_matches': all(e['counts'].decode() == c for e, c in zip(encoded, spec['counts'])),
        # float64 little-endian, row d holds IoU(d, g) for every g.
        'iou_matrix_base64': base64.b64encode(np.ascontiguousarray(matrix, dtype='<f8').tobytes()).decode(),
    }, sys.stdout)


main()
