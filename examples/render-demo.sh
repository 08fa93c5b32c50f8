#!/usr/bin/env bash
# Renders examples/demo.json with laminactl's embedded headless compositor (no daemon):
# a still at 1.2 s and 4 s of frames at 30 fps. Usage: examples/render-demo.sh BIN_DIR OUT_DIR
set -euo pipefail
bin=${1:?usage: examples/render-demo.sh BIN_DIR OUT_DIR}
out=${2:?usage: examples/render-demo.sh BIN_DIR OUT_DIR}
scene="$(dirname "$0")/demo.json"
mkdir -p "$out"
echo "render-demo: still at 1.2 s -> $out/demo-scene.png"
"$bin/laminactl" render "$scene" --at 1.2 --out "$out/demo-scene.png"
echo "render-demo: 4 s at 30 fps -> $out/demo-frames/"
"$bin/laminactl" render "$scene" --fps 30 --duration 4 --out "$out/demo-frames"
