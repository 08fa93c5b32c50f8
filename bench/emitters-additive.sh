#!/bin/bash
# Additive particles against normal ones (docs/performance.md, "Additive particles and their
# pipelines"): alternating `lamina-bench emitters` runs in both render modes, then start-up with
# and without the 8 additive pipelines (cold: lavapipe's shader cache disabled; then allowed).
# B: the lamina-bench binary (default .build/release/lamina-bench); FRAMES (60); OUT (a folder).
set -u
cd "$(dirname "$0")/.."
B=${B:-.build/release/lamina-bench}
OUT=${OUT:-/tmp/emitters-additive}
mkdir -p "$OUT"
for r in 1 2; do
  for m in unordered additive; do
    echo "== run $r $m load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/log"
    "$B" emitters --particles 0,1000,5000,10000,20000,40000 --frames "${FRAMES:-60}" --render-mode $m \
      > "$OUT/frames-$m-$r.json" 2>> "$OUT/log"
  done
done
for cache in cold warm; do
  if [ $cache = cold ]; then C=MESA_SHADER_CACHE_DISABLE=true; else C=MESA_SHADER_CACHE_DISABLE=false; fi
  for r in 1 2 3; do
    echo "== startup $cache $r load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/log"
    env $C "$B" emitters --startup --particles 1000 \
      > "$OUT/startup-$cache-with-$r.json" 2>> "$OUT/log"
    env $C LAMINA_BENCH_NO_ADDITIVE_PIPELINES=1 \
      "$B" emitters --startup --particles 1000 > "$OUT/startup-$cache-without-$r.json" 2>> "$OUT/log"
  done
done
echo finished >> "$OUT/log"
