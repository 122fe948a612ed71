#!/usr/bin/env bash
# Runs every Lamina test: unit, protocol, real-EGL pixel tests, a real laminad over real
# sockets, and the KMS tests in a QEMU guest. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
bash scripts/preflight.sh

# laminad and laminactl are run by the end-to-end tests as real processes: build them too.
swift build --build-tests
# DRM tests must not run beside each other (one DRM master); Swift Testing suites that need it
# are .serialized. Parallel suites otherwise.
swift test --skip-build "$@"

# A short bounded pass of the coverage-guided fuzzers (docs/testing.md); LAMINA_FUZZ_SECONDS=0 skips it.
if [ $# -eq 0 ] && [ "${LAMINA_FUZZ_SECONDS:-20}" != 0 ]; then
  bash scripts/fuzz.sh "${LAMINA_FUZZ_SECONDS:-20}" all
fi
