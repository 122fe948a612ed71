"""Display links (``CADisplayLink``, protocol 1.7) through a real headless laminad on the
virtual clock: the callback count and timestamps, coalescing, rates, and refusals."""

from __future__ import annotations

import math

import pytest

import lamina
from lamina.errors import LaminaError


def stats(conn) -> dict:
    return dict(conn.stats())


def test_one_second_at_60_hz_is_60_callbacks_each_a_sixtieth_apart(daemon) -> None:
    with lamina.connect(daemon.socket) as conn:
        dot = lamina.Layer()
        dot.bounds = (0, 0, 10, 10)
        conn.root.add_sublayer(dot)
        seen = []

        def tick(link: lamina.DisplayLink) -> None:
            seen.append((link.timestamp, link.target_timestamp, link.duration))
            dot.position = (link.target_timestamp * 60, 5)   # committed after the callback

        link = conn.display_link(tick)
        assert not link.is_paused and link.preferred_frame_rate_range == lamina.FrameRateRange()
        start = conn.time
        for _ in range(60):
            conn.advance_clock(1 / 60)
            conn.poll_events()
        assert len(seen) == 60
        targets = [t for _, t, _ in seen]
        assert all(abs(b - a - 1 / 60) < 1e-9 for a, b in zip(targets, targets[1:]))
        assert all(abs(t - ts - 1 / 60) < 1e-9 and abs(d - 1 / 60) < 1e-12 for ts, t, d in seen)
        assert start < seen[0][0] <= start + 1 / 60 + 1e-9
        assert link.frame_count == 60 and link.target_timestamp == targets[-1]
        conn.sync()
        assert stats(conn)["displayLink.frames"] == 60
        # The callback's commit is in the frame it targeted: the model has the last target's value.
        assert abs(conn.tree()["clients"][0]["root"]["sublayers"][0]["position"][0] - targets[-1] * 60) < 1e-6


def test_a_paused_or_removed_link_leaves_the_screen_idle(daemon) -> None:
    with lamina.connect(daemon.socket) as conn:
        conn.sync()
        conn.stats()
        before = stats(conn)
        link = conn.display_link(lambda l: None, paused=True)
        for _ in range(30):
            conn.advance_clock(1 / 60)
        after = stats(conn)
        assert after["framesRendered"] == before["framesRendered"]
        assert after["repaint.wakeups"] == before["repaint.wakeups"]
        assert not [e for e in conn.poll_events() if isinstance(e, lamina.FrameEvent)]
        link.is_paused = False
        conn.advance_clock(1 / 60)
        events = [e for e in conn.poll_events() if isinstance(e, lamina.FrameEvent)]
        assert len(events) == 1 and events[0].links == [link.number]
        link.invalidate()
        quiet = stats(conn)
        for _ in range(30):
            conn.advance_clock(1 / 60)
        assert stats(conn)["framesRendered"] == quiet["framesRendered"]
        assert stats(conn)["displayLink.links"] == 0


def test_30_hz_on_60_hz_fires_every_other_refresh(daemon) -> None:
    with lamina.connect(daemon.socket) as conn:
        slow = []
        conn.display_link(lambda l: slow.append(l.target_timestamp - l.timestamp),
                          preferred_frame_rate_range=(15, 30, 30))
        for _ in range(60):
            conn.advance_clock(1 / 60)
        conn.poll_events()
        assert len(slow) == 30 and all(abs(d - 2 / 60) < 1e-9 for d in slow)


def test_bad_values_are_refused_with_what_was_wrong(daemon) -> None:
    with lamina.connect(daemon.socket) as conn:
        with pytest.raises(LaminaError, match="no output by that name"):
            conn.display_link(lambda l: None, output="HDMI-A-9")
        with pytest.raises(LaminaError, match="minimum 60.0 is above its maximum 30.0"):
            conn.display_link(lambda l: None, preferred_frame_rate_range=(60, 30, 0))
        link = conn.display_link(lambda l: None, output="headless")
        with pytest.raises(LaminaError, match="must be a finite number"):
            link.preferred_frame_rate_range = lamina.FrameRateRange(float("nan"), 0, 0)
        assert link.preferred_frame_rate_range == lamina.FrameRateRange()


def test_a_link_comes_back_after_laminad_restarts() -> None:
    from conftest import Daemon
    first = Daemon()
    conn = lamina.connect(first.socket, name="link-reconnecting", reconnect=lamina.ReconnectPolicy(initial_delay=0))
    second = None
    try:
        ticks = []
        link = conn.display_link(lambda l: ticks.append(l.target_timestamp), preferred_frame_rate_range=(15, 30, 30))
        first.kill()
        second = Daemon(socket=first.socket)
        for _ in range(4):
            conn.advance_clock(1 / 60)   # the first finds laminad gone and replays, the link too
        conn.poll_events()
        assert conn.stats()["displayLink.running"] == 1
        assert len(ticks) == 2 and link.preferred_frame_rate_range == lamina.FrameRateRange(15, 30, 30)
    finally:
        conn.close()
        first.stop()
        if second is not None:
            second.stop()


def test_a_sparkline_fed_by_a_display_link_shows_every_sample(daemon) -> None:
    """The same program as Swift's DisplayLinkEndToEndTests.aSparklineFedByADisplayLinkShowsEverySample
    and C's sparkline_program (docs/clients.md, "A display link"): each callback takes a sample at
    the frame's target time and sets the sparkline's path; the pixels show every sample where its
    time puts it, column 2·i, row 40 − 30·sin(2π·tᵢ)."""
    with lamina.connect(daemon.socket, name="pytest-sparkline") as conn:
        back = lamina.Layer(bounds=(0, 0, 240, 80), position=(120, 40), background_color=(0, 0, 0, 1))
        spark = lamina.ShapeLayer(bounds=(0, 0, 240, 80), position=(120, 40))
        spark.fill_color = None
        spark.stroke_color = (0, 1, 0, 1)
        spark.line_width = 2
        conn.root.add_sublayer(back)
        conn.root.add_sublayer(spark)
        conn.sync()
        samples: list = []

        def tick(link: lamina.DisplayLink) -> None:
            samples.append(link.target_timestamp)
            path = lamina.Path()
            for i, t in enumerate(samples[-120:]):
                x, y = 2 * i, 40 - 30 * math.sin(2 * math.pi * t)
                path.move_to(x, y) if i == 0 else path.line_to(x, y)
            with conn.transaction(disable_actions=True):
                spark.path = path

        link = conn.display_link(tick)
        for _ in range(60):
            conn.advance_clock(1 / 60)
            conn.poll_events()
        link.invalidate()
        conn.advance_clock(1 / 60)     # the last callback's target frame
        conn.sync()
        assert len(samples) == 60
        shot = conn.screenshot()
        for i in range(2, 58, 4):
            expected = 40 - 30 * math.sin(2 * math.pi * samples[i])
            rows = [y for y in range(80) if (lambda r, g, b, a: g > 120 and r < 100 and b < 100)(*shot.pixel(2 * i, y))]
            assert rows, f"sample {i}: no ink in column {2 * i}"
            middle = sum(rows) / len(rows)
            assert abs(middle + 0.5 - expected) <= 2.5, (i, rows, expected)
            assert all(abs(y + 0.5 - expected) <= 6 for y in rows), (i, rows, expected)
        assert all(shot.pixel(x, y)[1] < 60 for x in range(122, 240) for y in range(80)), "the line ends with the samples"
