#!/usr/bin/env bash
# Frame-cost benchmark: what one frame costs laminad, side by side in one run.
#
# Builds laminad and laminactl (release), then for each case starts a headless laminad
# (1280x720, real clock), applies a scene, waits out a warm-up and measures over a window:
# frames drawn (framesRendered from `laminactl stats`), laminad's process CPU (the on-CPU time
# of all threads from /proc/PID/task/*/schedstat; tick-sampled utime+stime is printed beside it),
# CPU ms per frame, fps and peak RSS (VmHWM). One line per
# case on stdout, then the ratios (Benchmarks/README.md). It is a benchmark, not a test.
#
# Options: --runs N (1; medians when > 1)  --warmup S (3)  --window S (10)
#          --cases "peer peer-damage-off peer-static dashboard dashboard-damage-off square dashboard-static video snow scroll sparkline glass wallpaper
#                   gauge-drawing gauge-shapes app-full app-foot app-layer"
#          (video: a 1280x720 30 fps VP8 clip, made with gst-launch-1.0, full screen at 60 fps;
#          snow: an emitter layer with 5,000 live particles, 8x8 flakes falling and turning;
#          scroll: Benchmarks/scenes/scroll_list.py's 1,000-row list, flung down the list by injected
#          touches every 1.5 s through warm-up and window, so laminad scrolls it every frame;
#          sparkline: Benchmarks/scenes/sparkline.py, a Python client whose display link sets a
#          240-point sparkline's path at every refresh, so laminad rasterises a new shape per frame;
#          glass: the peer scene with a 400x300 frosted panel over its moving rectangles, a
#          background blur of radius 20 under a translucent white, rounded 16;
#          wallpaper: the peer scene over a full-screen opaque picture, as a kiosk's UI over its
#          wallpaper;
#          gauge-drawing, gauge-shapes: Benchmarks/scenes/gauge_driver.py's 240x160 gauge, its value
#          changed 60 times a second by a Python client, recorded as a drawing each frame (laminad
#          rasterises it each frame) or as shape and text layers (strokeEnd, a transform, a string);
#          app-full, app-foot: Wayland apps in kiosk mode, laminad's own CPU: weston-simple-egl
#          redrawing its whole 1280x720 window every frame, and foot with only its cursor blinking;
#          app-layer: the same weston-simple-egl as a scene's "app" in a layer with rounded corners
#          clipping it, laminactl apply managing it)
#          --qt (also run the Qt Quick peer, /work/shared/peers/qt-bench.sh; $PEERS overrides the folder;
#          with the glass case, also Benchmarks/peers/scene-glass.qml, the glass scene in Qt Quick;
#          with the snow case, Benchmarks/peers/scene-snow.qml, the snow in Qt Quick Particles,
#          installing qml6-module-qtquick-particles where it is missing)
#          --gles "3 2" (run every case once per renderer path, labelled -es3, -es2, -esvc4, and print
#          each ES 2 / ES 3 ratio, target <= 1.3; 2 and vc4 run on an ES 2.0 context,
#          MESA_GLES_VERSION_OVERRIDE=2.0; default: the path the context gives, unlabelled)
#          --no-build (use the binaries in .build/release as they are)
#          --keep (keep the scratch folder: laminad logs, stats, scenes, screenshots)
# Environment: LAMINAD=PATH measures that laminad binary instead of .build/release's (an A/B
#          comparison alternates runs of two binaries); LAMINACTL=PATH likewise (scripts/gpu-run.sh
#          runs a bundle's binaries on another machine).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=1 WARMUP=3 WINDOW=10 QT=0 BUILD=1 KEEP=0 GLES_MODES=auto
ALL_CASES="peer peer-damage-off peer-static dashboard dashboard-damage-off square dashboard-static video snow scroll sparkline glass wallpaper gauge-drawing gauge-shapes app-full app-foot app-layer"
CASES=$ALL_CASES
PEERS=${PEERS:-/work/shared/peers}
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --window) WINDOW=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --gles) GLES_MODES=$2; shift 2 ;;
    --qt) QT=1; shift ;;
    --no-build) BUILD=0; shift ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "bench-frames: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench-frames: --runs takes a positive integer (got '$RUNS')" >&2; exit 2; }
for c in $CASES; do
  [[ " $ALL_CASES " == *" $c "* ]] || { echo "bench-frames: unknown case '$c' (known: $ALL_CASES)" >&2; exit 2; }
