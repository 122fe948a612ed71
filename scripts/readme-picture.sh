#!/usr/bin/env bash
# Makes docs/demo.png, the picture at the top of the README: six frames of the demo (the
# listings, the second act's layer kinds, signage, winter), rendered headless on the virtual
# clock, 320x180 each in a 3x2 grid, reduced to 256 colours so it stays small in git.
#
# Usage: scripts/readme-picture.sh [OUT.png]   (default docs/demo.png)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-docs/demo.png}
LAMINA_VM_DEPS=0 source scripts/deps.sh >/dev/null
export PATH=/opt/swift/usr/bin:$PATH
swift build --product laminad >/dev/null
swift build --product lamina-demo >/dev/null
bin=$(swift build --show-bin-path)
work=$(mktemp -d)
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$work"' EXIT
"$bin/laminad" --backend headless --size 1280x720 --clock virtual --socket "$work/lamina.sock" --frames-dir "$work" &
daemon=$!
for _ in $(seq 200); do [ -S "$work/lamina.sock" ] && break; sleep 0.05; done
# 10 frames a second is plenty for six stills; the acts as the demo plays them.
# (The kiosk act waits for a browser engine for a time no fraction can place: left out here.)
"$bin/lamina-demo" --socket "$work/lamina.sock" --fps 10 --kiosk-seconds 0 >/dev/null
/usr/bin/python3 - "$work" "$OUT" <<'EOF'
import glob, sys
from PIL import Image
frames = sorted(glob.glob(sys.argv[1] + "/frame-*.png"))
if len(frames) < 12:
    sys.exit(f"readme-picture: only {len(frames)} frames")
# Listings (6 s), second act (4 s), signage (4 s), winter (4 s) at 10 fps: two from the
# listings, two from the second act, one each from signage and winter.
picks = [0.17, 0.30, 0.40, 0.52, 0.72, 0.92]
sheet = Image.new("RGB", (960, 360))
for i, at in enumerate(picks):
    frame = Image.open(frames[min(len(frames) - 1, int(at * len(frames)))]).convert("RGB").resize((320, 180), Image.LANCZOS)
    sheet.paste(frame, ((i % 3) * 320, (i // 3) * 180))
sheet.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(sys.argv[2], optimize=True)
EOF
echo "readme-picture: $OUT ($(stat -c %s "$OUT") bytes)"
