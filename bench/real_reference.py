#!/usr/bin/env python3
"""The Python pipeline that `npm run bench -- annotate-real` measures gsr-bench against, and the
comparison of the two outputs (docs/perception.md, "Speed at real model size").

    python3 bench/real_reference.py run JOB.json      # prints one JSON line: timings, RSS, outputs
    python3 bench/real_reference.py compare JOB.json GSR_DIR REF.json   # prints the parity figures

It does what `gsr annotate` does, the way a researcher would with Transformers: PIL decoding, the
PIL image processors, the torch models of bench/real_models.py (same weights as the ONNX files),
Transformers' post-processing; one GroundingDINO pass per phrase (the image pre-processed once),
SAM's image embedding once per image and one prompt per found box, one depth map per image; then a
16-bit depth PNG (the same quantisation as src/formats/depth-png.ts) and COCO RLE masks (pycocotools).
Threads: torch.set_num_threads(job.threads), one inter-op thread.
"""
import json
import os
import resource
import sys
import time

import numpy as np
import torch
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import real_models  # noqa: E402

MAX_BOXES = 10  # gsr's GroundingDINO `max_boxes` default
# GroundingDINO keeps the encoder's 900 best proposals. Where the 900th and 901st best logits are
# closer than float32's own error, any float32 implementation may keep another set, and the decoder's
# self-attention then moves every row a little: torch float32 against torch float64 differed by 0.022
# in logits on a padded photo whose gap was 3.1e-4 (its encoder logits 1.8e-4 apart). Objects from
# such a pass are compared apart (docs/perception.md, "Speed at real model size").
SELECTION_MARGIN = 1e-3


class Clock:
    def __init__(self):
        self.totals = {}

    def __call__(self, stage, fn, *a, **kw):
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            e = self.totals.setdefault(stage, {'ms': 0.0, 'calls': 0})
            e['ms'] += (time.perf_counter() - t) * 1000
            e['calls'] += 1


def decode(path):
    return ImageOps.exif_transpose(Image.open(path)).convert('RGB')


def iou(a, b):
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def clip_box(b, w, h):
    x0, x1 = sorted((b[0], b[2]))
    y0, y1 = sorted((b[1], b[3]))
    return [min(max(x0, 0), w), min(max(y0, 0), h), min(max(x1, 0), w), min(max(y1, 0), h)]


def quantize_depth(d, metric):
    """src/formats/depth-png.ts's quantizeDepth: mm for metres, else the maximum maps to 65535."""
    finite = np.isfinite(d)
    if metric:
        scale = 0.001
    else:
        m = float(d[finite].max()) if finite.any() else 0.0
        scale = m / 65535 if m > 0 else 1.0
    q = np.zeros(d.shape, np.uint16)
    ok = finite & (d > 0)
    q[ok] = np.minimum(65535, np.floor(d[ok] / scale + 0.5)).astype(np.uint16)
    return q, scale


