#!/usr/bin/env bash
# Packs laminad, laminactl and lamina-gpu-check to run on another x86-64 Linux machine that has
# a GPU but no Swift, Mesa or GStreamer (the device machine of docs/testing.md "On a GPU"):
# release builds with the Swift runtime linked in (--static-swift-stdlib, in .build-static), the
# shared libraries they load beyond glibc (with libglvnd's EGL/GLES loaders, which find the GPU
# vendor's EGL through its glvnd JSON file), DejaVu fonts with a fontconfig file, xkb-data's
# keymaps, and the peer scene writer. scripts/gpu-run.sh unpacks and runs it there.
#
# Usage: scripts/gpu-bundle.sh [FOLDER]   (default .gpu-bundle; writes FOLDER/lamina-gpu.tar.xz)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-.gpu-bundle}
PEERS=${PEERS:-/work/shared/peers}
BINS="laminad laminactl lamina-gpu-check"
for p in $BINS; do
  nice -n 10 swift build -c release --static-swift-stdlib --scratch-path .build-static --product "$p" >&2
done
STAGE=$(mktemp -d /tmp/gpu-bundle.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/fonts" "$STAGE/peers" "$OUT"
for p in $BINS; do
  cp .build-static/release/"$p" "$STAGE/bin/"
  strip "$STAGE/bin/$p"
done
# Every library the binaries load except glibc's own (the target's glibc must be as new as this
# machine's: Debian 12's 2.36).
for p in $BINS; do ldd "$STAGE/bin/$p"; done | awk '/=> \// { print $3 }' | sort -u \
  | grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64)\.so' \
  | while read -r lib; do cp -L "$lib" "$STAGE/lib/"; done
cp /usr/share/fonts/truetype/dejavu/DejaVuSans*.ttf "$STAGE/fonts/"
cat >"$STAGE/fonts/fonts.conf" <<'CONF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig><dir prefix="relative">.</dir><cachedir>/tmp/lamina-gpu-fontcache</cachedir></fontconfig>
CONF
cp -r /usr/share/X11/xkb "$STAGE/xkb"
[ -f "$PEERS/lamina-scene.py" ] && cp "$PEERS/lamina-scene.py" "$STAGE/peers/"
tar -C "$STAGE" -cJf "$OUT/lamina-gpu.tar.xz" .
ls -l "$OUT/lamina-gpu.tar.xz" >&2
