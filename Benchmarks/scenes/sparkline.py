#!/usr/bin/env python3
"""The display-link sparkline client of bench-frames.sh's sparkline case (issue 26: "the frame
cost of a display-link-driven sparkline").

usage: sparkline.py SOCKET      (runs until killed; PYTHONPATH must reach clients/python)

  A 1,200 x 200 point panel with a sparkline: a CAShapeLayer stroked 2 points wide whose path is
  the last 240 samples of a signal. A display link adds a sample at each callback (the signal at
  the callback's targetTimestamp) and sets the new path, so laminad rasterises a new shape every
  frame; the rest of the screen stays still.
"""
import math
import select
import signal
import sys

import lamina

SAMPLES, WIDTH, HEIGHT = 240, 1200.0, 200.0


def signal_at(t: float) -> float:
    return 0.5 + 0.3 * math.sin(t * 2.1) + 0.15 * math.sin(t * 7.3 + 1) + 0.05 * math.sin(t * 23.0)


def main() -> int:
    running = [True]
    signal.signal(signal.SIGTERM, lambda *_: running.__setitem__(0, False))
    conn = lamina.connect(sys.argv[1], name="sparkline")
    panel = lamina.Layer(bounds=(0, 0, WIDTH, HEIGHT), position=(640, 360), background_color="#182030")
    spark = lamina.ShapeLayer(bounds=(0, 0, WIDTH, HEIGHT), position=(WIDTH / 2, HEIGHT / 2))
    spark.stroke_color = "#40E0A0"
    spark.fill_color = None
    spark.line_width = 2
    panel.add_sublayer(spark)
    conn.root.add_sublayer(panel)
    conn.sync()
    samples = []

    def tick(link: lamina.DisplayLink) -> None:
        samples.append(signal_at(link.target_timestamp))
        del samples[:-SAMPLES]
        path = lamina.Path()
        for i, v in enumerate(samples):
            x, y = i * WIDTH / (SAMPLES - 1), HEIGHT - v * HEIGHT
            (path.move_to if i == 0 else path.line_to)(x, y)
        with conn.transaction(disable_actions=True):
            spark.path = path

    link = conn.display_link(tick)
    while running[0]:
        try:
            select.select([conn._sock], [], [], 0.1)
            conn.poll_events()
        except (lamina.ConnectionClosed, InterruptedError):
            break
    try:
        link.invalidate()
        conn.close()
    except lamina.LaminaError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
