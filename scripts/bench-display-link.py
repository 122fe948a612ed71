#!/usr/bin/env python3
"""Display-link latency benchmark (issue 26 §1): does a commit made in a display link's callback
show in the frame it targeted, on the real clock, at 60 Hz, on the peer scene?

Starts a headless laminad (1280x720, real clock, --refresh 60), applies the peer scene (100
animated rounded rectangles, /work/shared/peers/lamina-scene.py; $PEERS overrides the folder),
then a watcher (`laminactl watch`, its own process: a `commit` line for each commit applied, a
`frame` line for each frame presented, with its presentation time) and a Python client whose
display link moves a small layer in each callback, recording the callback's
targetTimestamp against the serial of the commit that answers it. A commit is shown in the first
frame line after its commit line (laminad applies commits before it builds the next frame); it
was on time when that frame's time is the targetTimestamp (within half a refresh).

It prints the counts and the percentage over the window (after a warm-up), and how late the
misses were, in frames. It is a benchmark, not a test: the number depends on the machine and on
what else runs on it.

usage: scripts/bench-display-link.py [--warmup S] [--window S] [--laminad PATH] [--laminactl PATH]
(default binaries: .build/release's when built, else .build/debug's)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import select
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
import lamina  # noqa: E402


def binary(name: str, given: str | None) -> str:
    if given:
        return given
    for config in ("release", "debug"):
        path = os.path.join(ROOT, ".build", config, name)
        if os.access(path, os.X_OK):
            return path
    sys.exit(f"bench-display-link: {name} is not built (swift build --product {name})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--laminad")
    ap.add_argument("--laminactl")
    ap.add_argument("--refresh", type=float, default=60.0)
    args = ap.parse_args()
    laminad, laminactl = binary("laminad", args.laminad), binary("laminactl", args.laminactl)
    peers = os.environ.get("PEERS", "/work/shared/peers")
    period = 1 / args.refresh

    with tempfile.TemporaryDirectory(prefix="bench-display-link.") as tmp:
        sock = os.path.join(tmp, "lamina.sock")
        scene = os.path.join(tmp, "peer.json")
        with open(scene, "w") as f:
            subprocess.run([sys.executable, os.path.join(peers, "lamina-scene.py"), "animated"], stdout=f, check=True)
        log = open(os.path.join(tmp, "laminad.log"), "w")
        daemon = subprocess.Popen([laminad, "--backend", "headless", "--size", "1280x720", "--clock", "real",
                                   "--refresh", str(args.refresh), "--socket", sock, "--session-journal", ""],
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(300):
                if os.path.exists(sock):
                    break
                time.sleep(0.02)
            subprocess.run([laminactl, "apply", scene, "--socket", sock], check=True, stdout=subprocess.DEVNULL)

            # The watcher is its own process (laminactl watch), so reading and parsing its lines
            # takes nothing from the link client's deadline.
            lines_path = os.path.join(tmp, "watch.jsonl")
            lines = open(lines_path, "w")
            watcher = subprocess.Popen([laminactl, "watch", "--socket", sock], stdout=lines, stderr=subprocess.PIPE, text=True)
            if "watching" not in (watcher.stderr.readline() or ""):
                sys.exit("bench-display-link: laminactl watch did not start")
            conn = lamina.connect(sock, name="bench-link")
            marker = lamina.Layer()
            marker.bounds = (0, 0, 8, 8)
            marker.background_color = (1, 1, 1, 1)
            conn.root.add_sublayer(marker)
            conn.sync()

            targets = {}      # commit serial -> the targetTimestamp of the callback it answers
            callback_at = {}  # serial -> the real time the callback ran

            def tick(link: lamina.DisplayLink) -> None:
                with conn.transaction(disable_actions=True):
                    marker.position = (4 + (link.frame_count % 1000), 4)
                targets[conn._serial] = link.target_timestamp
                callback_at[conn._serial] = time.monotonic()

            link = conn.display_link(tick)
            start = time.monotonic()
            end = start + args.warmup + args.window
            while time.monotonic() < end:
                select.select([conn._sock], [], [], 0.1)
                conn.poll_events()
            link.invalidate()
            client_id = conn.client_id
            conn.close()
            time.sleep(0.2)  # the last lines reach the watcher (a benchmark, not a test)
            watcher.terminate()
            watcher.wait(timeout=10)
            lines.close()
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
            log.close()
        with open(lines_path) as f:
            watch_lines = f.read().splitlines()

    shown = {}        # serial -> the time of the first frame after its commit line
    waiting = []      # this client's serials applied, no frame line since
    for line in watch_lines:
        if line.strip():
            d = json.loads(line)
            if d.get("event") == "commit" and d.get("client") == client_id:
                waiting.append(d["serial"])
            elif d.get("event") == "frame":
                for serial in waiting:
                    shown[serial] = d["time"]
                waiting = []
    counted = [s for s in sorted(targets) if callback_at[s] >= start + args.warmup and s in shown]
    late = {}
    on_time = 0
    for s in counted:
        # The frame's time is when it was drawn: its refresh boundary, or a little after.
        frames = math.floor((shown[s] - targets[s]) / period + 0.01)
        if frames == 0:
            on_time += 1
        else:
            late[frames] = late.get(frames, 0) + 1
    total = len(counted)
    pct = 100 * on_time / total if total else 0
    print(f"display-link commits shown in their target frame: {on_time}/{total} = {pct:.2f} % "
          f"({args.refresh:g} Hz, real clock, peer scene, {args.window:g} s window, laminad {laminad})")
    if late:
        print("  off by (frames): " + ", ".join(f"{k:+d}: {v}" for k, v in sorted(late.items())))
    expected = args.window / period
    print(f"  callbacks in the window: {total} of {expected:.0f} refreshes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
