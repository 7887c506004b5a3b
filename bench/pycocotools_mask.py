#!/usr/bin/env python3
"""The pycocotools side of bench/scoring.bench.ts: times mask.encode and mask.iou on the masks the
bench made, so both sides run on the same input in the same run.

Called by the bench as `PYTHON bench/pycocotools_mask.py INPUT.json`; INPUT names a file of packed
row-major bits (numpy.packbits) and holds the bench's RLE strings. Then, for each line `round` on
stdin, it times one encode of every mask and one IoU matrix and prints them as one JSON line, so the
bench can take its own timings in between (a burst of other jobs on a shared machine then lands on
both sides alike). On `end` it prints the versions, whether the strings matched and the matrix.
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
    encoded, matrix = [], None
    for line in sys.stdin:
        if line.strip() == 'end':
            break
        # Row-major input, as the TypeScript side gets: the Fortran copy is part of the cost.
        encoded, ews, ecs = timed(lambda: [M.encode(np.asfortranarray(m)) for m in masks])
        matrix, iws, ics = timed(lambda: M.iou(rles, rles, crowd))
        print(json.dumps({'encode': {'wall_s': ews, 'cpu_s': ecs}, 'iou': {'wall_s': iws, 'cpu_s': ics}}), flush=True)
    json.dump({
        'pycocotools': version('pycocotools'),
        'numpy': np.__version__,
        'encode_matches': len(encoded) == n and all(e['counts'].decode() == c for e, c in zip(encoded, spec['counts'])),
        # float64 little-endian, row d holds IoU(d, g) for every g.
        'iou_matrix_base64': base64.b64encode(np.ascontiguousarray(matrix, dtype='<f8').tobytes()).decode(),
    }, sys.stdout)
    sys.stdout.flush()


main()
