#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer: scripts/fuzz.sh [SECONDS per target, default 60] [decoder|apply|compositor|journal|image|all]
# Builds Sources/lamina-fuzz with `--sanitize fuzzer` (its own scratch folder, .build-fuzz),
# seeds each corpus from the codec (the messages the golden-byte tests pin), runs each target
# for SECONDS, a hang over LAMINA_FUZZ_HANG_TIMEOUT seconds (default 10) counting as a crash,
# and prints executions and coverage. (libFuzzer's timeout is wall-clock time: an input run
# slowly on a loaded machine must not read as a hang.)
# Corpora and crash artifacts go under .cache/fuzz/. Exits non-zero when a target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
which=${2:-all}
hang_timeout=${LAMINA_FUZZ_HANG_TIMEOUT:-10}
targets=(decoder apply compositor journal image)
[ "$which" = all ] || targets=("$which")

LAMINA_FUZZ=1 swift build --scratch-path .build-fuzz --sanitize fuzzer --product lamina-fuzz 2>&1 | grep -Ev '^\[|^Building|^Compiling|^Write' || true
binary=.build-fuzz/debug/lamina-fuzz
[ -x "$binary" ] || { echo "fuzz: the fuzzer did not build" >&2; exit 1; }

status=0
for t in "${targets[@]}"; do
  corpus=.cache/fuzz/$t
  artifacts=.cache/fuzz/artifacts/$t/
  mkdir -p "$corpus" "$artifacts"
  log=.cache/fuzz/$t.log
  # Regression inputs (crashes found and fixed) are replayed first, then the corpus grows.
  regressions=()
  [ -d "Tests/Fuzz/$t" ] && regressions=("Tests/Fuzz/$t")
  set +e
  LAMINA_FUZZ_TARGET=$t LAMINA_FUZZ_SEEDS="$corpus" "$binary" "$corpus" "${regressions[@]}" \
    -max_total_time="$seconds" -timeout="$hang_timeout" -rss_limit_mb=2048 -max_len=8192 \
    -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}')
  cov=$(grep -E '(DONE|pulse|NEW|REDUCE) ' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
  echo "fuzz $t: ${runs:-?} executions in ${seconds} s, ${cov:-no coverage line}, corpus $(ls "$corpus" | wc -l) inputs, exit $rc"
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz $t FAILED: artifacts in $artifacts; the log's end:" >&2
    tail -40 "$log" >&2
  fi
done
exit $status
