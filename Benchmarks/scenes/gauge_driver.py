#!/usr/bin/env python3
"""Drive the gauge benchmark: a 240x160 gauge at the centre of a 1280x720 display whose value
changes every frame (60 commits a second) until killed, drawn one of two ways.

usage: PYTHONPATH=clients/python gauge_driver.py SOCKET drawing|shapes

  drawing: one layer whose drawing (the gauge of docs/clients.md: face, track, value arc,
           needle, number) is recorded again each frame, so laminad rasterises it each frame;
  shapes:  the same gauge as layers: a rounded face, two shape layers (track, value arc by
           strokeEnd), a needle shape layer turned by its transform, a text layer.
bench-frames.sh's gauge-drawing and gauge-shapes cases measure laminad's cost per frame.
"""
import math
import sys
import time

import lamina
from lamina import transform

W, H = 240.0, 160.0
CX, CY, R = W / 2, H * 0.6, W * 0.35


def draw_gauge(ctx, value):
    ctx.set_fill_color((0.1, 0.1, 0.2, 1))
    ctx.add_rounded_rect((0, 0, W, H), 12, 12)
    ctx.fill_path()
    ctx.set_line_width(8)
    ctx.set_line_cap("round")
    ctx.set_stroke_color((0.5, 0.5, 0.5, 1))
    ctx.add_arc((CX, CY), R, math.pi, 2 * math.pi)
    ctx.stroke_path()
    ctx.set_stroke_color((0, 0.8, 0.2, 1))
    ctx.add_arc((CX, CY), R, math.pi, math.pi * (1 + value))
    ctx.stroke_path()
    ctx.save_gstate()
    ctx.translate_by(CX, CY)
    ctx.rotate_by(math.pi * (value - 0.5))
    ctx.set_fill_color((1, 0.3, 0, 1))
    ctx.add_path(f"M -3 0 L 0 -{R - 4} L 3 0 Z")
    ctx.fill_path()
    ctx.restore_gstate()
    ctx.set_fill_color((1, 1, 1, 1))
    ctx.show_text(str(int(value * 100)), (CX - 10, H - 8), "DejaVu Sans", 14)


def arc_path():
    p = lamina.Path().move_to(CX - R, CY)
    steps = 32
    for i in range(1, steps + 1):
        a = math.pi + math.pi * i / steps
        p.line_to(CX + R * math.cos(a), CY + R * math.sin(a))
    return p


def main():
    sock, mode = sys.argv[1], sys.argv[2]
    conn = lamina.connect(sock, name="bench-gauge")
    layer = lamina.Layer(bounds=(0, 0, W, H), position=(640, 360))
    conn.root.add_sublayer(layer)
    parts = None
    if mode == "shapes":
        layer.background_color = (0.1, 0.1, 0.2, 1)
        layer.corner_radius = 12
        track = lamina.ShapeLayer(bounds=(0, 0, W, H), position=(W / 2, H / 2), path=arc_path(), fill_color=None,
                                  stroke_color=(0.5, 0.5, 0.5, 1), line_width=8, line_cap="round")
        arc = lamina.ShapeLayer(bounds=(0, 0, W, H), position=(W / 2, H / 2), path=arc_path(), fill_color=None,
                                stroke_color=(0, 0.8, 0.2, 1), line_width=8, line_cap="round")
        needle = lamina.ShapeLayer(bounds=(-4, -R, 8, R), position=(CX, CY), anchor_point=(0.5, 1.0),
                                   path=lamina.Path().move_to(-3, 0).line_to(0, -(R - 4)).line_to(3, 0).close(),
                                   fill_color=(1, 0.3, 0, 1))
        text = lamina.TextLayer(bounds=(0, 0, 40, 20), position=(CX + 10, H - 18), font="DejaVu Sans", font_size=14,
                                foreground_color=(1, 1, 1, 1))
        for s in (track, arc, needle, text):
            layer.add_sublayer(s)
        parts = (arc, needle, text)
    conn.sync()
    frame, start = 0, time.monotonic()
    while True:
        value = 0.5 + 0.45 * math.sin(frame / 30)
        with conn.transaction(disable_actions=True):
            if parts is None:
                ctx = lamina.Drawing((0, 0, W, H))
                draw_gauge(ctx, value)
                layer.drawing = ctx
            else:
                arc, needle, text = parts
                arc.stroke_end = value
                needle.transform = transform.rotate(math.pi * (value - 0.5))
                text.string = str(int(value * 100))
        frame += 1
        conn.sync()
        delay = start + frame / 60 - time.monotonic()
        if delay > 0:
            time.sleep(delay)


if __name__ == "__main__":
    main()
