#!/usr/bin/env bash
# Runs every Lamina test: unit, protocol, real-EGL pixel tests, a real laminad over real
# sockets, and the KMS tests in a QEMU guest. Installs what it needs first.
#
# Every step runs even when an earlier one failed (a failure must not hide what the later
# steps would find); steps that need the build are skipped, saying so, when it failed. The end
# lists each step's result; the exit status is non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
# Without the packages nothing builds: a failure to install them ends the run here.
set -e
source scripts/deps.sh
set +e

results=()
passed=0
failed=0
skipped=0
# step NAME COMMAND…: runs COMMAND as the step NAME and records how it ended and how long it
# took (the summary's times show where a run's minutes go).
step() {
  local name=$1 status start=$SECONDS took
  shift
  echo "lamina: step '$name': $*" >&2
  "$@"
  status=$?
  took=$((SECONDS - start))
  took="$((took / 60))m $((took % 60))s"
  if [ $status -eq 0 ]; then
    results+=("passed   $name ($took)")
    passed=$((passed + 1))
  else
    results+=("FAILED   $name (exit status $status, $took)")
    failed=$((failed + 1))
  fi
  return $status
}
# skip NAME WHY: records the step NAME as not run, and why.
skip() {
  results+=("skipped  $1 ($2)")
  skipped=$((skipped + 1))
}

# Every command and pkg-config module the tests use is here (a missing one fails loudly).
step preflight bash scripts/preflight.sh

# docs/architecture.md traces a frame with file:line: the lines must still say what it cites.
step "doc line references" /usr/bin/python3 scripts/check-doc-lines.py

# The KMS VM harness's host-side pieces (scripts/vm/test_vmkms.py: the shared shader cache's packs).
step "vm harness" /usr/bin/python3 -m pytest -q -p no:cacheprovider scripts/vm/test_vmkms.py

# laminad and laminactl are run by the end-to-end tests as real processes: build them too.
step build swift build --build-tests && built=1 || built=0

# The Debian packages (scripts/package.sh: a release build with the Swift runtime linked in,
# lintian-checked), which a KMS VM test installs on a guest without Swift
# (Tests/LaminaKMSTests/PackageVMTests.swift). LAMINA_PACKAGES=0 skips it (that test then skips).
if [ "${LAMINA_PACKAGES:-1}" = 0 ]; then
  rm -rf .build/packages
  skip "packages" "LAMINA_PACKAGES=0"
elif [ $built = 0 ]; then
  skip "packages" "the build failed"
else
  rm -rf .build/packages
  step "packages" bash scripts/package.sh --out .build/packages
fi

# The nested benchmark package (Benchmarks/) is never built here (minutes in release), but its
# manifest is resolved against this package's products, so a renamed or dropped product or target
# the benchmarks use fails here (about 10 s, nothing built). LAMINA_BENCH_CHECK=0 skips it.
if [ "${LAMINA_BENCH_CHECK:-1}" = 0 ]; then
  skip "benchmarks manifest" "LAMINA_BENCH_CHECK=0"
else
  step "benchmarks manifest" swift package --package-path Benchmarks show-dependencies >/dev/null
fi

# DRM tests must not run beside each other (one DRM master); Swift Testing suites that need it
# are .serialized. Parallel suites otherwise.
if [ $built = 1 ]; then
  step "swift tests" swift test --skip-build "$@"
else
  skip "swift tests" "the build failed"
fi

