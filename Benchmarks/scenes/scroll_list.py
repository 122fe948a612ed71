#!/usr/bin/env python3
"""Write the scrolling-list benchmark scene in Lamina's scene format (docs/scene-format.md).

usage: scroll_list.py > scene.json

  1280x720: one full-screen scroll layer ("class": "scroll", vertically, scrollsOnTouch, masking
  its bounds) holding 1,000 rows, 64 points tall and 8 apart: each a rounded card with a round
  "avatar" and a rounded "title" bar (3,000 layers under the list). bench-frames.sh's scroll case
  flings it with injected touches, so laminad scrolls it itself (momentum every frame).
"""
import json
import sys

W, H = 1280, 720
ROWS, ROW, GAP = 1000, 64, 8


def color(i, shade):
    r, g, b = (i * 53) % 200 + 30, (i * 97) % 200 + 30, (i * 29) % 200 + 30
    return f"#{int(r * shade):02X}{int(g * shade):02X}{int(b * shade):02X}FF"


rows = []
for i in range(ROWS):
    rows.append({
        "name": f"row{i}", "frame": [16, GAP + i * (ROW + GAP), W - 32, ROW], "backgroundColor": color(i, 0.5),
        "cornerRadius": 12,
        "sublayers": [
            {"name": "avatar", "frame": [12, 12, 40, 40], "cornerRadius": 20, "backgroundColor": color(i, 1.0)},
            {"name": "title", "frame": [68, 22, 300 + (i * 37) % 500, 20], "cornerRadius": 4,
             "backgroundColor": "#E0E0E0FF"},
        ],
    })

scene = {"sublayers": [{
    "name": "list", "class": "scroll", "bounds": [0, 0, W, H], "position": [W / 2, H / 2],
    "scrollMode": "vertically", "scrollsOnTouch": True, "masksToBounds": True, "backgroundColor": "#101010FF",
    "sublayers": rows,
}]}
json.dump(scene, sys.stdout)
