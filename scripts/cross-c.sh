#!/usr/bin/env bash
# Cross-builds the C client (clients/c) for arm64 and armhf with Debian's cross compilers and
# runs its tests under qemu-user: the golden fixtures, then the daemon tests against the host's
# laminad (a real socket: the emulated program speaks to the x86 laminad as any client would).
#
# Usage: scripts/cross-c.sh [ARCH...]   (default: arm64 armhf)
# Environment: LAMINAD (default .build/debug/laminad).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
ARCHES=${*:-arm64 armhf}
LAMINAD=${LAMINAD:-$ROOT/.build/debug/laminad}
declare -A TRIPLET=([arm64]=aarch64-linux-gnu [armhf]=arm-linux-gnueabihf)
declare -A QEMU=([arm64]=qemu-aarch64 [armhf]=qemu-arm)
declare -A LIBC=([arm64]=libc6-dev-arm64-cross [armhf]=libc6-dev-armhf-cross)
need=(qemu-user)
for a in $ARCHES; do
  [ -n "${TRIPLET[$a]:-}" ] || { echo "cross-c.sh: unknown architecture $a (arm64, armhf)" >&2; exit 64; }
  need+=("gcc-${TRIPLET[$a]}" "${LIBC[$a]}")
done
missing=()
for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -x "$LAMINAD" ] || { echo "cross-c.sh: no laminad at $LAMINAD (swift build first)" >&2; exit 1; }
status=0
for a in $ARCHES; do
  t=${TRIPLET[$a]}
  build=build-$a
  echo "# $a: building liblamina with $t-gcc" >&2
  make -C clients/c -s BUILD="$build" CC="$t-gcc" AR="$t-ar" "$build/liblamina.so" "$build/liblamina.a" "$build/test_lamina" >&2
  file -bL "clients/c/$build/liblamina.so" | grep -q "$( [ "$a" = arm64 ] && echo aarch64 || echo ARM)" \
    || { echo "cross-c.sh: $a: liblamina.so is not an $a library" >&2; exit 1; }
  run=("${QEMU[$a]}" -L "/usr/$t")
  echo "# $a: fixtures and daemon tests under ${QEMU[$a]}" >&2
  if ! "${run[@]}" "clients/c/$build/test_lamina" fixtures "$ROOT/protocol/fixtures"; then status=1; fi
  # The daemon tests spend their time in laminad (native) and in the emulated client; the test's
  # own alarm bounds a hang, not a slow machine's run (see test_lamina.c's main).
  if ! LAMINAD="$LAMINAD" LAMINA_TEST_ALARM=1800 "${run[@]}" "clients/c/$build/test_lamina" daemon; then status=1; fi
done
exit $status
