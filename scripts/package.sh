#!/usr/bin/env bash
# Builds Lamina's Debian packages from the release build, for the machine's architecture:
#   laminad         the daemon (Swift runtime linked statically: no toolchain on the target),
#                   systemd units, sysusers.d (the lamina user and group), tmpfiles.d, a default
#                   /etc/lamina/laminad.toml, laminad(8) and laminad.toml(5)
#   laminactl       the command-line tool (static Swift runtime too), laminactl(1)
#   liblamina0      the C client library (Debian names a shared library's package by its
#                   SONAME, liblamina.so.0: this is "liblamina")
#   liblamina-dev   its header, the static library and lamina.pc for pkg-config
#   python3-lamina  the Python client
# then checks each with lintian (docs/packaging.md justifies the tags it still reports).
#
# Usage: scripts/package.sh [--out DIR] [--no-build] [--no-lintian]
#   --out DIR      where the .deb files go (default: out/packages)
#   --no-build     package .build/release's binaries as they are (they must be static-stdlib)
#   --no-lintian   skip the lintian run
# The man pages come from the programs themselves (scripts/manpages.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/out/packages BUILD=1 LINTIAN=1
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --no-lintian) LINTIAN=0; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "package.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
die() { echo "package.sh: $*" >&2; exit 1; }
cd "$ROOT"
source scripts/deps.sh
# dpkg-shlibdeps computes the packages' Depends; lintian checks them; fakeroot makes root-owned files.
need=()
for p in dpkg-dev lintian fakeroot; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
export PATH=/opt/swift/usr/bin:$PATH

VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' clients/python/pyproject.toml)
[ -n "$VERSION" ] || die "no version in clients/python/pyproject.toml"
ARCH=$(dpkg --print-architecture)
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# Reproducible: file times and the changelog's date are the last commit's.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
CHANGE_DATE=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
MAINTAINER="${DEBFULLNAME:-Lamina developers} <${DEBEMAIL:-lamina@example.org}>"

if [ "$BUILD" = 1 ]; then
  echo "# building laminad and laminactl (release, static Swift runtime)" >&2
  swift build -c release --static-swift-stdlib --product laminad >&2 || die "swift build laminad failed"
  swift build -c release --static-swift-stdlib --product laminactl >&2 || die "swift build laminactl failed"
  make -C clients/c -s clean >&2
  make -C clients/c -s build/liblamina.so build/liblamina.a build/lamina.pc PREFIX=/usr LIBDIR=/usr/lib/$MULTIARCH \
    CFLAGS="$(dpkg-buildflags --get CFLAGS)" LDFLAGS="$(dpkg-buildflags --get LDFLAGS) -Wl,-z,now" >&2 \
    || die "the C library did not build"
fi
BIN=$ROOT/.build/release
for b in laminad laminactl; do
  [ -x "$BIN/$b" ] || die "$BIN/$b missing (run without --no-build)"
  ! ldd "$BIN/$b" | grep -q libswiftCore || die "$BIN/$b links the Swift runtime dynamically (build with --static-swift-stdlib)"
done

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$OUT"
python3 scripts/manpages.py --laminad "$BIN/laminad" --laminactl "$BIN/laminactl" --out "$STAGE/man" --version "$VERSION" \
  --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"

