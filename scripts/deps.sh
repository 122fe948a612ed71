#!/usr/bin/env bash
# Installs the Debian packages Lamina builds, tests and runs with. Idempotent; quiet when
# everything is there already. Needs root (or sudo) the first time.
set -euo pipefail

packages=(
  pkg-config
  libegl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri libgbm-dev libgbm1
  libdrm-dev libpng-dev libjpeg62-turbo-dev libudev-dev libsystemd-dev libseat-dev
  libcairo2-dev libpango1.0-dev fonts-dejavu-core
  # Text in the scripts kiosks show: fonts-noto-cjk (Chinese, Japanese, Korean; 91 MB
  # installed) and fonts-noto-core (Thai, Devanagari, Bengali, Tamil, Ethiopic, … ; 42 MB).
  # fontconfig falls back to them character by character; laminad keeps DejaVu the default
  # sans-serif, serif and monospace (FontconfigRegistry.pinDefaults), so Latin text looks the
  # same with or without them.
  fonts-noto-cjk fonts-noto-core
  # Colour emoji in text layers (Noto Color Emoji, a CBDT bitmap font cairo draws in colour):
  # flags, skin tones and ZWJ sequences included.
  fonts-noto-color-emoji
  # SVG images (create-svg-image): librsvg parses and draws them with cairo.
  librsvg2-dev
  # WebP images, still and animated (libwebp, libwebpdemux), and GIF images (giflib):
  # LaminaImage decodes them as it does PNG and JPEG.
  libwebp-dev libgif-dev
  libinput-dev libxkbcommon-dev xkb-data
  # Video layers (LaminaVideo): GStreamer, its app sink and video info, the base and good
  # plugins (videoconvert, playbin, matroska/WebM, VP8), libav (H.264 and most other codecs), and
  # gst-launch-1.0, with which the tests make their clips; the ugly plugins for x264enc, with
  # which the tests encode their H.264/MP4 clip (decoding it is libav's).
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good gstreamer1.0-libav gstreamer1.0-tools gstreamer1.0-plugins-ugly
  # Videos' sound ([audio] sink = "auto": autoaudiosink picks one): ALSA's alsasink (pulsesink,
  # which PipeWire serves too, and wavenc, which the tests write WAV files with, are in -good).
  gstreamer1.0-alsa
  systemd util-linux
  # The Python client's tests (clients/python): pytest, and Pillow for Image.from_png.
  python3 python3-pytest python3-pil
  # The C client (clients/c): a C11 compiler, make and the C library's headers.
  gcc make libc6-dev
  # Wayland clients (LaminaWayland, docs/architecture.md "Wayland clients"): wlroots 0.15's
  # protocol types over libwayland-server; wayland-protocols and wayland-scanner (libwayland-bin)
  # for the xdg-shell header wlroots' own headers include; weston, foot and GTK 4 (through
  # python3-gi) for the unmodified test clients (weston-simple-shm, -simple-touch, -eventdemo,
  # -subsurfaces, weston-info; the foot terminal; a GTK 4 window with a popover menu).
  libwlroots-dev libwayland-dev libwayland-bin wayland-protocols libpixman-1-dev weston foot
  python3-gi gir1.2-gtk-4.0
  # A real browser engine as a Wayland app: cog, WPE WebKit's kiosk browser.
  cog
)
if [ "${LAMINA_VM_DEPS:-1}" = 1 ]; then
  # The KMS tests boot a throw-away QEMU guest (see docs/testing.md).
  # seatd: the seat test runs laminad as an ordinary user through seatd in the guest.
  # udev: the input tests run systemd-udevd in the guest, as libinput takes only devices udev
  # has seen (ID_INPUT_* properties).
  packages+=(qemu-system-x86 busybox-static seatd udev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "lamina: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Writes /usr/local/lib/pkgconfig/NAME.pc, once: DESCRIPTION, the version of package VERSION_OF,
# and the flags of PACKAGES with -pthread taken out (SwiftPM refuses it with a warning on every
# build, and glib's gthread brings it to pango, GStreamer, wlroots and librsvg). EXTRA_CFLAGS
# go before them.
write_pc() {
  local name=$1 description=$2 version_of=$3 packages=$4 extra_cflags=${5:-}
  local pc=/usr/local/lib/pkgconfig/$name.pc
  [ -f "$pc" ] && return 0
  local SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO mkdir -p "$(dirname "$pc")"
  # shellcheck disable=SC2086
  printf 'Name: %s\nDescription: %s (written by lamina scripts/deps.sh)\nVersion: %s\nCflags: %s\nLibs: %s\n' \
    "$name" "$description" "$(pkg-config --modversion "$version_of")" \
    "$extra_cflags$(pkg-config --cflags $packages | sed 's/-pthread//g')" "$(pkg-config --libs $packages)" \
    | $SUDO tee "$pc" >/dev/null
}

# CPango: pangocairo.
write_pc lamina-pangocairo "pangocairo without -pthread, for SwiftPM" pangocairo pangocairo
# CGStreamer: the app sink and the video library.
write_pc lamina-gstreamer "gstreamer-app and gstreamer-video without -pthread, for SwiftPM" gstreamer-1.0 \
  "gstreamer-app-1.0 gstreamer-video-1.0"
# CRsvg: librsvg.
write_pc lamina-rsvg "librsvg without -pthread, for SwiftPM" librsvg-2.0 librsvg-2.0

# wlroots 0.15's wlr_xdg_shell.h includes "xdg-shell-protocol.h", which every compositor
# generates from wayland-protocols with wayland-scanner. CWlroots reads wlroots' flags from
# lamina-wlroots.pc, whose include folder holds that header (generated here, once).
inc=/usr/local/include/lamina-wlroots
if [ ! -f "$inc/xdg-shell-protocol.h" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO mkdir -p "$inc"
  wayland-scanner server-header /usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml /dev/stdout | $SUDO tee "$inc/xdg-shell-protocol.h" >/dev/null
  $SUDO rm -f /usr/local/lib/pkgconfig/lamina-wlroots.pc
fi
write_pc lamina-wlroots "wlroots with the generated xdg-shell header, for SwiftPM" wlroots \
  "wlroots wayland-server pixman-1 xkbcommon" "-I$inc "

if ! command -v swift >/dev/null 2>&1; then
  for d in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$d/swift" ] && export PATH="$d:$PATH"
  done
fi
command -v swift >/dev/null 2>&1 || { echo "lamina: a Swift 6 toolchain must be on PATH (swift.org/install)" >&2; exit 1; }
