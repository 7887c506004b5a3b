#!/usr/bin/env bash
# The GPU measurement of annotation at real model size, prepared for a 10-minute window on a machine
# with an NVIDIA GPU (docs/perception.md, "Speed at real model size"):
#   1. installs onnxruntime-node's CUDA execution provider (README, "GPU set-up");
#   2. builds the real-size random-weight models (npm run bench:models; skipped when built);
#   3. runs `npm run bench -- annotate-real --device cuda` on the 16 sample photos plus 500 synthetic
#      scenes (gsr only: the Python reference runs on the CPU and is for the CPU comparison);
#   4. prints one JSON line: images/s per model and end to end, peak GPU memory, and the projected
#      time for all 4,958 What'sUp images.
# Without an NVIDIA GPU, or with --device cpu, it runs the same steps on the CPU (2 photos unless
# --photos N, no synthetic scenes, no CUDA install) and says so in the JSON line.
#
#   bench/gpu.sh [--device cuda|cpu] [--photos N] [--synthetic N]
# Environment: GSR_BENCH_PYTHON (python with torch + transformers + onnx + onnxruntime; default python3).
set -euo pipefail
cd "$(dirname "$0")/.."

device=cuda
photos=
synthetic=
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device="$2"; shift 2 ;;
    --photos) photos="$2"; shift 2 ;;
    --synthetic) synthetic="$2"; shift 2 ;;
    *) echo "gpu.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
note=""
if [ "$device" = cuda ] && ! command -v nvidia-smi >/dev/null 2>&1; then
  device=cpu
  note="no NVIDIA GPU (nvidia-smi not found): ran on the CPU"
fi
if [ "$device" = cpu ]; then
  [ -n "$note" ] || note="--device cpu: ran on the CPU"
  photos="${photos:-2}"
  synthetic="${synthetic:-0}"
else
  photos="${photos:-16}"
  synthetic="${synthetic:-500}"
  echo "gpu.sh: installing the CUDA execution provider" >&2
  ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js >&2
fi
echo "gpu.sh: building the models (skipped when built)" >&2
npm run -s bench:models >&2

gpu_log=$(mktemp)
sampler=
if [ "$device" = cuda ]; then
  # Peak GPU memory, sampled twice a second while the bench runs.
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 >"$gpu_log" 2>/dev/null &
  sampler=$!
fi
status=0
npm run -s bench -- annotate-real --device "$device" --photos "$photos" --synthetic "$synthetic" \
  --no-python --zoe-photos 0 --no-int8 --no-all-loaded --no-flush-denormals >&2 || status=$?
[ -z "$sampler" ] || kill "$sampler" 2>/dev/null || true

GPU_LOG="$gpu_log" NOTE="$note" node -e '
const fs = require("node:fs");
const r = JSON.parse(fs.readFileSync("bench/results/annotate-real.json", "utf8")).figures;
const runs = [r.gsr_fp32, r.synthetic].filter(Boolean);
const perModel = {};
for (const run of runs) for (const [k, v] of Object.entries(run.stages_ms)) {
  if (!k.startsWith("model:")) continue;
  const m = (perModel[k.slice(6)] ??= { ms: 0, images: 0 });
  m.ms += v.ms; m.images += run.images;
}
const mem = fs.readFileSync(process.env.GPU_LOG, "utf8").split("\n").map(Number).filter((v) => v > 0);
const e2e = r.gsr_fp32.images_per_second;
const out = {
  device: r.gsr_fp32.device, note: process.env.NOTE || undefined, photos: r.photos,
  images_per_second_end_to_end: e2e,
  images_per_second_synthetic: r.synthetic ? r.synthetic.images_per_second : undefined,
  images_per_second_per_model: Object.fromEntries(Object.entries(perModel).map(([k, v]) => [k, Math.round((v.images / (v.ms / 1000)) * 100) / 100])),
  peak_gpu_memory_mib: mem.length ? Math.max(...mem) : null,
  peak_rss_mib: r.gsr_fp32.peak_rss_mib,
  projected_whatsup_4958_images_hours: Math.round((4958 / e2e / 3600) * 100) / 100,
};
process.stdout.write(JSON.stringify(out) + "\n");
'
rm -f "$gpu_log"
exit "$status"