done
for g in $GLES_MODES; do
  [[ " auto 2 3 vc4 " == *" $g "* ]] || { echo "bench-frames: --gles takes auto, 2, 3 or vc4 (got '$g')" >&2; exit 2; }
done

die() { echo "bench-frames: $*" >&2; FAILED=1; exit 1; }

TMP=$(mktemp -d /tmp/bench-frames.XXXXXX)
LAMINAD_PID=
FAILED=0
stop_laminad() {
  local pid=$LAMINAD_PID
  LAMINAD_PID=
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  stop_laminad
  if [ "$KEEP" = 1 ] || [ "$FAILED" = 1 ] || [ "$rc" != 0 ]; then
    echo "bench-frames: scratch kept in $TMP" >&2
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$BUILD" = 1 ]; then
  echo "# building laminad and laminactl (release)" >&2
  nice -n 19 swift build -c release --product laminad >&2 || die "swift build -c release --product laminad failed"
  nice -n 19 swift build -c release --product laminactl >&2 || die "swift build -c release --product laminactl failed"
fi
LAMINAD=${LAMINAD:-$ROOT/.build/release/laminad}
LAMINACTL=${LAMINACTL:-$ROOT/.build/release/laminactl}
[ -x "$LAMINAD" ] && [ -x "$LAMINACTL" ] || die "$LAMINAD or $LAMINACTL missing (build, or drop --no-build)"

# The scenes the cases need, each checked by laminactl's own parser (eval) before a daemon sees it.
SCENES=
for c in $CASES; do
  s=${c%-damage-off}
  [[ " $SCENES " == *" $s "* ]] || SCENES="$SCENES $s"
done
for s in $SCENES; do
  case "$s" in
    peer|peer-static) python3 "$PEERS/lamina-scene.py" "$([ "$s" = peer ] && echo animated || echo static)" >"$TMP/$s.json" \
      || die "could not write the $s scene ($PEERS/lamina-scene.py)" ;;
    video)
      # A 1280x720 30 fps clip of GStreamer's moving test pattern, 10 s, looped full screen.
      gst-launch-1.0 -q videotestsrc num-buffers=300 pattern=ball motion=sweep \
        ! video/x-raw,width=1280,height=720,framerate=30/1 ! vp8enc deadline=1 cpu-used=8 ! webmmux \
        ! filesink location="$TMP/clip.webm" >/dev/null 2>&1 || die "gst-launch-1.0 could not make the video clip"
      echo '{"sublayers": [{"name": "video", "bounds": [0, 0, 1280, 720], "position": [640, 360],
        "video": "clip.webm", "loop": true, "playing": true}]}' >"$TMP/video.json" ;;
    snow)
      # 500 flakes a second living 10 s: 5,000 live particles over the whole screen, each an
      # 8x8 white disc (a PNG written here), falling, drifting and turning.
      python3 - "$TMP/flake.png" <<'PNG' || die "could not write the flake image"
import struct, sys, zlib
rows = b"".join(b"\0" + b"".join(bytes([255, 255, 255, 255 if (x - 3.5) ** 2 + (y - 3.5) ** 2 <= 16 else 0])
                                   for x in range(8)) for y in range(8))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 6, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
PNG
      echo '{"sublayers": [{"name": "snow", "class": "emitter", "frame": [0, 0, 1280, 720],
        "emitterPosition": [640, 360], "emitterSize": [1280, 720], "emitterShape": "rectangle", "seed": 1,
        "emitterCells": [{"name": "flake", "contents": "flake.png", "birthRate": 500, "lifetime": 10,
          "velocity": 40, "velocityRange": 20, "emissionLongitude": 1.5708, "emissionRange": 1,
          "yAcceleration": 4, "spin": 0.5, "spinRange": 2, "scale": 1, "scaleRange": 0.5,
          "color": [0.9, 0.95, 1, 0.9], "alphaRange": 0.1}]}]}' >"$TMP/snow.json" ;;
    scroll) python3 "$ROOT/Benchmarks/scenes/scroll_list.py" >"$TMP/scroll.json" || die "could not write the scroll scene" ;;
    # The sparkline is the client's (started with laminad); the scene is only the backdrop.
    sparkline) echo '{"sublayers": [{"name": "backdrop", "frame": [0, 0, 1280, 720], "backgroundColor": "#000000"}]}' >"$TMP/sparkline.json" ;;
    glass)
      # The peer scene's moving rectangles under a 400x300 frosted panel in the middle.
      python3 "$PEERS/lamina-scene.py" animated | python3 -c '
