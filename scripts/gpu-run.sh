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
set -uo pipefail
cd "$(dirname "$0")/.."
BUNDLE=${1:-.gpu-bundle/lamina-gpu.tar.xz}
DIR=/tmp/lamina-gpu
LOG=${OUT:-/tmp}/gpu-run.log
exec > >(tee "$LOG") 2>&1
rm -rf "$DIR" && mkdir -p "$DIR" && tar -C "$DIR" -xJf "$BUNDLE" || { echo "gpu-run: cannot unpack $BUNDLE"; exit 1; }
# The bundle's libraries first; the GPU vendor's own (NVIDIA's under /usr/local/nvidia in the
# device machine's image) after, where glvnd's vendor file names them by bare file name.
export LD_LIBRARY_PATH="$DIR/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  [ -f "$f" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES=$f; break; }
done
export FONTCONFIG_FILE="$DIR/fonts/fonts.conf" XKB_CONFIG_ROOT="$DIR/xkb"
echo "# $(uname -srm); $(nvidia-smi -L 2>/dev/null || echo 'no nvidia-smi'); EGL vendor file ${__EGL_VENDOR_LIBRARY_FILENAMES:-none}"
ls -l /dev/dri 2>&1 | sed 's/^/# /'
echo "# lamina-gpu-check"
"$DIR/bin/lamina-gpu-check" all
echo "# lamina-gpu-check exit status $?"
if command -v nvidia-smi >/dev/null; then
  echo "# a dma-buf of CUDA device memory"
  python3 scripts/gpu-cuda-dmabuf.py "$DIR/bin/lamina-gpu-check"
  echo "# gpu-cuda-dmabuf exit status $?"
fi
CASES=${BENCH_CASES-peer peer-static dashboard square}
[ -n "$CASES" ] || exit 0
echo "# bench-frames"
PEERS="$DIR/peers" LAMINAD="$DIR/bin/laminad" LAMINACTL="$DIR/bin/laminactl" \
  scripts/bench-frames.sh --no-build --runs "${BENCH_RUNS:-1}" --window "${BENCH_WINDOW:-5}" --cases "$CASES"
echo "# bench-frames exit status $?"
