#!/usr/bin/env python3
"""Write a frame-cost benchmark scene in Lamina's scene format (docs/scene-format.md).

usage: dashboard.py dashboard|square|dashboard-static > scene.json

  dashboard         1280x720: a full-screen gradient background, 12 panels (4x3 grid) with
                    rounded corners, a border, a blurred drop shadow and a title text layer,
                    and one 48x48 square rotating forever (transform.rotation.z).
  square            the same rotating 48x48 square alone on the (black) display background.
  dashboard-static  the dashboard with the square standing still: nothing animates (idle cost).

The square is in the same place in every variant, so "dashboard / square" compares the
cost of one small moving layer with and without a busy static scene around it.
"""
import json
import math
import sys

W, H = 1280, 720
COLS, ROWS = 4, 3
MARGIN, GAP = 40, 24
SQUARE = 48


def rotating_square(animated):
    # The centre of the display, drawn last (on top). In the dashboard it straddles the gap
    # between panels 6 and 7, so the area it damages each frame holds gradient, panel fill,
    # border and shadow to redraw underneath it.
    layer = {"name": "spinner", "bounds": [0, 0, SQUARE, SQUARE], "position": [W / 2, H / 2],
             "backgroundColor": "#FF3B30FF"}
    if animated:
        layer["animations"] = {
            "spin": {"type": "basic", "keyPath": "transform.rotation.z", "fromValue": 0,
                     "toValue": 2 * math.pi, "duration": 2.0, "timingFunction": "linear",
                     "repeatCount": "infinity"}}
    return layer


def panels():
    pw = (W - 2 * MARGIN - (COLS - 1) * GAP) / COLS
    ph = (H - 2 * MARGIN - (ROWS - 1) * GAP) / ROWS
    out = []
    for i in range(COLS * ROWS):
        col, row = i % COLS, i // COLS
        x, y = MARGIN + col * (pw + GAP), MARGIN + row * (ph + GAP)
        out.append({
            "name": f"panel{i}", "frame": [x, y, pw, ph],
            "backgroundColor": "#1E2633F2", "cornerRadius": 12,
            "borderWidth": 1.5, "borderColor": "#5A6B85FF",
            "shadowColor": "#000000", "shadowOpacity": 0.5, "shadowRadius": 8, "shadowOffset": [0, 3],
            "sublayers": [{
                "name": "title", "class": "text", "frame": [16, 12, pw - 32, 28],
                "string": f"Panel {i + 1} \u00b7 throughput", "fontSize": 18,
                "foregroundColor": "#E8EEF7FF"}]})
    return out


def scene(variant):
    if variant == "square":
        return {"sublayers": [rotating_square(True)]}
    if variant not in ("dashboard", "dashboard-static"):
        raise SystemExit(f"usage: {sys.argv[0]} dashboard|square|dashboard-static")
    background = {"name": "background", "class": "gradient", "frame": [0, 0, W, H],
                  "colors": ["#0F2027FF", "#203A43FF", "#2C5364FF"], "locations": [0, 0.5, 1],
                  "startPoint": [0, 0], "endPoint": [1, 1]}
    return {"sublayers": [background] + panels() + [rotating_square(variant == "dashboard")]}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: {sys.argv[0]} dashboard|square|dashboard-static")
    json.dump(scene(sys.argv[1]), sys.stdout, indent=1)
    sys.stdout.write("\n")