import json, sys
scene = json.load(sys.stdin)
scene["sublayers"].append({"name": "glass", "frame": [440, 210, 400, 300], "backgroundColor": [1, 1, 1, 0.25],
                           "cornerRadius": 16, "backgroundFilters": [{"name": "frost", "type": "gaussianBlur", "inputRadius": 20}]})
json.dump(scene, sys.stdout)' >"$TMP/glass.json" || die "could not write the glass scene" ;;
    wallpaper)
      # The peer scene's moving rectangles over a full-screen opaque picture (a PNG written
      # here, no "opaque" flag: its pixels are read opaque), as a kiosk's UI over its wallpaper.
      python3 - "$TMP/wallpaper.png" <<'PNG' || die "could not write the wallpaper image"
import struct, sys, zlib
w, h = 1280, 720
rows = b"".join(b"\0" + bytes(v for x in range(w) for v in ((x * 7 + y * 3) & 255, (x // 5 + y) & 255, (y * 5) & 255, 255))
                for y in range(h))
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))
PNG
      python3 "$PEERS/lamina-scene.py" animated | python3 -c '
import json, sys
scene = json.load(sys.stdin)
scene["sublayers"].insert(0, {"name": "wallpaper", "frame": [0, 0, 1280, 720], "contents": "wallpaper.png"})
json.dump(scene, sys.stdout)' >"$TMP/wallpaper.json" || die "could not write the wallpaper scene" ;;
    gauge-drawing|gauge-shapes|app-full|app-foot|app-layer) echo '{"sublayers": []}' >"$TMP/$s.json" ;;
    *) python3 "$ROOT/Benchmarks/scenes/dashboard.py" "$s" >"$TMP/$s.json" || die "could not write the $s scene" ;;
  esac
  "$LAMINACTL" eval "$TMP/$s.json" --at 0 >/dev/null 2>"$TMP/$s.eval.err" \
    || die "laminactl refuses the $s scene: $(cat "$TMP/$s.eval.err")"
done