class Pipeline:
    def __init__(self, job):
        from transformers import BertTokenizerFast
        from transformers.models.dpt.image_processing_pil_dpt import DPTImageProcessorPil
        from transformers.models.grounding_dino.image_processing_pil_grounding_dino import GroundingDinoImageProcessorPil
        from transformers.models.grounding_dino.processing_grounding_dino import GroundingDinoProcessor
        from transformers.models.sam.image_processing_pil_sam import SamImageProcessorPil
        from transformers.models.zoedepth.image_processing_pil_zoedepth import ZoeDepthImageProcessorPil
        import PIL
        d = job['models_dir']
        self.job = job
        self.detector = job.get('detector')
        self.segmenter = job.get('segmenter')
        self.depth = job.get('depth')
        if self.detector:
            tok = BertTokenizerFast.from_pretrained(os.path.join(d, self.detector))
            self.gd_proc = GroundingDinoProcessor(image_processor=GroundingDinoImageProcessorPil(), tokenizer=tok)
            self.gd = real_models.load_model(d, self.detector)
        if self.segmenter:
            self.sam_proc = SamImageProcessorPil()
            self.sam = real_models.load_model(d, self.segmenter)
        if self.depth == 'zoedepth-nyu-kitti':
            real_models.parity.patch_zoedepth()
            self.depth_proc = ZoeDepthImageProcessorPil(
                do_pad=True, do_rescale=True, rescale_factor=1 / 255, do_normalize=True, image_mean=[0.5] * 3,
                image_std=[0.5] * 3, do_resize=True, size={'height': 384, 'width': 512}, resample=PIL.Image.BILINEAR,
                keep_aspect_ratio=True, ensure_multiple_of=32)
        elif self.depth:
            self.depth_proc = DPTImageProcessorPil(
                do_resize=True, size={'height': 518, 'width': 518}, keep_aspect_ratio=True, ensure_multiple_of=14,
                resample=PIL.Image.BICUBIC, do_rescale=True, do_normalize=True, image_mean=[0.485, 0.456, 0.406],
                image_std=[0.229, 0.224, 0.225], do_pad=False)
        if self.depth:
            self.depth_model = real_models.load_model(d, self.depth)
        self.clock = Clock()

    def detect(self, img, pixels, phrase):
        c = self.clock
        text = c('pre:grounding-dino-tiny', self.gd_proc.tokenizer, phrase.lower().strip() + '.', return_tensors='pt')
        with torch.no_grad():
            o = c('model:grounding-dino-tiny', self.gd, **text, **pixels)
            best = torch.topk(o.enc_outputs_class[0].max(-1).values, self.gd.config.num_queries + 1).values
        gap = float(best[-2] - best[-1])
        r = c('post:grounding-dino-tiny', self.gd_proc.post_process_grounded_object_detection, o, text['input_ids'],
              threshold=self.job['box_threshold'], text_threshold=self.job['text_threshold'],
              target_sizes=[(img.height, img.width)])[0]
        scores = r['scores'].numpy()
        order = np.argsort(-scores, kind='stable')[:MAX_BOXES]
        return [{'box': r['boxes'][i].tolist(), 'score': float(scores[i]), 'selection_gap': gap} for i in order]

    def image(self, item):
        """One image: as src/annotate/annotate-image.ts (detections, depth, embedding, a mask per box)."""
        c = self.clock
        img = c('decode', decode, item['path'])
        w, h = img.width, img.height
        picks = []
        if self.detector:
            pad = self.job.get('gd_pad')  # the export's traced size (bench/real_models.py, GD_PAD)
            kw = {'pad_size': {'height': pad[0], 'width': pad[1]}} if pad else {}
            pixels = c('pre:grounding-dino-tiny', self.gd_proc.image_processor, images=img, return_tensors='pt', **kw)
            by_phrase, taken = {}, []
            for obj in item['objects']:
                if obj['phrase'] not in by_phrase:
                    by_phrase[obj['phrase']] = self.detect(img, dict(pixels), obj['phrase'])
                dets = by_phrase[obj['phrase']]
                free = [d for d in dets if not any(t is d or iou(t['box'], d['box']) >= 0.5 for t in taken)]
                chosen = free[0] if free else None
                if chosen:
                    taken.append(chosen)
                picks.append({'role': obj['role'], 'phrase': obj['phrase'], 'chosen': chosen})
        out = {'id': item['id'], 'stem': item['stem'], 'objects': []}
        depth = None
        if self.depth:
            pv = c(f'pre:{self.depth}', self.depth_proc, images=img, return_tensors='pt')
            with torch.no_grad():
                o = c(f'model:{self.depth}', self.depth_model, pixel_values=pv['pixel_values'])
            kw = {'source_sizes': [(h, w)]} if self.depth == 'zoedepth-nyu-kitti' else {}
            depth = c(f'post:{self.depth}', self.depth_proc.post_process_depth_estimation, o, target_sizes=[(h, w)], **kw)[0]['predicted_depth'].numpy()
        found = [p for p in picks if p['chosen']]
        if self.segmenter and found:
            sam_in = c(f'pre:{self.segmenter}', self.sam_proc, images=img, return_tensors='pt')
            with torch.no_grad():
                emb = c(f'model:{self.segmenter} encoder', self.sam.get_image_embeddings, sam_in['pixel_values'])
        from pycocotools import mask as mask_utils
        for p in found:
            box = clip_box(p['chosen']['box'], w, h)
            rec = {'role': p['role'], 'phrase': p['phrase'], 'box': box, 'score': p['chosen']['score'], 'selection_gap': p['chosen']['selection_gap']}
            if self.segmenter:
                rh, rw = (int(v) for v in sam_in['reshaped_input_sizes'][0])
                scaled = torch.tensor([[[box[0] * rw / w, box[1] * rh / h, box[2] * rw / w, box[3] * rh / h]]], dtype=torch.float32)
                with torch.no_grad():
                    o = c(f'model:{self.segmenter} decoder', self.sam, image_embeddings=emb, input_boxes=scaled, multimask_output=True)
                masks = c(f'post:{self.segmenter}', self.sam_proc.post_process_masks, o.pred_masks, sam_in['original_sizes'], sam_in['reshaped_input_sizes'])[0]
                scores = o.iou_scores[0, 0].numpy()
                best = int(np.argmax(scores))
                m = np.asfortranarray(masks[0, best].numpy().astype(np.uint8))
                rle = c('post:annotate', mask_utils.encode, m)
                rec['segmentation'] = {'size': rle['size'], 'counts': rle['counts'].decode()}
                rec['mask_score'] = float(scores[best])
            out['objects'].append(rec)
        if depth is not None:
            q, scale = quantize_depth(depth, self.depth == 'zoedepth-nyu-kitti')
            path = os.path.join(self.job['out_dir'], 'depth', f"{item['stem']}.png")
            c('write', lambda: Image.fromarray(q).save(path))
            out['depth_file'], out['depth_scale'] = path, scale
        return out, depth


