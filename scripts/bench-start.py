#!/usr/bin/env python3
"""Start-up benchmark (issue 29 §3): how long laminad takes from being started to READY=1
(sd_notify, read from a $NOTIFY_SOCKET this script binds) and to the first frame of a
100-layer scene applied by a client that was already waiting for the socket.

Headless (1280x720, real clock, no session journal) by default; `--backend kms` starts laminad
on the machine's KMS device instead (scripts/bench-start-vm.sh runs it so in the KMS VM). The client (this process, the `lamina`
Python package imported beforehand) polls for the socket, connects, asks to `watch`, commits
100 layers (rounded rectangles, some with borders and shadows) and waits for the first `frame`
event that includes its commit: the frame has been drawn. Times are from just before laminad
is spawned.

Three kinds of start, each run --runs times (median, min and max printed):
  cold         laminad's shader cache ([renderer] shader_cache) and Mesa's own disk cache
               (MESA_SHADER_CACHE_DIR) both empty: a first boot;
  warm         both kept from the runs before: a later boot;
  warm-lamina  laminad's cache kept, Mesa's emptied before each run: what laminad's program
               cache gives by itself (Mesa's cache also holds llvmpipe's compiled code).

It is a benchmark, not a test: the numbers depend on the machine and what else runs on it.

usage: scripts/bench-start.sh [--runs N] [--laminad PATH] [--kinds cold,warm,warm-lamina] [--backend headless|kms]
(default binary: .build/release's when built, else .build/debug's)
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
import lamina  # noqa: E402  (imported before laminad starts: its import is not timed)


def default_laminad() -> str:
    for kind in ("release", "debug"):
        path = os.path.join(ROOT, ".build", kind, "laminad")
        if os.path.exists(path):
            return path
    sys.exit("no laminad built: swift build -c release")


def scene(conn: lamina.Connection) -> None:
    """100 layers in a 10×10 grid: rounded, every third with a border, every tenth with a shadow."""
    with conn.transaction():
        for i in range(100):
            x, y = 20 + (i % 10) * 124, 20 + (i // 10) * 68
            layer = lamina.Layer(frame=(x, y, 110, 56), background_color=f"#{(i * 37) % 256:02X}80C0",
                                 corner_radius=10, name=f"tile-{i}")
            if i % 3 == 0:
                layer.border_width = 2
                layer.border_color = "#FFFFFF"
            if i % 10 == 0:
                layer.shadow_opacity = 0.5
                layer.shadow_radius = 6
            conn.root.add_sublayer(layer)


PROGRAM_CACHE = True  # --no-program-cache: a laminad from before [renderer] shader_cache
BACKEND = ["--backend", "headless", "--size", "1280x720"]  # --backend kms: ["--backend", "kms"]


def one_start(laminad: str, shader_cache: str, mesa_cache: str) -> tuple[float, float, float]:
    """Seconds to READY=1, to the first frame of the scene, and laminad's own first-frame log
    figure (its first frame, the background, from its process start)."""
    work = tempfile.mkdtemp(prefix="lamina-bench-start-")
    sock = os.path.join(work, "lamina.sock")
    notify_path = os.path.join(work, "notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    ready: list[float] = []

    def read_notify() -> None:
        while True:
            data = notify.recv(4096)
            if not data:
                return
            if b"READY=1" in data.split(b"\n"):
                ready.append(time.monotonic())
                return

    reader = threading.Thread(target=read_notify, daemon=True)
    reader.start()
    env = dict(os.environ, NOTIFY_SOCKET=notify_path, MESA_SHADER_CACHE_DIR=mesa_cache)
    env.pop("MESA_SHADER_CACHE_DISABLE", None)
    env.pop("CACHE_DIRECTORY", None)
    log = open(os.path.join(work, "laminad.log"), "w")
    start = time.monotonic()
    arguments = [laminad, *BACKEND, "--clock", "real", "--socket", sock,
                 "--session-journal", "", "--log-level", "info"]
    if PROGRAM_CACHE:
        arguments += ["--shader-cache", shader_cache]
    proc = subprocess.Popen(arguments,
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        while not os.path.exists(sock):
            if proc.poll() is not None:
                sys.exit(f"laminad exited: {open(log.name).read()}")
            time.sleep(0.0005)
        conn = lamina.connect(sock, name="bench-start")
        conn.watch()
        scene(conn)
        conn.sync()
        shown = None
        for event in conn.events(timeout=60):
            data = getattr(event, "data", None)
            if isinstance(data, dict) and data.get("event") == "frame" and data.get("commits", 0) >= 1:
                shown = time.monotonic()
                break
        if shown is None:
            sys.exit("no frame with the scene within 60 s")
        reader.join(5)
        if not ready:
            sys.exit("no READY=1")
        conn.close()
    finally:
        proc.terminate()
        proc.wait()
        log.close()
        notify.close()
    text = open(log.name).read()
    first = float("nan")
    programs = "(no program cache)"
    for line in text.splitlines():
        if "first frame on screen" in line and " ms after start" in line:
            first = float(line.split("first frame on screen ")[1].split(" ms")[0]) / 1000
        if "shader programs:" in line:
            programs = line.split("shader programs: ")[1]
    shutil.rmtree(work, ignore_errors=True)
    one_start.programs = programs  # type: ignore[attr-defined]
    return ready[0] - start, shown - start, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--laminad", default=None)
    parser.add_argument("--kinds", default="cold,warm,warm-lamina")
    parser.add_argument("--backend", choices=["headless", "kms"], default="headless")
    parser.add_argument("--no-program-cache", action="store_true", help="for a laminad without [renderer] shader_cache (comparison)")
    args = parser.parse_args()
    global PROGRAM_CACHE, BACKEND
    PROGRAM_CACHE = not args.no_program_cache
    if args.backend == "kms":
        BACKEND = ["--backend", "kms"]
    laminad = args.laminad or default_laminad()
    print(f"laminad: {laminad} ({args.backend})")
    base = tempfile.mkdtemp(prefix="lamina-bench-caches-")
    try:
        for kind in args.kinds.split(","):
            results = []
            shader_cache = os.path.join(base, kind, "shaders")
            mesa_cache = os.path.join(base, kind, "mesa")
            if kind != "cold":
                # Filled by one start first.
                one_start(laminad, shader_cache, mesa_cache)
            for _ in range(args.runs):
                if kind == "cold" or kind == "warm-lamina":
                    shutil.rmtree(mesa_cache, ignore_errors=True)
                if kind == "cold":
                    shutil.rmtree(shader_cache, ignore_errors=True)
                results.append(one_start(laminad, shader_cache, mesa_cache))
            def fmt(values: list[float]) -> str:
                ms = [v * 1000 for v in values]
                return f"median {statistics.median(ms):7.1f} ms (min {min(ms):7.1f}, max {max(ms):7.1f})"
            print(f"{kind:12s} READY=1      {fmt([r[0] for r in results])}")
            print(f"{kind:12s} scene frame  {fmt([r[1] for r in results])}")
            print(f"{kind:12s} first frame  {fmt([r[2] for r in results])}  (laminad's log: the background)")
            print(f"{kind:12s} last start's {one_start.programs}")  # type: ignore[attr-defined]
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