# The suites that render (in-process renderers and the laminad the end-to-end tests start, which
# inherits the environment) a second time on the ES 2 path with the extensions Raspberry Pi's
# VC4 lacks hidden, on an ES 2.0 context (Mesa's MESA_GLES_VERSION_OVERRIDE): same references,
# same tolerances (docs/gles2.md). The output names the mode ("GLES mode of this test run").
# LAMINA_GLES2_TESTS=0 skips it.
if [ $# -ne 0 ]; then
  skip "swift render tests, ES 2 (vc4)" "arguments given: they select Swift tests"
elif [ "${LAMINA_GLES2_TESTS:-1}" = 0 ]; then
  skip "swift render tests, ES 2 (vc4)" "LAMINA_GLES2_TESTS=0"
elif [ $built = 0 ]; then
  skip "swift render tests, ES 2 (vc4)" "the build failed"
else
  echo "lamina: GLES mode: ES 2 path, VC4 profile (LAMINA_GLES=vc4), ES 2.0 context (MESA_GLES_VERSION_OVERRIDE=2.0)" >&2
  step "swift render tests, ES 2 (vc4)" env LAMINA_GLES=vc4 MESA_GLES_VERSION_OVERRIDE=2.0 \
    swift test --skip-build --filter "${LAMINA_GLES2_SUITES:-LaminaGLESTests|LaminaEndToEndTests}"
fi

# The Python client (clients/python) against the laminad just built; LAMINA_PYTHON_TESTS=0 skips it.
# Debian's interpreter, not whatever python3 is first on PATH: the tests put the package from
# this checkout on sys.path themselves, so nothing is installed.
if [ "${LAMINA_PYTHON_TESTS:-1}" = 0 ]; then
  skip "python client" "LAMINA_PYTHON_TESTS=0"
elif [ $built = 0 ]; then
  skip "python client" "it needs the laminad the build failed to make"
else
  step "python client" env LAMINAD="$PWD/.build/debug/laminad" /usr/bin/python3 -m pytest -q -p no:cacheprovider clients/python/tests
fi

# The C client (clients/c): builds liblamina and its tests with -Wall -Wextra -Werror, checks the
# header against the protocol JSON and the encoder against the fixtures, then runs the README
# program against the laminad just built; LAMINA_C_TESTS=0 skips it.
if [ "${LAMINA_C_TESTS:-1}" = 0 ]; then
  skip "c client" "LAMINA_C_TESTS=0"
elif [ $built = 0 ]; then
  skip "c client" "it needs the laminad the build failed to make"
else
  step "c client" make -C clients/c check LAMINAD="$PWD/.build/debug/laminad" PYTHON=/usr/bin/python3
fi

# The C client cross-built for arm64 and armhf (Debian's cross compilers) and tested under
# qemu-user against the laminad just built; LAMINA_CROSS_TESTS=0 skips it.
if [ "${LAMINA_CROSS_TESTS:-1}" = 0 ]; then
  skip "c client, arm64 and armhf" "LAMINA_CROSS_TESTS=0"
elif [ $built = 0 ]; then
  skip "c client, arm64 and armhf" "it needs the laminad the build failed to make"
else
  step "c client, arm64 and armhf" env LAMINAD="$PWD/.build/debug/laminad" bash scripts/cross-c.sh
fi

# The Python and C clients' daemon tests again with laminad on the ES 2 path (the laminad they start
# inherits the mode), as the Swift render suites above; LAMINA_GLES2_TESTS=0 skips it.
if [ "${LAMINA_GLES2_TESTS:-1}" = 0 ]; then
  skip "python and c clients, ES 2 (vc4)" "LAMINA_GLES2_TESTS=0"
elif [ $built = 0 ]; then
  skip "python and c clients, ES 2 (vc4)" "it needs the laminad the build failed to make"
else
  step "python and c clients, ES 2 (vc4)" env LAMINA_GLES=vc4 MESA_GLES_VERSION_OVERRIDE=2.0 LAMINAD="$PWD/.build/debug/laminad" \
    bash -c '/usr/bin/python3 -m pytest -q -p no:cacheprovider clients/python/tests && make -C clients/c check PYTHON=/usr/bin/python3'
fi

# A short bounded pass of the coverage-guided fuzzers (docs/testing.md); LAMINA_FUZZ_SECONDS=0
# skips it. It builds its own binaries (.build-fuzz), so it runs even when the build failed.
if [ $# -ne 0 ]; then
  skip "fuzz" "arguments given: they select Swift tests"
elif [ "${LAMINA_FUZZ_SECONDS:-20}" = 0 ]; then
  skip "fuzz" "LAMINA_FUZZ_SECONDS=0"
else
  step "fuzz" bash scripts/fuzz.sh "${LAMINA_FUZZ_SECONDS:-20}" all
fi

echo
echo "lamina: each step's result:"
for r in "${results[@]}"; do echo "  $r"; done
echo "steps: $passed passed, $failed failed, $skipped skipped, in $((SECONDS / 60))m $((SECONDS % 60))s"
[ $failed -eq 0 ]
