#!/usr/bin/env bash
# Runs every Lamina test: unit, protocol, real-EGL pixel tests, a real laminad over real
# sockets, and the KMS tests in a QEMU guest. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
bash scripts/preflight.sh

# laminad and laminactl are run by the end-to-end tests as real processes: build them too.
swift build --build-tests
# The nested benchmark package (Benchmarks/) is never built here (minutes in release), but its
# manifest is resolved against this package's products, so a renamed or dropped product or target
# the benchmarks use fails here (about 10 s, nothing built). LAMINA_BENCH_CHECK=0 skips it.
if [ "${LAMINA_BENCH_CHECK:-1}" != 0 ]; then
  swift package --package-path Benchmarks show-dependencies >/dev/null
fi
# DRM tests must not run beside each other (one DRM master); Swift Testing suites that need it
# are .serialized. Parallel suites otherwise.
swift test --skip-build "$@"

# The Python client (clients/python) against the laminad just built; LAMINA_PYTHON_TESTS=0 skips it.
# Debian's interpreter, not whatever python3 is first on PATH: the tests put the package from
# this checkout on sys.path themselves, so nothing is installed.
if [ "${LAMINA_PYTHON_TESTS:-1}" != 0 ]; then
  LAMINAD="$PWD/.build/debug/laminad" /usr/bin/python3 -m pytest -q -p no:cacheprovider clients/python/tests
fi

# The C client (clients/c): builds liblamina and its tests with -Wall -Wextra -Werror, checks the
# header against the protocol JSON and the encoder against the fixtures, then runs the README
# program against the laminad just built; LAMINA_C_TESTS=0 skips it.
if [ "${LAMINA_C_TESTS:-1}" != 0 ]; then
  make -C clients/c check LAMINAD="$PWD/.build/debug/laminad" PYTHON=/usr/bin/python3
fi

# A short bounded pass of the coverage-guided fuzzers (docs/testing.md); LAMINA_FUZZ_SECONDS=0 skips it.
if [ $# -eq 0 ] && [ "${LAMINA_FUZZ_SECONDS:-20}" != 0 ]; then
  bash scripts/fuzz.sh "${LAMINA_FUZZ_SECONDS:-20}" all
fi
