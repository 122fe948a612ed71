#!/usr/bin/env bash
# The main job: start laminad on the best available backend and play the demo.
# With a display (KMS) it plays on screen in real time; without one it renders headless with
# a virtual clock and writes numbered PNG frames and a contact sheet to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
LAMINA_VM_DEPS=0 source scripts/deps.sh

swift build --product laminad >/dev/null
swift build --product lamina-demo >/dev/null
bin="$(swift build --show-bin-path)"

out="${LAMINA_DEMO_OUT:-out/demo}"
mkdir -p "$out"
rm -f "$out"/frame-*.png
sock="$(mktemp -d)/lamina.sock"

if ls /dev/dri/card* >/dev/null 2>&1; then
  echo "demo: a DRM device is present: laminad --backend auto (KMS when it can master a connected output)"
  "$bin/laminad" --backend auto --clock real --socket "$sock" &
  mode=(--real-time)
else
  echo "demo: no /dev/dri: headless backend, virtual clock, frames written to $out/"
  "$bin/laminad" --backend headless --size 1280x720 --clock virtual --socket "$sock" --frames-dir "$out" &
  mode=(--contact-sheet "$out/contact-sheet.png")
fi
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done

"$bin/lamina-demo" --socket "$sock" "${mode[@]}"
if [ -f "$out/contact-sheet.png" ]; then
  echo "demo: $(ls "$out"/frame-*.png | wc -l) frames in $out/, contact sheet $out/contact-sheet.png"
fi
