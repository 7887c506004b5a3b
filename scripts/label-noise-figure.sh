#!/usr/bin/env bash
# Makes docs/figures/label-noise-sweep.{svg,json}: runs the demo (pipelines/demo.yaml) into a
# temporary folder, then `gsr analyze label-noise` over its results scored against the pseudo-labels
# and against the exact truth (the same computation as the demo's label-noise stage), with the
# annotator-quality sweep. Needs the build (npm run build). Re-run: scripts/label-noise-figure.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
GSR_BASE_URL='' GSR_MODEL='' GSR_PROGRESS=0 node dist/cli/main.js pipeline run pipelines/demo.yaml --out "$OUT" > /dev/null
mapfile -t MODELS < <(ls "$OUT/label-noise/truth")
node dist/cli/main.js analyze label-noise \
  --results "${MODELS[@]/#/$OUT/score/}" \
  --truth-results "${MODELS[@]/#/$OUT/label-noise/truth/}" \
  --pseudo "$OUT/annotate/annotations.json" --truth "$OUT/dataset/annotations.json" \
  --y reasoning:synthetic:circular --x grounding:synthetic/subject \
  --plot docs/figures/label-noise-sweep.svg --out docs/figures/label-noise-sweep.json
