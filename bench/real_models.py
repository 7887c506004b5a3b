#!/usr/bin/env python3
"""Real-size random-weight perception models for `npm run bench -- annotate-real` (built by
`npm run bench:models`; docs/perception.md, "Speed at real model size").

Speed does not depend on the weights: each model here is the real architecture at its real size
(layer counts, widths, patch sizes of the public checkpoints' config.json), initialised by
Transformers with a fixed seed, saved as torch weights (for the Python reference pipeline,
bench/real_reference.py) and exported to ONNX with the public exports' input/output names
(models/<id>.json), so `gsr annotate` loads them from `--models-dir <cache>` like the real files.

    python3 bench/real_models.py [--out DIR] [--threads N] [--int8-only] [MODEL ...]   # default: every model
    MODEL: sam-vit-base depth-anything-v2-small zoedepth-nyu-kitti grounding-dino-tiny

Each model also gets `<file>.int8.onnx`: onnxruntime's dynamic quantization (int8 weights of
MatMul/Gemm, activations quantised per call) of the exported fp32 file; `--precision int8` picks it.
`--int8-only` makes only the int8 files of built models again.
A model whose files exist is skipped (delete its folder to rebuild). Layout of DIR (default
.cache/real-models, git-ignored): <id>/<manifest file>, <id>/<stem>.int8.onnx, <id>/torch/.

Export workarounds (the maths is unchanged; each is checked against torch after export):
- Depth Anything: the parity generator's depth-head patch (no int() on the patch grid).
- SAM: the vision attention adds the relative positions to the logits by two broadcast additions
  (Transformers 4.x's form), not through a full-size bias built first (one 768 MB tensor less in each
  global block; patch_sam_attention).
- ZoeDepth nyu-kitti: its router picks the NYU or KITTI head with `.item()`, which a trace would
  freeze; the export computes both heads and selects with torch.where on the same argmax.
- GroundingDINO: `torch.isin` (no ONNX symbolic in torch 2.13's exporter) is computed as a broadcast
  equality, and the text mask's cummax/cummin (no symbolic either) as masked max/min over earlier/later
  positions; both give identical integers (checked on sample prompts before exporting). GroupNorm
  takes its means in two levels (patch_group_norm: onnxruntime's one-pass float32 sums were 8.6e-5
  off where torch is 6e-7), and the deformable attention sums its levels as they come instead of
  stacking them (patch_deformable_attention: 1.4 GB less peak memory). The text tokens use the
  parity fixture's small WordPiece vocabulary (the real 30,522 pieces cannot be fetched here) inside
  the real BERT-base text model (30,522 rows of embeddings).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, 'test', 'fixtures', 'perception', 'parity'))
import make_parity_reference as parity  # noqa: E402  (shared export helpers and patches)

SEED = 0
DEFAULT_OUT = os.path.join(REPO, '.cache', 'real-models')
TOKENIZER_DIR = os.path.join(REPO, 'test', 'fixtures', 'perception', 'parity', 'tokenizer')
# GroundingDINO's ONNX graph holds only for the image size it was traced at: torch 2.13's exporter
# freezes the feature-map sizes (`spatial_shapes` from a Python list, Swin's padding decisions). So
# every image is padded (zeros, pixel_mask 0) to this size, which holds any 800-short-side resize
# up to 1333 wide, in gsr (GroundingDINO `pad_size` parameter) and in the reference (the processor's
# `pad_size`) alike; the text side stays dynamic.
GD_PAD = (800, 1333)
MODELS = ['sam-vit-base', 'depth-anything-v2-small', 'zoedepth-nyu-kitti', 'grounding-dino-tiny']


# ---------------------------------------------------------------- configurations

def sam_config():
    from transformers import SamConfig, SamVisionConfig
    # facebook/sam-vit-base: ViT-B/16, 12 layers, width 768, 12 heads, windows of 14, global attention
    # in blocks 2, 5, 8, 11 (SamVisionConfig's defaults); the prompt encoder and mask decoder defaults.
    # initializer_range: the vision config's default, 1e-10, makes every random weight ~1e-10, so the
    # encoder's activations are ~1e-22 and a fifth of them denormal floats, which CPUs compute up to
    # 20x slower; trained weights are not like that. 0.02 (SamConfig's and the other models' range)
    # keeps the values normal, so the bench times the model and not the CPU's denormal path.
    return SamConfig(vision_config=SamVisionConfig(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                                   mlp_dim=3072, window_size=14, global_attn_indexes=[2, 5, 8, 11],
                                                   initializer_range=0.02))


def depth_anything_config():
    from transformers import DepthAnythingConfig, Dinov2Config
    # depth-anything/Depth-Anything-V2-Small-hf: DINOv2 ViT-S/14 (12 layers, width 384, 6 heads).
    backbone = Dinov2Config(hidden_size=384, num_hidden_layers=12, num_attention_heads=6, mlp_ratio=4, patch_size=14,
                            image_size=518, out_indices=[3, 6, 9, 12], reshape_hidden_states=False,
                            apply_layernorm=True, layerscale_value=1.0)
    return DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=384, reassemble_factors=[4, 2, 1, 0.5],
                               neck_hidden_sizes=[48, 96, 192, 384], fusion_hidden_size=64, head_hidden_size=32,
                               head_in_index=-1, depth_estimation_type='relative')


def zoedepth_config():
    from transformers import BeitConfig, ZoeDepthConfig
    # Intel/zoedepth-nyu-kitti: BEiT-L/16 at 384 (24 layers, width 1024, 16 heads, relative position
    # bias), features after layers 6, 12, 18, 24; two metric heads (NYU 10 m, KITTI 80 m) and a router.
    backbone = BeitConfig(image_size=384, patch_size=16, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                          intermediate_size=4096, use_relative_position_bias=True, use_absolute_position_embeddings=False,
                          use_mask_token=False, layer_scale_init_value=0.1, reshape_hidden_states=False,
                          out_indices=[6, 12, 18, 24])
    return ZoeDepthConfig(backbone_config=backbone, readout_type='project', reassemble_factors=[4, 2, 1, 0.5],
                          neck_hidden_sizes=[256, 512, 1024, 1024], fusion_hidden_size=256, bottleneck_features=256,
                          num_relative_features=32, bin_embedding_dim=128, num_attractors=[16, 8, 4, 1],
                          attractor_alpha=1000, attractor_gamma=2, attractor_kind='mean', min_temp=0.0212, max_temp=50.0,
                          bin_centers_type='softplus',
                          bin_configurations=[{'name': 'nyu', 'n_bins': 64, 'min_depth': 1e-3, 'max_depth': 10.0},
                                              {'name': 'kitti', 'n_bins': 64, 'min_depth': 1e-3, 'max_depth': 80.0}],
                          num_patch_transformer_layers=4, patch_transformer_hidden_size=128,
                          patch_transformer_intermediate_size=1024, patch_transformer_num_attention_heads=4)


def grounding_dino_config():
    from transformers import GroundingDinoConfig
    # IDEA-Research/grounding-dino-tiny: Swin-T backbone (GroundingDinoConfig's default: width 96,
    # depths 2-2-6-2, stages 2-4 out), BERT-base text model, d_model 256, 6 + 6 layers, 900 queries.
    # The multi-scale deformable attention runs in plain torch (the CUDA kernel is not built here).
    return GroundingDinoConfig(disable_custom_kernels=True)


def make_model(model_id):
    """The torch model with its fixed-seed random weights (Transformers' own initialisation)."""
    from transformers import DepthAnythingForDepthEstimation, GroundingDinoForObjectDetection, SamModel, ZoeDepthForDepthEstimation
    torch.manual_seed(SEED)
    cls, cfg = {
        'sam-vit-base': (SamModel, sam_config),
        'depth-anything-v2-small': (DepthAnythingForDepthEstimation, depth_anything_config),
        'zoedepth-nyu-kitti': (ZoeDepthForDepthEstimation, zoedepth_config),
        'grounding-dino-tiny': (GroundingDinoForObjectDetection, grounding_dino_config),
    }[model_id]
    model = cls(cfg()).eval()
    if model_id == 'grounding-dino-tiny':
        # Transformers' initialisation gives text-box logits of +-30, whose float32 sigmoid is exactly
        # 1.0 for many boxes at once, so "the best box" would be a tie. The decoder's output LayerNorm
        # (which feeds only the class and box heads) is scaled to 0.1 to bring the logits to +-3.
        with torch.no_grad():
            model.model.decoder.layer_norm.weight.mul_(0.1)
    return model


def load_model(out, model_id):
    """The saved torch model (what the Python reference pipeline runs)."""
    from transformers import DepthAnythingForDepthEstimation, GroundingDinoForObjectDetection, SamModel, ZoeDepthForDepthEstimation
    cls = {'sam-vit-base': SamModel, 'depth-anything-v2-small': DepthAnythingForDepthEstimation,
           'zoedepth-nyu-kitti': ZoeDepthForDepthEstimation, 'grounding-dino-tiny': GroundingDinoForObjectDetection}[model_id]
    return cls.from_pretrained(os.path.join(out, model_id, 'torch')).eval()


# ---------------------------------------------------------------- export patches

def patch_zoedepth_router():
    """Both metric heads computed, the router's choice applied with torch.where (no `.item()`)."""
    from transformers.models.zoedepth import modeling_zoedepth as mz
    cls = mz.ZoeDepthMultipleMetricDepthEstimationHeads

    def forward(self, outconv_activation, bottleneck, feature_blocks, relative_depth):
        x = self.conv2(bottleneck)
        embedding = self.patch_transformer(x)[:, 0, :]
        domain_logits = self.mlp_classifier(embedding)
        domain_vote = torch.softmax(domain_logits.sum(dim=0, keepdim=True), dim=-1)
        choice = torch.argmax(domain_vote, dim=-1).reshape(())
        outs = []
        for conf in self.bin_configurations:
            name, min_depth, max_depth = conf['name'], conf['min_depth'], conf['max_depth']
            _, seed_bin_centers = self.seed_bin_regressors[name](x)
            prev_bin = (seed_bin_centers - min_depth) / (max_depth - min_depth) if self.bin_centers_type in ['normed', 'hybrid2'] else seed_bin_centers
            prev_bin_embedding = self.seed_projector(x)
            for projector, attractor, feature in zip(self.projectors, self.attractors[name], feature_blocks):
                bin_embedding = projector(feature)
                b, bin_centers = attractor(bin_embedding, prev_bin, prev_bin_embedding, interpolate=True)
                prev_bin, prev_bin_embedding = b, bin_embedding
            last = outconv_activation
            bin_centers = torch.nn.functional.interpolate(bin_centers, last.shape[-2:], mode='bilinear', align_corners=True)
            bin_embedding = torch.nn.functional.interpolate(bin_embedding, last.shape[-2:], mode='bilinear', align_corners=True)
            y = self.conditional_log_binomial[name](last, bin_embedding)
            outs.append(torch.sum(y * bin_centers, dim=1, keepdim=True))
        out = outs[-1]
        for i in range(len(outs) - 2, -1, -1):
            out = torch.where(choice == i, outs[i], out)
        return out, domain_logits

    original = cls.forward
    cls.forward = forward
    return lambda: setattr(cls, 'forward', original)


def patch_sam_attention():
    """SAM's vision attention with the relative positions added to the attention logits by two
    broadcast additions, as Transformers 4.x computed them, instead of first building their full-size
    sum as a separate [heads, 4096, 4096] tensor (5.x's SDPA mask): in the global blocks that tensor
    is a third 768 MB buffer alive at once. Same maths, summed in another order (checked against torch
    after export); returns an undo function."""
    from transformers.models.sam import modeling_sam as ms
    classes = {ms.SamVisionAttention, *ms.SAM_VISION_ATTENTION_CLASSES.values()}

    def forward(self, hidden_states, output_attentions=None):
        b, h, w, _ = hidden_states.shape
        heads = self.num_attention_heads
        qkv = self.qkv(hidden_states).reshape(b, h * w, 3, heads, -1).permute(2, 0, 3, 1, 4)
        query, key, value = qkv.reshape(3, b * heads, h * w, -1).unbind(0)
        attn = (query * self.scale) @ key.transpose(-2, -1)
        if self.use_rel_pos:
            q = query.reshape(b * heads, h, w, -1)
            rel_h = torch.einsum('bhwc,hkc->bhwk', q, self.get_rel_pos(h, h, self.rel_pos_h))
            rel_w = torch.einsum('bhwc,wkc->bhwk', q, self.get_rel_pos(w, w, self.rel_pos_w))
            attn = (attn.reshape(b * heads, h, w, h, w) + rel_h[:, :, :, :, None] + rel_w[:, :, :, None, :])
            attn = attn.reshape(b * heads, h * w, h * w)
        attn = torch.softmax(attn, dim=-1)
        out = (attn @ value).reshape(b, heads, h, w, -1).permute(0, 2, 3, 1, 4).reshape(b, h, w, -1)
        return self.proj(out), None

    saved = {c: c.forward for c in classes}
    for c in classes:
        c.forward = forward
    return lambda: [setattr(c, 'forward', f) for c, f in saved.items()]


def patch_group_norm():
    """GroupNorm as explicit means taken in two levels (over each row of the feature map, then over
    the rows). The legacy exporter writes GroupNorm as InstanceNormalization, whose onnxruntime CPU
    kernel sums a group (8 channels x 100 x 167 = 133,600 values at GroundingDINO's first level) in
    one float32 pass: measured 8.6e-5 off float64 on one padded photo, where torch is 6e-7 off. Every
    single-pass form (InstanceNormalization, LayerNormalization, ReduceMean) measured the same; rows of
    167 then 800 values measured 1.5e-6. Same maths; returns an undo function."""
    cls = torch.nn.GroupNorm
    original = cls.forward

    def forward(self, x):
        assert x.dim() == 4, 'two-level GroupNorm expects NCHW'
        n, c = x.shape[0], x.shape[1]
        g = x.reshape(n, self.num_groups, -1, x.shape[-1])
        d = g - g.mean(-1, keepdim=True).mean(-2, keepdim=True)
        var = (d * d).mean(-1, keepdim=True).mean(-2, keepdim=True)
        y = (d / torch.sqrt(var + self.eps)).reshape(x.shape)
        return y * self.weight.reshape(1, c, 1, 1) + self.bias.reshape(1, c, 1, 1)

    cls.forward = forward
    return lambda: setattr(cls, 'forward', original)


def patch_deformable_attention():
    """GroundingDINO's multi-scale deformable attention with each level's samples weighted and summed
    as they come, instead of stacking all levels first: the stacked [heads, 32, queries, 16] tensor
    and its weighted copy are about 364 MB each per encoder layer at 800x1333, and the Concat that
    builds it took 0.97 s of an int8 pass (onnxruntime's profiler). Same maths summed in another
    order; returns an undo function."""
    from transformers.models.grounding_dino import modeling_grounding_dino as mg
    cls = mg.MultiScaleDeformableAttention
    original = cls.forward

    def forward(self, value, value_spatial_shapes, value_spatial_shapes_list, level_start_index,
                sampling_locations, attention_weights, im2col_step):
        b, _, heads, hd = value.shape
        _, q, _, levels, points, _ = sampling_locations.shape
        values = value.split([h * w for h, w in value_spatial_shapes_list], dim=1)
        grids = 2 * sampling_locations - 1
        weights = attention_weights.transpose(1, 2).reshape(b * heads, 1, q, levels, points)
        out = None
        for level, (h, w) in enumerate(value_spatial_shapes_list):
            v = values[level].flatten(2).transpose(1, 2).reshape(b * heads, hd, h, w)
            grid = grids[:, :, :, level].transpose(1, 2).flatten(0, 1)
            sampled = torch.nn.functional.grid_sample(v, grid, mode='bilinear', padding_mode='zeros', align_corners=False)
            part = (sampled * weights[:, :, :, level]).sum(-1)
            out = part if out is None else out + part
        return out.view(b, heads * hd, q).transpose(1, 2).contiguous()

    cls.forward = forward
    return lambda: setattr(cls, 'forward', original)


def traceable_isin(elements, test_elements, **_):
    t = torch.as_tensor(test_elements, device=elements.device).reshape(-1)
    return (elements.unsqueeze(-1) == t).any(-1)


def patch_grounding_dino():
    """`isin` and the text mask without cummax/cummin (same integers); returns an undo function."""
    from transformers.models.grounding_dino import modeling_grounding_dino as mg
    original = mg.generate_masks_with_special_tokens_and_transfer_map

    def masks(input_ids):
        # Sizes stay tensors (no Python ints), so the traced graph holds for any text length.
        special = traceable_isin(input_ids, torch.tensor(mg.SPECIAL_TOKENS))
        idx = torch.cumsum(torch.ones_like(input_ids), 1) - 1
        n = idx[:, -1:] + 1  # [b, 1]
        at_or_before = idx.unsqueeze(1) <= idx.unsqueeze(2)  # [b, i, j]: j <= i
        same = idx.unsqueeze(1) == idx.unsqueeze(2)
        zeros = 0 * same  # [b, n, n] int64, to broadcast rows without Python sizes
        prev = torch.where(special, idx, -torch.ones_like(idx)).unsqueeze(1) + zeros
        prev_special = torch.where(at_or_before, prev, -torch.ones_like(prev)).amax(-1)
        nxt = torch.where(special, idx, n.expand_as(idx)).unsqueeze(1) + zeros
        next_special = torch.where(~at_or_before | same, nxt, n.unsqueeze(2) + zeros).amin(-1)
        valid = (next_special != 0) & (next_special != n - 1) & (next_special != n)
        attention = same | ((next_special.unsqueeze(2) == next_special.unsqueeze(1)) & valid.unsqueeze(1))
        position_ids = torch.where(valid, idx - prev_special - 1, torch.zeros_like(idx)).clamp(min=0).to(torch.long)
        return attention, position_ids

    for ids in ([[101, 2000, 1012, 102]], [[101, 2000, 2001, 1012, 2002, 1012, 102]], [[101, 102]]):
        ids = torch.tensor(ids)
        a, p = original(ids)
        b, q = masks(ids)
        assert torch.equal(a, b) and torch.equal(p, q), 'text mask rewrite differs'
    saved_isin = mg.torch.isin
    mg.generate_masks_with_special_tokens_and_transfer_map = masks
    torch.isin = traceable_isin

    def undo():
        mg.generate_masks_with_special_tokens_and_transfer_map = original
        torch.isin = saved_isin
    return undo


# ---------------------------------------------------------------- export and checks

class SamEncoder(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, pixel_values):
        return self.m.get_image_embeddings(pixel_values)


class SamDecoder(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, image_embeddings, input_boxes):
        o = self.m(image_embeddings=image_embeddings, input_boxes=input_boxes, multimask_output=True)
        return o.iou_scores, o.pred_masks


class GroundingDino(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, input_ids, token_type_ids, attention_mask, pixel_values, pixel_mask):
        o = self.m(input_ids=input_ids, token_type_ids=token_type_ids, attention_mask=attention_mask,
                   pixel_values=pixel_values, pixel_mask=pixel_mask)
        return o.logits, o.pred_boxes


def export(module, args, path, names, outputs, axes):
    """Exports once: a finished file (written under another name, then renamed) is kept on a re-run."""
    if os.path.exists(path):
        return
    torch.onnx.export(module, args, path + '.part', input_names=names, output_names=outputs, dynamic_axes=axes,
                      opset_version=17, dynamo=False)
    os.replace(path + '.part', path)


def match_queries(ref, got):
    """GroundingDINO: the same 900 (logits, box) rows may come in another order (ties in the top-k
    of proposals, and random weights give many near-identical rows). Checks that every box of each
    side has a counterpart on the other within 1e-4, and returns the rows' best logits, sorted, for
    check() to compare (what the decoding's scores are made of)."""
    d = np.abs(ref[1][0][:, None, :] - got[1][0][None, :, :]).max(-1)
    assert max(d.min(0).max(), d.min(1).max()) < 1e-4, 'GroundingDINO boxes differ as a set'
    best = lambda o: np.sort(np.where(np.isfinite(o[0][0]), o[0][0], -np.inf).max(1))  # noqa: E731
    return [best(ref)], [best(got)]


def check(path, module, cases, names, tol, reorder=None):
    """Runs the ONNX file and torch on inputs of other sizes than the traced one; fails on a difference."""
    import onnxruntime as ort
    s = ort.InferenceSession(path, providers=['CPUExecutionProvider'])
    worst = 0.0
    for args in cases:
        with torch.no_grad():
            ref = module(*args)
        ref = ref if isinstance(ref, tuple) else (ref,)
        got = s.run(None, {k: v.numpy() for k, v in zip(names, args)})
        ref = [r.numpy() for r in ref]
        if reorder:
            ref, got = reorder(ref, got)
        for r, g in zip(ref, got):
            fin = np.isfinite(r)
            assert np.array_equal(fin, np.isfinite(g)), f'{path}: infinities differ'
            scale = max(1.0, float(np.abs(r[fin]).max()))
            worst = max(worst, float(np.abs(r[fin] - g[fin]).max()) / scale)
    assert worst <= tol, f'{path}: ONNX differs from torch by {worst:.2e} (relative), tolerance {tol}'
    return worst


def text_inputs(n):
    ids = torch.tensor([[101] + [2000 + i for i in range(n - 3)] + [1012, 102]])
    return ids, torch.zeros_like(ids), torch.ones_like(ids)


def build(out, model_id):
    folder = os.path.join(out, model_id)
    os.makedirs(folder, exist_ok=True)
    model = make_model(model_id)
    model.save_pretrained(os.path.join(folder, 'torch'))
    g = torch.Generator().manual_seed(SEED)
    rand = lambda *shape: torch.randn(*shape, generator=g)  # noqa: E731
    record = {'params': int(sum(p.numel() for p in model.parameters()))}
    # Checked against the saved weights, reloaded: tracing leaves state in some models (parity generator).
    fresh = lambda: load_model(out, model_id)  # noqa: E731
    if model_id == 'sam-vit-base':
        enc, dec = os.path.join(folder, 'vision_encoder.onnx'), os.path.join(folder, 'prompt_encoder_mask_decoder.onnx')
        undo = patch_sam_attention()
        export(SamEncoder(model), (rand(1, 3, 1024, 1024),), enc, ['pixel_values'], ['image_embeddings'],
               {'pixel_values': {0: 'batch_size'}, 'image_embeddings': {0: 'batch_size'}})
        undo()
        export(SamDecoder(model), (rand(1, 256, 64, 64), torch.tensor([[[10.0, 20.0, 300.0, 400.0]]])), dec,
               ['image_embeddings', 'input_boxes'], ['iou_scores', 'pred_masks'],
               {'image_embeddings': {0: 'batch_size'}, 'input_boxes': {0: 'batch_size', 1: 'num_boxes'},
                'iou_scores': {0: 'batch_size', 1: 'num_boxes'}, 'pred_masks': {0: 'batch_size', 1: 'num_boxes'}})
        record['check'] = [check(enc, SamEncoder(fresh()), [(rand(1, 3, 1024, 1024),)], ['pixel_values'], 1e-3),
                           check(dec, SamDecoder(fresh()), [(rand(1, 256, 64, 64), torch.tensor([[[50.0, 60.0, 700.0, 500.0]]]))],
                                 ['image_embeddings', 'input_boxes'], 1e-3)]
        files = [enc, dec]
    elif model_id in ('depth-anything-v2-small', 'zoedepth-nyu-kitti'):
        path = os.path.join(folder, 'model.onnx')
        if model_id == 'depth-anything-v2-small':
            parity.patch_depth_head()
            traced, others = (1, 3, 518, 686), [(1, 3, 518, 518), (1, 3, 392, 518)]
            undo = lambda: None  # noqa: E731  (the head patch keeps the maths; left in place)
        else:
            undo = patch_zoedepth_router()
            traced, others = (1, 3, 384, 512), [(1, 3, 384, 480), (1, 3, 320, 512)]
        export(parity.DepthOnly(model), (rand(*traced),), path, ['pixel_values'], ['predicted_depth'], parity.DEPTH_AXES)
        undo()
        record['check'] = [check(path, parity.DepthOnly(fresh()), [(rand(*s),) for s in others], ['pixel_values'], 1e-3)]
        files = [path]
    else:
        undo, undo_norm, undo_deform = patch_grounding_dino(), patch_group_norm(), patch_deformable_attention()
        path = os.path.join(folder, 'model.onnx')
        names = ['input_ids', 'token_type_ids', 'attention_mask', 'pixel_values', 'pixel_mask']
        seq = {0: 'batch_size', 1: 'sequence_length'}
        # The image side is traced at one padded size (GD_PAD): see GD_PAD.
        axes = {'input_ids': seq, 'token_type_ids': seq, 'attention_mask': seq}
        h, w = GD_PAD

        def args(n, valid_w):
            mask = torch.zeros(1, h, w, dtype=torch.long)
            mask[:, :, :valid_w] = 1
            return (*text_inputs(n), rand(1, 3, h, w) * mask[:, None], mask)
        export(GroundingDino(model), args(4, 1069), path, names, ['logits', 'pred_boxes'], axes)
        undo()
        undo_norm()
        undo_deform()
        # Rows are matched by box; a proposal set that differs at the top-900 boundary (whose gap can be
        # below float32's own error, docs/perception.md) moves every row a little, hence the loose bound.
        record['check'] = [check(path, GroundingDino(fresh()), [args(6, 1064), args(5, 1000)], names, 5e-2, match_queries)]
        record['input_size'] = {'height': h, 'width': w}
        for f in ('tokenizer.json', 'tokenizer_config.json'):
            with open(os.path.join(TOKENIZER_DIR, f)) as src, open(os.path.join(folder, f), 'w') as dst:
                dst.write(src.read())
        files = [path]
    for f in files:
        record[os.path.basename(f)] = {'bytes': os.path.getsize(f), 'int8_bytes': quantize(f)}
    record['int8_ops'] = INT8_OPS
    return record


def int8_path(path):
    return path[:-len('.onnx')] + '.int8.onnx'


# Only MatMul and Gemm: quantize_dynamic's default also turns Conv into ConvInteger, which measured
# slower than the fp32 Conv it replaces (SAM's patch embedding: 339 ms against 46 ms).
INT8_OPS = ['MatMul', 'Gemm']


def quantize(path):
    """onnxruntime dynamic quantization (int8 weights, activations quantised at run time)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(path, int8_path(path) + '.part', weight_type=QuantType.QInt8, op_types_to_quantize=INT8_OPS)
    os.replace(int8_path(path) + '.part', int8_path(path))
    return os.path.getsize(int8_path(path))


def requantize(out, model_id):
    """Makes a built model's int8 files again (after a change to quantize())."""
    path = os.path.join(out, model_id, 'built.json')
    with open(path) as f:
        record = json.load(f)
    for name, v in record.items():
        if name.endswith('.onnx'):
            v['int8_bytes'] = quantize(os.path.join(out, model_id, name))
    record['int8_ops'] = INT8_OPS
    with open(path, 'w') as f:
        json.dump(record, f, indent=2)


def done(out, model_id):
    path = os.path.join(out, model_id, 'built.json')
    return os.path.exists(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=os.environ.get('GSR_REAL_MODELS_DIR', DEFAULT_OUT))
    ap.add_argument('--threads', type=int, default=0, help='torch threads while exporting (0: torch default)')
    ap.add_argument('--int8-only', action='store_true', help='only make the int8 files of built models again')
    ap.add_argument('models', nargs='*', metavar='MODEL', help=' | '.join(MODELS))
    a = ap.parse_args()
    for m in a.models:
        if m not in MODELS:
            ap.error(f'unknown model {m}; one of {", ".join(MODELS)}')
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    import transformers
    for model_id in a.models or MODELS:
        if a.int8_only:
            if not done(a.out, model_id):
                ap.error(f'{model_id} is not built in {a.out}; build it first (without --int8-only)')
            print(f'{model_id}: quantizing again ...', file=sys.stderr, flush=True)
            requantize(a.out, model_id)
            continue
        if done(a.out, model_id):
            print(f'{model_id}: already built in {a.out}/{model_id}', file=sys.stderr)
            continue
        t = time.time()
        print(f'{model_id}: building ...', file=sys.stderr, flush=True)
        record = build(a.out, model_id)
        record.update({'seconds': round(time.time() - t, 1), 'seed': SEED, 'torch': torch.__version__,
                       'transformers': transformers.__version__})
        with open(os.path.join(a.out, model_id, 'built.json'), 'w') as f:
            json.dump(record, f, indent=2)
        print(f'{model_id}: {json.dumps(record)}', file=sys.stderr, flush=True)


if __name__ == '__main__':
    main()
