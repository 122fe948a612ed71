#!/bin/sh
# Start-up figures in the KMS VM (issue 29 §3): scripts/bench-start.py run inside a throw-away
# QEMU guest (scripts/vm/vmkms.py, virtio-gpu 1280x800 under TCG) with `--backend kms`, so each
# start opens the DRM device, sets the mode and flips its first frames on it. Cold, warm and
# warm-lamina starts as in the headless benchmark (the caches live in the guest's tmpfs, so
# "cold" is a first boot's start: Mesa's and laminad's program caches empty).
# A benchmark, not a test: the guest is emulated, so the figures scale with the host's speed.
# usage: scripts/bench-start-vm.sh [--runs N] [--laminad PATH]   (default: .build/release's laminad, else debug's)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
runs=3
laminad=
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs=$2; shift 2 ;;
        --laminad) laminad=$2; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--laminad PATH]" >&2; exit 2 ;;
    esac
done
if [ -z "$laminad" ]; then
    for kind in release debug; do
        [ -x "$root/.build/$kind/laminad" ] && { laminad=$root/.build/$kind/laminad; break; }
    done
fi
[ -n "$laminad" ] || { echo "no laminad built: swift build -c release --product laminad" >&2; exit 1; }
out=$root/.cache/vm/bench-start
rm -rf "$out"; mkdir -p "$out"
cat >"$out/guest.sh" <<GUEST
cd "$root"
/usr/bin/python3 scripts/bench-start.py --backend kms --runs $runs --laminad "$laminad"
GUEST
python3 "$root/scripts/vm/vmkms.py" run --script "$out/guest.sh" --out "$out" --device virtio --timeout 900 2>&1 \
    | grep -E "booted in|guest exited|timed out" || true
grep -aE "^(laminad:|cold|warm)" "$out/serial.log" | tr -d '\r'
