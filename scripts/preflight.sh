#!/usr/bin/env bash
# Checks that everything the tests use is really here after scripts/deps.sh, and fails loudly
# naming what is missing, so a test run never depends on what a machine happened to have.
# Sourced by scripts/test.sh.
missing=()
need_tool() { command -v "$1" >/dev/null 2>&1 || missing+=("command $1 ($2)"); }
need_pc() { pkg-config --exists "$1" 2>/dev/null || missing+=("pkg-config module $1 ($2)"); }

need_tool swift "the Swift toolchain"
need_tool pkg-config "pkg-config"
need_tool python3 "the VM harness, scripts/vm/vmkms.py"
need_tool systemd-analyze "systemd: the unit files' verify and security test"
need_tool setpriv "util-linux: the authorisation test runs laminactl as nobody"
need_tool prlimit "util-linux: the descriptor-exhaustion test"
need_tool gst-launch-1.0 "gstreamer1.0-tools: the video tests make their clips with it"
for m in egl glesv2 gbm libdrm libudev libseat libsystemd libpng libjpeg cairo lamina-pangocairo lamina-gstreamer fontconfig libinput xkbcommon; do
  need_pc "$m" "scripts/deps.sh"
done
# The script-coverage tests need the CJK fonts the default install has.
fc-list :lang=ja family | grep -q "Noto Sans CJK" || missing+=("Noto CJK fonts (fonts-noto-cjk)")
# The video tests' clips: VP8 in WebM, encoded and decoded (gstreamer1.0-plugins-good).
for e in vp8enc vp8dec webmmux matroskademux playbin videoconvert appsink; do
  gst-inspect-1.0 "$e" >/dev/null 2>&1 || missing+=("GStreamer element $e (scripts/deps.sh: gstreamer1.0-plugins-base, -good)")
done
[ -d /usr/share/X11/xkb/symbols ] || missing+=("xkb-data's layouts in /usr/share/X11/xkb (xkb-data)")
[ -e /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so ] || [ -n "$(ls /usr/lib/*/dri/swrast_dri.so 2>/dev/null)" ] \
  || missing+=("Mesa's llvmpipe driver swrast_dri.so (libgl1-mesa-dri)")
if [ "${LAMINA_VM_DEPS:-1}" = 1 ]; then
  need_tool qemu-system-x86_64 "qemu-system-x86: the KMS VM tests"
  need_tool busybox "busybox-static: the VM's initramfs"
  need_tool seatd "seatd: the seat VM test"
  need_tool udevadm "udev: the input VM tests run systemd-udevd in the guest"
  need_tool apt-get "fetches the guest kernel package"
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "lamina: missing after scripts/deps.sh:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi
