#!/usr/bin/env bash
# Runs a bundle made by scripts/gpu-bundle.sh on a machine with a GPU, from a checkout of this
# repository (bench-frames.sh and the scenes come from it): the GPU checks (lamina-gpu-check:
# dma-buf import in place, YUV in a shader; on NVIDIA also a dma-buf of CUDA memory,
# scripts/gpu-cuda-dmabuf.py), then the frame-cost benchmark of a headless laminad
# on that GPU. Writes everything to stdout and, when OUT is set, to $OUT/gpu-run.log.
#
# Usage: scripts/gpu-run.sh [BUNDLE]   (default .gpu-bundle/lamina-gpu.tar.xz)
#        BENCH_CASES="peer peer-static dashboard square" BENCH_WINDOW=5 BENCH_RUNS=1 (environment;
#        BENCH_CASES="" runs the checks alone)
# Exit status: the worst of the steps' (1 when a check failed or a step broke, else 0).
set -uo pipefail
BUNDLE=$(realpath -m "${1:-$(dirname "$0")/../.gpu-bundle/lamina-gpu.tar.xz}")
cd "$(dirname "$0")/.."
DIR=/tmp/lamina-gpu
LOG=${OUT:-/tmp}/gpu-run.log
exec > >(tee "$LOG") 2>&1
TEE=$!
WORST=0
finish() {
  exec 1>&- 2>&-
  wait "$TEE" 2>/dev/null
  exit "$WORST"
}
step() {  # step NAME STATUS: 77 (nothing could run) is not a failure
  echo "# $1 exit status $2"
  case $2 in 0|77) ;; *) WORST=1 ;; esac
}
rm -rf "$DIR" && mkdir -p "$DIR" && tar -C "$DIR" -xJf "$BUNDLE" || { echo "gpu-run: cannot unpack $BUNDLE"; WORST=1; finish; }
# The GL loaders and GBM/DRM libraries of the bundle only where the machine has none of its own.
mkdir -p "$DIR/fallback"
for f in "$DIR"/lib-system/*; do
  ldconfig -p | grep -q "^[[:space:]]*$(basename "$f") " || ln -s "$f" "$DIR/fallback/"
done
# The bundle's libraries first; the GPU vendor's own (NVIDIA's under /usr/local/nvidia in the
# device machine's image) after, where glvnd's vendor file names them by bare file name.
export LD_LIBRARY_PATH="$DIR/lib:$DIR/fallback:/usr/local/nvidia/lib64:/usr/local/nvidia/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  [ -f "$f" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES=$f; break; }
done
export FONTCONFIG_FILE="$DIR/fonts/fonts.conf" XKB_CONFIG_ROOT="$DIR/xkb"
echo "# $(uname -srm); $(nvidia-smi -L 2>/dev/null || echo 'no nvidia-smi'); EGL vendor file ${__EGL_VENDOR_LIBRARY_FILENAMES:-none}"
ls -l /dev/dri 2>&1 | sed 's/^/# /'
echo "# lamina-gpu-check"
"$DIR/bin/lamina-gpu-check" all
step lamina-gpu-check $?
if command -v nvidia-smi >/dev/null; then
  echo "# a dma-buf of CUDA device memory"
  python3 scripts/gpu-cuda-dmabuf.py "$DIR/bin/lamina-gpu-check"
  step gpu-cuda-dmabuf $?
fi
CASES=${BENCH_CASES-peer peer-static dashboard square}
if [ -n "$CASES" ]; then
  echo "# bench-frames"
  PEERS="$DIR/peers" LAMINAD="$DIR/bin/laminad" LAMINACTL="$DIR/bin/laminactl" \
    scripts/bench-frames.sh --no-build --runs "${BENCH_RUNS:-1}" --window "${BENCH_WINDOW:-5}" --cases "$CASES"
  step bench-frames $?
fi
finish