# The common parts of every package: copyright, changelog, control.
doc() {  # doc PACKAGE DIR
  local d=$2/usr/share/doc/$1
  install -d "$d"
  install -m 644 packaging/copyright "$d/copyright"
  printf '%s (%s) unstable; urgency=medium\n\n  * Built from the Lamina repository (scripts/package.sh).\n\n -- %s  %s\n' \
    "$1" "$VERSION" "$MAINTAINER" "$CHANGE_DATE" | gzip -9n >"$d/changelog.gz"
  chmod 644 "$d/changelog.gz"
}
man_page() {  # man_page FILE SECTION DIR
  install -d "$3/usr/share/man/man$2"
  gzip -9n -c "$STAGE/man/$1" >"$3/usr/share/man/man$2/$1.gz"
  chmod 644 "$3/usr/share/man/man$2/$1.gz"
}
# Depends from the ELF files' needs (dpkg-shlibdeps needs a debian/control beside it).
shlibdeps() {  # shlibdeps DIR FILE... -> prints the Depends value
  local dir=$1; shift
  mkdir -p "$STAGE/shlib/debian"
  printf 'Source: lamina\n\nPackage: lamina\nArchitecture: any\n' >"$STAGE/shlib/debian/control"
  (cd "$STAGE/shlib" && dpkg-shlibdeps -O -l"$STAGE/libs" "$@" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}
control() {  # control DIR PACKAGE ARCH SECTION DEPENDS DESCRIPTION [EXTRA]
  local dir=$1 size
  install -d "$dir/DEBIAN"
  size=$(du -sk --exclude=DEBIAN "$dir" | cut -f1)
  {
    echo "Package: $2"
    echo "Version: $VERSION"
    echo "Architecture: $3"
    echo "Maintainer: $MAINTAINER"
    echo "Installed-Size: $size"
    [ -n "$5" ] && echo "Depends: $5"
    echo "Section: $4"
    echo "Priority: optional"
    [ -n "${7:-}" ] && printf '%s\n' "$7"
    echo "Description: $6"
    cat "packaging/$2.description"
  } >"$dir/DEBIAN/control"
}
build_deb() {  # build_deb DIR PACKAGE ARCH
  (cd "$1" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0r md5sum >DEBIAN/md5sums)
  chmod 644 "$1/DEBIAN/md5sums"
  find "$1" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  fakeroot dpkg-deb --root-owner-group -Zxz --build "$1" "$OUT/${2}_${VERSION}_$3.deb" >/dev/null
  echo "$OUT/${2}_${VERSION}_$3.deb"
}

# laminad
D=$STAGE/laminad
install -D -m 755 "$BIN/laminad" "$D/usr/bin/laminad"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$D/usr/bin/laminad"
install -D -m 644 systemd/laminad.service "$D/lib/systemd/system/laminad.service"
install -D -m 644 systemd/laminad.socket "$D/lib/systemd/system/laminad.socket"
install -D -m 644 systemd/lamina-scene.service "$D/lib/systemd/system/lamina-scene.service"
install -D -m 644 systemd/lamina.sysusers.conf "$D/usr/lib/sysusers.d/lamina.conf"
install -D -m 644 systemd/lamina.tmpfiles.conf "$D/usr/lib/tmpfiles.d/lamina.conf"
install -D -m 644 config/laminad.toml "$D/etc/lamina/laminad.toml"
man_page laminad.8 8 "$D"
man_page laminad.toml.5 5 "$D"
doc laminad "$D"
install -d "$D/usr/share/doc/laminad/examples"
install -m 644 systemd/laminad-direct.conf systemd/laminad-offline.conf packaging/scene.json "$D/usr/share/doc/laminad/examples/"
control "$D" laminad "$ARCH" graphics "$(shlibdeps "$D" "$D/usr/bin/laminad"), systemd" \
  "Core Animation-style compositor daemon for kiosks and dashboards" \
  "Recommends: seatd, fonts-dejavu-core, gstreamer1.0-plugins-good, gstreamer1.0-libav"
echo /etc/lamina/laminad.toml >"$D/DEBIAN/conffiles"
install -m 755 packaging/laminad.postinst "$D/DEBIAN/postinst"
install -m 755 packaging/laminad.prerm "$D/DEBIAN/prerm"
install -m 755 packaging/laminad.postrm "$D/DEBIAN/postrm"
build_deb "$D" laminad "$ARCH"

# laminactl
D=$STAGE/laminactl
install -D -m 755 "$BIN/laminactl" "$D/usr/bin/laminactl"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$D/usr/bin/laminactl"
man_page laminactl.1 1 "$D"
doc laminactl "$D"
control "$D" laminactl "$ARCH" graphics "$(shlibdeps "$D" "$D/usr/bin/laminactl")" \
  "command-line tool for the Lamina compositor"
build_deb "$D" laminactl "$ARCH"

# liblamina0 and liblamina-dev
C=clients/c/build
REAL=$(basename "$(readlink -f $C/liblamina.so)")
D=$STAGE/liblamina0
install -D -m 644 "$C/$REAL" "$D/usr/lib/$MULTIARCH/$REAL"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$D/usr/lib/$MULTIARCH/$REAL"
ln -s "$REAL" "$D/usr/lib/$MULTIARCH/liblamina.so.0"
doc liblamina0 "$D"
control "$D" liblamina0 "$ARCH" libs "$(shlibdeps "$D" "$D/usr/lib/$MULTIARCH/$REAL")" \
  "C client library for the Lamina compositor" "Multi-Arch: same"
echo "liblamina 0 liblamina0 (>= $VERSION)" >"$D/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$D/DEBIAN/triggers"
chmod 644 "$D/DEBIAN/shlibs" "$D/DEBIAN/triggers"
build_deb "$D" liblamina0 "$ARCH"

D=$STAGE/liblamina-dev
install -D -m 644 clients/c/include/lamina.h "$D/usr/include/lamina.h"
install -D -m 644 "$C/liblamina.a" "$D/usr/lib/$MULTIARCH/liblamina.a"
ln -s liblamina.so.0 "$D/usr/lib/$MULTIARCH/liblamina.so"
install -D -m 644 "$C/lamina.pc" "$D/usr/lib/$MULTIARCH/pkgconfig/lamina.pc"
doc liblamina-dev "$D"
control "$D" liblamina-dev "$ARCH" libdevel "liblamina0 (= $VERSION)" \
  "C client library for the Lamina compositor (development files)" "Multi-Arch: same"
build_deb "$D" liblamina-dev "$ARCH"

# python3-lamina
D=$STAGE/python3-lamina
install -d "$D/usr/lib/python3/dist-packages/lamina"
install -m 644 clients/python/lamina/*.py "$D/usr/lib/python3/dist-packages/lamina/"
[ -d clients/python/lamina/data ] && cp -r clients/python/lamina/data "$D/usr/lib/python3/dist-packages/lamina/"
doc python3-lamina "$D"
control "$D" python3-lamina all python "python3 (>= 3.10)" "Python client for the Lamina compositor" \
  "Suggests: python3-pil"
build_deb "$D" python3-lamina all

if [ "$LINTIAN" = 1 ]; then
  echo "# lintian (docs/packaging.md explains what it still reports)" >&2
  lintian --profile debian --suppress-tags-from-file packaging/lintian-overrides.txt "$OUT"/*_"$VERSION"_*.deb >&2 \
    || die "lintian found errors"
fi