TCK=$(getconf CLK_TCK)
cpu_ticks() {  # utime + stime of the whole process (fields 14 and 15 of /proc/PID/stat)
  local s rest
  s=$(<"/proc/$1/stat") || return 1
  rest=${s##*) }
  local -a f
  read -ra f <<<"$rest"
  echo $((f[11] + f[12]))
}
sched_ns() {  # on-CPU nanoseconds of every thread (first field of /proc/PID/task/*/schedstat)
  local t total=0 v
  for t in /proc/"$1"/task/*/schedstat; do
    read -r v _ <"$t" 2>/dev/null && total=$((total + v))
  done
  echo "$total"
}
status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
stat_value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
now() { echo "$EPOCHREALTIME"; }

# fling_once SOCKET DIR: one fling, 5 moves of 120 points about 10 ms apart (DIR -1 down the
# list, 1 up), released at once; fails when laminactl does.
fling_once() {
  local sock=$1 dir=$2 y
  y=$((dir < 0 ? 620 : 100))
  "$LAMINACTL" input --socket "$sock" touch down 1 640 "$y" >/dev/null 2>&1 || return 1
  for _ in 1 2 3 4 5; do
    y=$((y + dir * 120))
    sleep 0.01
    "$LAMINACTL" input --socket "$sock" touch move 1 640 "$y" >/dev/null 2>&1 || return 1
  done
  "$LAMINACTL" input --socket "$sock" touch up 1 >/dev/null 2>&1 || return 1
}

# fling SOCKET: flings the scroll case's list with injected touches (`fling_once`), one every
# 1.5 s until killed, so laminad's momentum moves the list on every frame in between. Always
# down the list (about 1,500 points a second, of its 71,000): a fling back up would bring it to
# rest at its top, where no frame is wanted and the fps would count the list standing still.
# Every 20 flings (30 s, past any usual run) the direction turns, so a long window still scrolls.
fling() {
  local sock=$1 dir=-1 n=0
  while true; do
    fling_once "$sock" "$dir" || return 0
    n=$((n + 1))
    if [ $((n % 20)) = 0 ]; then dir=$((-dir)); fi
    sleep 1.5
  done
}

# run_case LABEL SCENE DAMAGE RUN: one laminad, one scene, one measuring window.
# Appends "label run key=value ..." to $TMP/results.
run_case() {
  local label=$1 scene=$2 damage=$3 run=$4 gles=${5:-auto}
  local dir=$TMP/$label-run$run
  mkdir -p "$dir"
  local sock=$dir/s.sock log=$dir/laminad.log
  # The ES 2 path on an ES 2.0 context, as a board without ES 3 gives (docs/gles2.md).
  # (--gles only where asked for: an older laminad given with LAMINAD= lacks the flag.)
  local override= flag=()
  if [ "$gles" = 2 ] || [ "$gles" = vc4 ]; then override=2.0; fi
  if [ "$gles" != auto ]; then flag=(--gles "$gles"); fi
  env ${override:+MESA_GLES_VERSION_OVERRIDE=$override} \
  "$LAMINAD" --backend headless --size 1280x720 --clock real --socket "$sock" --session-journal "" \
    --damage "$damage" "${flag[@]}" >"$log" 2>&1 &
  LAMINAD_PID=$!
  local pid=$LAMINAD_PID up=0 state
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    if [ -S "$sock" ] && "$LAMINACTL" stats --socket "$sock" >"$dir/stats-boot" 2>/dev/null; then up=1; break; fi
    sleep 0.1
  done
  if [ "$up" != 1 ]; then
    kill -0 "$pid" 2>/dev/null && state="still running, no socket after 10 s" || state="exited"
    echo "bench-frames: laminad did not come up for $label ($state); $log:" >&2
    tail -n 30 "$log" >&2
    die "laminad did not come up"
  fi
  if ! "$LAMINACTL" apply --socket "$sock" "$TMP/$scene.json" >"$dir/apply.out" 2>"$dir/apply.err"; then
    echo "bench-frames: laminactl apply refused the $scene scene for $label:" >&2
    cat "$dir/apply.err" >&2
    echo "--- $log:" >&2; tail -n 30 "$log" >&2
    die "the $scene scene was refused"
  fi
  local driver=
  if [ "$scene" = scroll ]; then fling "$sock" & driver=$!; fi
  if [ "$scene" = sparkline ]; then
    PYTHONPATH="$ROOT/clients/python" python3 "$ROOT/Benchmarks/scenes/sparkline.py" "$sock" >"$dir/sparkline.log" 2>&1 & driver=$!
  elif [ "$scene" = app-full ]; then
    # A Wayland app redrawing its whole 1280x720 window every frame (kiosk mode: it is
    # configured to the desktop): weston-simple-egl draws with llvmpipe into wl_shm buffers.
    WAYLAND_DISPLAY="$dir/wayland-lamina-0" XDG_RUNTIME_DIR="$dir" LIBGL_ALWAYS_SOFTWARE=1 \
      weston-simple-egl -o >"$dir/app.log" 2>&1 & driver=$!
  elif [ "$scene" = app-layer ]; then
    # The same app as a scene's "app": laminactl apply runs it and manages it; its window is
    # the contents of a full-screen layer with rounded corners (masksToBounds).
    echo '{"sublayers": [{"name": "app", "frame": [0, 0, 1280, 720], "cornerRadius": 24, "masksToBounds": true, "app": ["weston-simple-egl", "-o"]}]}' >"$dir/app-layer.json"
    XDG_RUNTIME_DIR="$dir" LIBGL_ALWAYS_SOFTWARE=1 "$LAMINACTL" apply --socket "$sock" --session app-layer "$dir/app-layer.json" >"$dir/app.log" 2>&1 & driver=$!
  elif [ "$scene" = app-foot ]; then
    # foot with only its cursor blinking: its damage is the cursor's cell.
    WAYLAND_DISPLAY="$dir/wayland-lamina-0" XDG_RUNTIME_DIR="$dir" \
      foot --config /dev/null -o cursor.blink=yes sleep 3600 >"$dir/app.log" 2>&1 & driver=$!
  elif [[ $scene == gauge-* ]]; then
    PYTHONPATH="$ROOT/clients/python" python3 "$ROOT/Benchmarks/scenes/gauge_driver.py" "$sock" "${scene#gauge-}" \
      >"$dir/driver.log" 2>&1 & driver=$!
  fi
  sleep "$WARMUP"
  kill -0 "$pid" 2>/dev/null || { echo "--- $log:" >&2; tail -n 30 "$log" >&2; die "laminad died during the warm-up of $label"; }

  local t0 t1 c0 c1 f0 f1 n0 n1
  "$LAMINACTL" stats --socket "$sock" >"$dir/stats0" || die "laminactl stats failed for $label"
  c0=$(cpu_ticks "$pid"); n0=$(sched_ns "$pid"); t0=$(now)
  sleep "$WINDOW"
  "$LAMINACTL" stats --socket "$sock" >"$dir/stats1" || die "laminactl stats failed for $label"
  c1=$(cpu_ticks "$pid"); n1=$(sched_ns "$pid"); t1=$(now)
  if [ -n "$driver" ]; then kill "$driver" 2>/dev/null || true; wait "$driver" 2>/dev/null || true; fi
  # The scroll case again with nothing injected during the count: one fling, then 2 s of the
  # list moving on momentum alone, every refresh a frame. (In the window above the finger holds
  # the list still between injected touch events, each a laminactl process some 25 ms apart,
  # and a refresh with nothing moved draws no frame.)
  local momentum=
  if [ "$scene" = scroll ]; then
    local m0 m1 mt0 mt1
    # (A fling the driver was killed in the middle of is cancelled first.)
    "$LAMINACTL" input --socket "$sock" touch cancel 1 640 620 >/dev/null 2>&1 || true
    fling_once "$sock" -1 || true
    sleep 0.1
    "$LAMINACTL" stats --socket "$sock" >"$dir/momentum0" && sleep 2 && "$LAMINACTL" stats --socket "$sock" >"$dir/momentum1" \
      || die "laminactl stats failed for $label's momentum count"
    m0=$(stat_value "$dir/momentum0" framesRendered); m1=$(stat_value "$dir/momentum1" framesRendered)
    mt0=$(stat_value "$dir/momentum0" time); mt1=$(stat_value "$dir/momentum1" time)
    momentum=" mframes=$((m1 - m0)) mspan=$(awk -v a="$mt0" -v b="$mt1" 'BEGIN{printf "%.4f", b - a}')"
  fi
  local hwm
  hwm=$(status_kb "$pid" VmHWM)
  kill -0 "$pid" 2>/dev/null || { echo "--- $log:" >&2; tail -n 30 "$log" >&2; die "laminad died during the window of $label"; }
  f0=$(stat_value "$dir/stats0" framesRendered); f1=$(stat_value "$dir/stats1" framesRendered)
  # The time between the two counts on laminad's own clock (`time` in stats): fps is frames
  # over it, not over the window measured here, which also holds the second stats request's
  # round trip (longer for a bigger tree: tens of ms on the scroll case's 3,000 layers).
  local s0 s1 span=
  s0=$(stat_value "$dir/stats0" time); s1=$(stat_value "$dir/stats1" time)
  if [ -n "$s0" ] && [ -n "$s1" ]; then span=$(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.4f", b - a}'); fi
  [ -n "$f0" ] && [ -n "$f1" ] || die "laminactl stats has no framesRendered (see $dir/stats1)"
  local full0 full1 layers frac
  full0=$(stat_value "$dir/stats0" damage.fullFrames); full1=$(stat_value "$dir/stats1" damage.fullFrames)
  layers=$(stat_value "$dir/stats1" layers)
  frac=$(stat_value "$dir/stats1" damage.lastFraction)
  # What the display showed at the end (outside the window; kept with --keep).
  "$LAMINACTL" screenshot --socket "$sock" "$dir/screen.png" >/dev/null 2>&1 || true
  stop_laminad
  if grep -qiE 'critical|fatal|error' "$log"; then
    echo "# $label: laminad logged errors ($log):" >&2; grep -iE 'critical|fatal|error' "$log" | head -5 >&2
  fi
  echo "$label $run frames=$((f1 - f0)) ticks=$((c1 - c0)) sched_ms=$(awk -v a="$n0" -v b="$n1" 'BEGIN{printf "%.3f", (b - a) / 1e6}') wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", b - a}')${span:+ span=$span} hwm_kb=$hwm full_frames=$(( ${full1:-0} - ${full0:-0} )) layers=$layers last_damage=${frac:-n/a} damage=$damage$momentum" >>"$TMP/results"
}

# With the glass case, the Qt peer also runs the glass scene (Benchmarks/peers/scene-glass.qml,
# Qt5Compat.GraphicalEffects' GaussianBlur); with the snow case, the snow scene in Qt Quick
# Particles (Benchmarks/peers/scene-snow.qml, with the same flake.png). The peers' scripts are
# copied beside them, since qt-bench.sh reads scene-<variant>.qml next to itself.
QT_VARIANTS="animated static"
QT_PEERS=$PEERS
if [ "$QT" = 1 ]; then
  for v in glass snow; do
    [[ " $CASES " == *" $v "* ]] || continue
    if [ "$QT_PEERS" = "$PEERS" ]; then
      QT_PEERS=$TMP/peers
      mkdir -p "$QT_PEERS"
      cp -p "$PEERS"/* "$QT_PEERS"/
    fi
    QT_VARIANTS="$QT_VARIANTS $v"
    cp "$ROOT/Benchmarks/peers/scene-$v.qml" "$QT_PEERS"/
  done
  if [[ " $QT_VARIANTS " == *" snow "* ]]; then
    cp "$TMP/flake.png" "$QT_PEERS"/
    # Qt Quick Particles is not among qt-bench.sh --install's packages.
    if ! dpkg -s qml6-module-qtquick-particles >/dev/null 2>&1; then
      echo "# installing qml6-module-qtquick-particles (Qt Quick Particles, for the snow peer)" >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qml6-module-qtquick-particles >&2 \
        || die "could not install qml6-module-qtquick-particles for the snow case's Qt peer"
    fi
  fi
fi

run_qt() {
  local run=$1 out
  local peerdir=${PEERBENCH_DIR:-/tmp/peerbench}
  out=$(PEERBENCH_DIR=$peerdir "$QT_PEERS/qt-bench.sh" --runs 1 --warmup "$WARMUP" --window "$WINDOW" \
        --variants "$QT_VARIANTS" 2>"$TMP/qt-run$run.err") \
    || { cat "$TMP/qt-run$run.err" >&2; die "the Qt peer failed (install it with $PEERS/qt-bench.sh --install)"; }
  echo "$out" >"$TMP/qt-run$run.out"
  for v in $QT_VARIANTS; do
    python3 - "$peerdir/qt-$v.json" "qt-$v" "$run" >>"$TMP/results" <<'EOF' || die "could not read the Qt peer's $v result"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
print(f"{sys.argv[2]} {sys.argv[3]} frames={r['frames']} cpu_ms={r['cpu_ms_per_s'] * r['wall_s']:.3f} "
      f"sched_ms={r['sched_cpu_ms_per_s'] * r['wall_s']:.3f} wall={r['wall_s']} hwm_kb={r['rss_mb'] * 1024:.0f}")
EOF
  done
}

label_of() {  # case -> (label scene damage)
  case "$1" in
    peer) echo "lamina-peer peer on" ;;
    peer-damage-off) echo "lamina-peer-damage-off peer off" ;;
    peer-static) echo "lamina-peer-static peer-static on" ;;
    dashboard) echo "lamina-dashboard dashboard on" ;;
    dashboard-damage-off) echo "lamina-dashboard-damage-off dashboard off" ;;
    square) echo "lamina-square square on" ;;
    dashboard-static) echo "lamina-dashboard-static dashboard-static on" ;;
    video) echo "lamina-video video on" ;;
    snow) echo "lamina-snow snow on" ;;
    scroll) echo "lamina-scroll scroll on" ;;
    sparkline) echo "lamina-sparkline sparkline on" ;;
    glass) echo "lamina-glass glass on" ;;
    wallpaper) echo "lamina-wallpaper wallpaper on" ;;
    gauge-drawing) echo "lamina-gauge-drawing gauge-drawing on" ;;
    gauge-shapes) echo "lamina-gauge-shapes gauge-shapes on" ;;
    app-full) echo "lamina-app-full app-full on" ;;
    app-foot) echo "lamina-app-foot app-foot on" ;;
    app-layer) echo "lamina-app-layer app-layer on" ;;
  esac
}

echo "# $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "# warm-up ${WARMUP} s, window ${WINDOW} s, ${RUNS} run(s); cases: $CASES$([ "$QT" = 1 ] && echo ' + qt')" >&2
: >"$TMP/results"
# Runs are interleaved (run 1 of every case, then run 2, ...) so that drift in the machine's
# load spreads over all cases instead of landing on one; even runs go through the cases in the
# reverse order, so a machine speeding up or slowing down over a run favours no case.
REVERSED=$(printf '%s\n' $CASES | tac | tr '\n' ' ')
for run in $(seq "$RUNS"); do
  order=$CASES
  if [ $((run % 2)) = 0 ]; then order=$REVERSED; fi
  for c in $order; do
    read -r label scene damage <<<"$(label_of "$c")"
    for g in $GLES_MODES; do
      l=$label
      if [ "$GLES_MODES" != auto ]; then l=$label-es$g; fi
      run_case "$l" "$scene" "$damage" "$run" "$g"
      if [ "$RUNS" -gt 1 ]; then echo "#  run $run: $(tail -n 1 "$TMP/results")" >&2; fi
    done
  done
  if [ "$QT" = 1 ]; then
    run_qt "$run"
    if [ "$RUNS" -gt 1 ]; then tail -n 2 "$TMP/results" | sed "s/^/#  run $run: /" >&2; fi
  fi
done

python3 - "$TMP/results" "$TCK" "$RUNS" <<'EOF'
import statistics, sys
path, tck, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per = {}
for line in open(path):
    parts = line.split()
    label, kv = parts[0], dict(p.split("=", 1) for p in parts[2:])
    wall = float(kv["wall"])
    frames = int(kv["frames"])
    tick_ms = float(kv["cpu_ms"]) if "cpu_ms" in kv else int(kv["ticks"]) * 1000.0 / tck
    # CPU is the threads' exact on-CPU time (schedstat). Tick-sampled utime+stime is kept for
    # reference: a process waking at 60 Hz beside the kernel's tick is counted very unevenly.
    cpu_ms = float(kv["sched_ms"])
    span = float(kv["span"]) if float(kv.get("span", 0)) > 0 else wall
    r = {"frames": frames, "fps": frames / span, "cpu_ms_per_s": cpu_ms / wall,
         "cpu_ms_per_frame": cpu_ms / frames if frames else None, "rss_mb": int(kv["hwm_kb"]) / 1024.0,
         "tick_ms_per_frame": tick_ms / frames if frames else None}
    if "mframes" in kv:
        r["momentum_fps"] = int(kv["mframes"]) / float(kv["mspan"])
        r["momentum_missed"] = max(0, int(float(kv["mspan"]) * 60) - int(kv["mframes"]))
    if "full_frames" in kv:
        r["full_frames"] = int(kv["full_frames"])
        r["layers"] = kv["layers"]
        r["damage"] = kv["damage"]
    per.setdefault(label, []).append(r)

def med(label, key):
    vals = [r[key] for r in per.get(label, []) if r.get(key) is not None]
    return statistics.median(vals) if vals else None

def f(v, nd=1):
    return "n/a" if v is None else f"{v:.{nd}f}"

order = [l for l in per]
for label in order:
    rs = per[label]
    line = (f"{label}: fps={f(med(label, 'fps'))} cpu_ms_per_frame={f(med(label, 'cpu_ms_per_frame'), 2)} "
            f"cpu_ms_per_s={f(med(label, 'cpu_ms_per_s'))} tick_ms_per_frame={f(med(label, 'tick_ms_per_frame'), 2)} "
            f"rss_mb={f(med(label, 'rss_mb'))} "
            f"frames={f(med(label, 'frames'), 0)}")
    if "damage" in rs[0]:
        line += f" (damage {rs[0]['damage']}, full_frames={f(med(label, 'full_frames'), 0)}, layers={rs[0]['layers']})"
    if runs > 1:
        line += f" [median of {len(rs)}]"
    print(line)

def ratio(a, b, key, target=None, cmp=None):
    va, vb = med(a, key), med(b, key)
    if a not in per or b not in per:
        missing = " and ".join(x for x in (a, b) if x not in per)
        return f"n/a ({missing} not run)"
    if va is None or vb is None or vb == 0:
        return f"n/a ({a}={f(va, 2)}, {b}={f(vb, 2)})"
    r = va / vb
    s = f"{r:.2f}x ({f(va, 2)} / {f(vb, 2)})"
    if target is not None:
        ok = r <= target if cmp == "<=" else r < target
        s += f"  target {cmp} {target}x: {'met' if ok else 'NOT met'}"
    return s

print()
print("ratios (same run; CPU per frame unless said):")
print(f"  dashboard / square:                {ratio('lamina-dashboard', 'lamina-square', 'cpu_ms_per_frame', 2, '<=')}")
print(f"  peer lamina / qt:                  {ratio('lamina-peer', 'qt-animated', 'cpu_ms_per_frame', 0.5, '<=')}")
print(f"  peer lamina / qt, peak RSS:        {ratio('lamina-peer', 'qt-animated', 'rss_mb', 1, '<')}")
print(f"  peer damage on / off:              {ratio('lamina-peer', 'lamina-peer-damage-off', 'cpu_ms_per_frame')}")
if "lamina-glass" in per:
    print(f"  glass / peer:                      {ratio('lamina-glass', 'lamina-peer', 'cpu_ms_per_frame', 1.5, '<=')}")
    if "qt-glass" in per:
        print(f"  glass lamina / qt:                 {ratio('lamina-glass', 'qt-glass', 'cpu_ms_per_frame')}")
        print(f"  glass / peer, qt:                  {ratio('qt-glass', 'qt-animated', 'cpu_ms_per_frame')}")
if "lamina-wallpaper" in per:
    print(f"  wallpaper / peer:                  {ratio('lamina-wallpaper', 'lamina-peer', 'cpu_ms_per_frame')}")
if "lamina-snow" in per:
    print(f"  snow / peer:                       {ratio('lamina-snow', 'lamina-peer', 'cpu_ms_per_frame', 1, '<=')}")
    if "qt-snow" in per:
        # (Qt's particles ask for frames unthrottled on Xvfb: per frame, at its own rate.)
        print(f"  snow lamina / qt:                  {ratio('lamina-snow', 'qt-snow', 'cpu_ms_per_frame')}")
        print(f"  snow / peer, qt:                   {ratio('qt-snow', 'qt-animated', 'cpu_ms_per_frame')}")
print(f"  dashboard damage on / off:         {ratio('lamina-dashboard', 'lamina-dashboard-damage-off', 'cpu_ms_per_frame')}")
# --gles: each case's ES 2 (or vc4) run against its ES 3 run (issue 29: at most 1.3x on peer and dashboard).
for label in order:
    for es2 in ("-es2", "-esvc4"):
        if label.endswith(es2) and label[:-len(es2)] + "-es3" in per:
            base = label[:-len(es2)]
            print(f"  {base} {es2[1:]} / es3:".ljust(37) + ratio(label, base + "-es3", 'cpu_ms_per_frame', 1.3, '<='))
if "lamina-video" in per:
    print(f"  video 1280x720 30 fps at 60 fps:   {f(med('lamina-video', 'cpu_ms_per_frame'), 2)} ms per frame, "
          f"{f(med('lamina-video', 'cpu_ms_per_s'))} ms of CPU per s, {f(med('lamina-video', 'fps'))} fps (system-memory upload; no overlay plane headless)")
for mode in ("drawing", "shapes"):
    if f"lamina-gauge-{mode}" in per:
        print(f"  gauge redrawn every frame ({mode}): {f(med(f'lamina-gauge-{mode}', 'cpu_ms_per_frame'), 2)} ms per frame, "
              f"{f(med(f'lamina-gauge-{mode}', 'cpu_ms_per_s'))} ms of CPU per s, {f(med(f'lamina-gauge-{mode}', 'fps'))} fps")
for label, what in (("lamina-app-full", "app redrawing 1280x720 fully:"),
                    ("lamina-app-layer", "the same app in a rounded layer:"),
                    ("lamina-app-foot", "foot, its cursor blinking:")):
    if label in per:
        print(f"  {what:<35}{f(med(label, 'cpu_ms_per_frame'), 2)} ms per frame, "
              f"{f(med(label, 'cpu_ms_per_s'))} ms of CPU per s, {f(med(label, 'fps'))} fps")
if "lamina-scroll" in per:
    print(f"  scroll, a 1,000-row list flung:    {f(med('lamina-scroll', 'cpu_ms_per_frame'), 2)} ms per frame, "
          f"{f(med('lamina-scroll', 'cpu_ms_per_s'))} ms of CPU per s, {f(med('lamina-scroll', 'fps'))} fps (target: 60 fps); "
          f"on momentum alone {f(med('lamina-scroll', 'momentum_fps'))} fps, "
          f"{f(med('lamina-scroll', 'momentum_missed'), 0)} of 120 refreshes without a frame")
print("idle (static scenes; target 0 frames, 0 CPU; the two stats requests around the window cost ~0.05 ms/s):")
for label in ("lamina-peer-static", "lamina-dashboard-static", "qt-static"):
    if label in per:
        fr, cpu = med(label, "frames"), med(label, "cpu_ms_per_s")
        ok = "met" if fr == 0 and cpu is not None and cpu < 0.5 else "NOT met"
        print(f"  {label + ':':<32} frames={f(fr, 0)} cpu_ms_per_s={f(cpu, 2)}  {ok}")
EOF