def run(job):
    torch.set_num_threads(job['threads'])
    torch.set_num_interop_threads(1)
    os.makedirs(os.path.join(job['out_dir'], 'depth'), exist_ok=True)
    t0 = time.perf_counter()
    p = Pipeline(job)
    load_s = time.perf_counter() - t0
    results, depths = [], {}
    t1 = time.perf_counter()
    for item in job['photos']:
        out, depth = p.image(item)
        results.append(out)
        if depth is not None:
            depths[item['stem']] = depth.astype(np.float32)
    loop_s = time.perf_counter() - t1
    p.clock('write', lambda: json.dump(results, open(os.path.join(job['out_dir'], 'results.json'), 'w')))
    # Float depth maps for the comparison, written after the timed loop.
    for k, d in depths.items():
        np.save(os.path.join(job['out_dir'], 'depth', f'{k}.npy'), d)
    return {
        'images': len(job['photos']), 'load_seconds': round(load_s, 2), 'loop_seconds': round(loop_s, 2),
        'images_per_second': round(len(job['photos']) / loop_s, 4),
        'stages_ms': {k: {'ms': round(v['ms'], 1), 'calls': v['calls']} for k, v in p.clock.totals.items()},
        'peak_rss_mib': round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        'threads': torch.get_num_threads(), 'torch': torch.__version__,
    }


def compare(job, gsr_dir, ref_dir):
    """Parity of gsr's annotations.json and depth PNGs with the reference's outputs."""
    from pycocotools import mask as mask_utils
    ref = {r['id']: r for r in json.load(open(os.path.join(ref_dir, 'results.json')))}
    if os.path.exists(os.path.join(gsr_dir, 'annotations.json')):
        coco = json.load(open(os.path.join(gsr_dir, 'annotations.json')))
    else:  # depth-only run: no annotations, the PNGs' scales by item id
        scales = json.load(open(os.path.join(gsr_dir, 'depth-scales.json')))
        coco = {'images': [{'id': i, 'item_id': k, **v} for i, (k, v) in enumerate(scales.items())], 'annotations': []}
    images = {im['id']: im for im in coco['images']}
    by_item = {im['item_id']: im for im in coco['images']}
    anns = {}
    for a in coco['annotations']:
        anns.setdefault(images[a['image_id']]['item_id'], []).append(a)
    worst = {'box_shift_px': 0.0, 'score_diff': 0.0, 'score_diff_close_selection': 0.0, 'mask_iou_min': 1.0,
             'mask_pixels_differing_max': 0, 'depth_max_abs_over_range': 0.0}
    problems = []
    objects = close = 0
    for item_id, r in ref.items():
        im = by_item.get(item_id)
        if im is None:
            problems.append(f'{item_id}: not in gsr annotations')
            continue
        mine = {(a['role'], a['phrase']): a for a in anns.get(item_id, [])}
        for o in r['objects']:
            a = mine.pop((o['role'], o['phrase']), None)
            if a is None:
                problems.append(f"{item_id} {o['role']} {o['phrase']}: found by the reference only")
                continue
            objects += 1
            x, y, bw, bh = a['bbox']
            shift = max(abs(x - o['box'][0]), abs(y - o['box'][1]), abs(x + bw - o['box'][2]), abs(y + bh - o['box'][3]))
            worst['box_shift_px'] = max(worst['box_shift_px'], shift)
            key = 'score_diff_close_selection' if o.get('selection_gap', float('inf')) < SELECTION_MARGIN else 'score_diff'
            close += key != 'score_diff'
            worst[key] = max(worst[key], abs(a['score'] - o['score']))
            if 'segmentation' in o:
                g = a['segmentation']
                g = {'size': g['size'], 'counts': g['counts'].encode()}
                rr = {'size': o['segmentation']['size'], 'counts': o['segmentation']['counts'].encode()}
                worst['mask_iou_min'] = min(worst['mask_iou_min'], float(mask_utils.iou([g], [rr], [0])[0][0]))
                diff = int(np.logical_xor(mask_utils.decode(g), mask_utils.decode(rr)).sum())
                worst['mask_pixels_differing_max'] = max(worst['mask_pixels_differing_max'], diff)
        for key in mine:
            problems.append(f'{item_id} {key[0]} {key[1]}: found by gsr only')
        if 'depth_file' in r:
            d_ref = np.load(os.path.join(ref_dir, 'depth', f"{r['stem']}.npy"))
            q = np.asarray(Image.open(os.path.join(gsr_dir, im['depth_file'])), dtype=np.float64)
            d_gsr = q * im['depth_scale']
            rng = float(d_ref.max() - d_ref.min()) or 1.0
            # Both are quantised to 16 bits; half a step of gsr's scale is allowed on top.
            err = float(np.abs(d_gsr - np.where(d_ref > 0, d_ref, 0)).max())
            worst['depth_max_abs_over_range'] = max(worst['depth_max_abs_over_range'], max(0.0, err - im['depth_scale'] / 2) / rng)
    return {'objects_compared': objects, 'objects_close_selection': close, 'selection_margin': SELECTION_MARGIN,
            'worst': worst, 'problems': problems}


def main():
    cmd = sys.argv[1]
    job = json.load(open(sys.argv[2]))
    if cmd == 'run':
        print(json.dumps(run(job)))
    elif cmd == 'compare':
        print(json.dumps(compare(job, sys.argv[3], sys.argv[4])))
    else:
        sys.exit(f'unknown command {cmd}')


if __name__ == '__main__':
    main()
