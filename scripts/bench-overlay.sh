#!/usr/bin/env bash
# Overlay-plane benchmark (issue 14): what a video frame costs laminad when the video goes on an
# overlay plane, against the same video composited, side by side in one run.
#
# Boots the KMS VM with vkms (scripts/vm/vmkms.py --device vkms: the kernel's virtual KMS driver,
# which has overlay planes) and its virtual camera (vivid, 1920x1080, about 30 frames a second,
# in dma-bufs). The output is 1280x720@60; the video fills it one picture pixel to one screen
# pixel (a 1280x720 part of the camera's picture). Cases, each its own laminad:
#   plane       the video on an overlay plane (laminad draws nothing for it)
#   composited  the same inside a superlayer that clips (the planner refuses it: composited)
# For each: frames drawn (framesRendered) and laminad's CPU (utime + stime of all its threads,
# /proc/PID/stat, in clock ticks) over a window, after a warm-up. The guest runs under TCG, so the
# times are the emulated CPU's: compare the two cases with each other, not with other machines.
# It is a benchmark, not a test.
#
# Options: --window S (8)  --warmup S (3)  --no-build (use .build/release as it is)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WINDOW=8 WARMUP=3 BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --window) WINDOW=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench-overlay: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $WINDOW =~ ^[1-9][0-9]*$ && $WARMUP =~ ^[0-9]+$ ]] || { echo "bench-overlay: --window and --warmup take whole seconds" >&2; exit 2; }

if [ "$BUILD" = 1 ]; then
  echo "# building laminad and laminactl (release)" >&2
  swift build -c release --product laminad >&2
  swift build -c release --product laminactl >&2
fi
B=$ROOT/.build/release
[ -x "$B/laminad" ] && [ -x "$B/laminactl" ] || { echo "bench-overlay: $B/laminad or laminactl missing" >&2; exit 1; }

TMP=$(mktemp -d /tmp/bench-overlay.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
cat > "$TMP/laminad.toml" <<'EOF'
[[output]]
name = "Virtual-1"
mode = "1280x720"
EOF
scene() {  # scene CLIPS
  cat <<EOF
{"sublayers":[{"name":"frame","bounds":[0,0,1280,720],"position":[640,360],"masksToBounds":$1,
  "sublayers":[{"name":"camera","bounds":[0,0,1280,720],"position":[640,360],
                "contentsRect":[0,0,0.6666666666666666,0.6666666666666666],"video":"v4l2:///dev/video0","playing":true}]}]}
EOF
}
scene false > "$TMP/plane.json"
scene true > "$TMP/composited.json"
cat > "$TMP/guest.sh" <<EOF
B=$B
T=$TMP
export LAMINA_SOCKET=/run/lamina.sock
# utime + stime of the whole process in ns (the guest kernel's schedstat reads 0: no schedstats).
cpu() { sed 's/.*) //' /proc/\$1/stat | awk -v hz=\$(getconf CLK_TCK) '{ printf "%.0f", (\$12 + \$13) * 1e9 / hz }'; }
frames() { "\$B/laminactl" stats | sed -n 's/^framesRendered //p'; }
for case in plane composited; do
  "\$B/laminad" --backend kms --config \$T/laminad.toml --socket \$LAMINA_SOCKET --session-journal "" --log-level info > /tmp/\$case.log 2>&1 &
  PID=\$!
  i=0; while [ ! -S \$LAMINA_SOCKET ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i+1)); done
  "\$B/laminactl" apply --disable-actions \$T/\$case.json >/dev/null
  i=0; while ! grep -q "video on Virtual-1" /tmp/\$case.log && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done
  sleep $WARMUP
  f0=\$(frames); c0=\$(cpu \$PID)
  sleep $WINDOW
  f1=\$(frames); c1=\$(cpu \$PID)
  echo "VMKMS_VALUE \$case.frames \$((f1 - f0))"
  echo "VMKMS_VALUE \$case.cpu_ns \$((c1 - c0))"
  echo "VMKMS_VALUE \$case.decision \$(grep -o 'video on Virtual-1 .*' /tmp/\$case.log | tail -n 1)"
  "\$B/laminactl" stats | grep -E '^video\.(overlayScanoutFrames|overlayCompositedFrames|dmabufCopied|framesDMABuf) ' | sed "s/^/VMKMS_VALUE \$case./"
  kill -TERM \$PID; wait \$PID
  rm -f \$LAMINA_SOCKET
done
EOF
echo "# booting the vkms guest (about a minute)" >&2
python3 scripts/vm/vmkms.py run --script "$TMP/guest.sh" --out "$TMP/out" --device vkms --timeout $((120 + 2 * (WINDOW + WARMUP))) >&2
python3 - "$TMP/out/serial.log" "$WINDOW" <<'EOF'
import re, sys
values = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"VMKMS_VALUE (\S+) (.*)$", line.strip())
    if m and "echo" not in line:
        values[m.group(1)] = m.group(2)
window = float(sys.argv[2])
cost = {}
print(f"{'case':<12} {'frames':>7} {'fps':>6} {'CPU ms/frame':>13}  decision")
for case in ("plane", "composited"):
    frames = int(values.get(f"{case}.frames", "0") or 0)
    cpu = int(values.get(f"{case}.cpu_ns", "0") or 0) / 1e6
    cost[case] = cpu / frames if frames else float("nan")
    print(f"{case:<12} {frames:>7} {frames / window:>6.1f} {cost[case]:>13.2f}  {values.get(case + '.decision', '?')}")
    print(f"{'':<12} scanned out {values.get(case + '.video.overlayScanoutFrames', '?')}, composited "
          f"{values.get(case + '.video.overlayCompositedFrames', '?')}, pictures copied {values.get(case + '.video.dmabufCopied', '?')}"
          f" of {values.get(case + '.video.framesDMABuf', '?')} camera frames")
if cost.get("composited"):
    print(f"plane / composited CPU per frame: {cost['plane'] / cost['composited']:.4f}x (composited costs {cost['composited'] / cost['plane']:.0f}x as much)")
EOF
