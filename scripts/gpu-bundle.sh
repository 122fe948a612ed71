#!/usr/bin/env bash
# Packs laminad, laminactl and lamina-gpu-check to run on another x86-64 Linux machine that has
# a GPU but no Swift, Mesa or GStreamer (the device machine of docs/testing.md "On a GPU"):
# release builds with the Swift runtime linked in (--static-swift-stdlib, in .build-static), the
# shared libraries they load beyond glibc (with libglvnd's EGL/GLES loaders, which find the GPU
# vendor's EGL through its glvnd JSON file), DejaVu fonts with a fontconfig file, xkb-data's
# keymaps, and the peer scene writer. scripts/gpu-run.sh unpacks and runs it there.
#
# The GL loaders and GBM/DRM libraries (libEGL, libGLESv2, libGLdispatch, libgbm, libdrm) go in
# lib-system/: gpu-run.sh uses each only where the target has none of its own, so a Mesa machine
# keeps the libraries its drivers were built with.
#
# Usage: scripts/gpu-bundle.sh [FOLDER]   (default .gpu-bundle; writes FOLDER/lamina-gpu.tar.xz)
set -euo pipefail
OUT=$(realpath -m "${1:-$(dirname "$0")/../.gpu-bundle}")
cd "$(dirname "$0")/.."
PEERS=${PEERS:-/work/shared/peers}
BINS="laminad laminactl lamina-gpu-check"
for p in $BINS; do
  nice -n 10 swift build -c release --static-swift-stdlib --scratch-path .build-static --product "$p" >&2
done
STAGE=$(mktemp -d /tmp/gpu-bundle.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/lib-system" "$STAGE/fonts" "$STAGE/peers" "$OUT"
for p in $BINS; do
  cp .build-static/release/"$p" "$STAGE/bin/"
  strip "$STAGE/bin/$p"
done
# Every library the binaries load except glibc's own (the target's glibc must be as new as this
# machine's: Debian 12's 2.36).
LIBS=$(for p in $BINS; do ldd "$STAGE/bin/$p"; done)
if grep -q "not found" <<<"$LIBS"; then
  echo "gpu-bundle: libraries not found: $(grep "not found" <<<"$LIBS" | sort -u | tr -s ' \t\n' ' ')" >&2
  exit 1
fi
awk '/=> \// { print $3 }' <<<"$LIBS" | sort -u \
  | grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64)\.so' \
  | while read -r lib; do
      case $(basename "$lib") in
        libEGL.so*|libGLESv2.so*|libGLdispatch.so*|libgbm.so*|libdrm.so*) cp -L "$lib" "$STAGE/lib-system/" ;;
        *) cp -L "$lib" "$STAGE/lib/" ;;
      esac
    done
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
