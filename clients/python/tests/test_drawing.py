"""Drawings from Python (``lamina.Drawing``, ``layer.draw``, ``set_needs_display``) against a real
laminad: the gauge of docs/clients.md in pixels, display before the commit, the wire form against
the Swift codec's golden fixture, and refused drawings."""

from __future__ import annotations

import math

import pytest

import lamina
from lamina import protocol, wire
from lamina.drawing import canonical

from conftest import REPOSITORY_ROOT


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-drawing")
    yield c
    c.close()


def test_ops_match_the_json(protocol_json: dict) -> None:
    table = protocol_json["drawing"]
    assert table["maxCommands"] == protocol.MAX_DRAWING_COMMANDS
    assert table["names"] == protocol.DRAWING_NAMES
    assert {o["name"]: (o["opcode"], tuple((a["name"], a["kind"]) for a in o["arguments"])) for o in table["ops"]} \
        == protocol.DRAWING_OPS


def test_wire_form_matches_the_golden_fixture() -> None:
    # protocol/fixtures/commit-drawing.bin (written by the Swift codec).
    data = (REPOSITORY_ROOT / "protocol/fixtures/commit-drawing.bin").read_bytes()
    d = lamina.Drawing()
    d.set_fill_color((1, 0, 0, 1)).fill_rect((0, 0, 10, 10)).add_path("M 0 0 L 10 10").set_line_width(2).stroke_path()
    d.show_text("Hi", (2, 14), "Helvetica", 12)
    w = wire.Writer()
    w.value("drawing", canonical(d))
    body = bytes(w.buffer)
    assert body in data
    assert wire.Reader(body).value("drawing", "drawing") == canonical(d)


def test_arguments_are_checked_by_name() -> None:
    d = lamina.Drawing()
    with pytest.raises(ValueError, match="set_line_cap cap: 'rund' is not one of butt, round, square"):
        d.set_line_cap("rund")
    with pytest.raises(TypeError, match="fill_rect needs rect"):
        d.fill_rect()
    with pytest.raises(TypeError, match="has no argument 'colour'"):
        d.set_fill_color(colour="#FFF")


def draw_gauge(layer: lamina.Layer, ctx: lamina.Drawing) -> None:
    """The gauge of docs/clients.md: a face, a grey track, a green value arc, a needle, a number."""
    x, y, w, h = layer.bounds
    value = layer.value  # type: ignore[attr-defined]
    cx, cy, r = w / 2, h * 0.6, w * 0.35
    ctx.set_fill_color((0.1, 0.1, 0.2, 1))
    ctx.add_rounded_rect((0, 0, w, h), 12, 12)
    ctx.fill_path()
    ctx.set_line_width(8)
    ctx.set_line_cap("round")
    ctx.set_stroke_color((0.5, 0.5, 0.5, 1))
    ctx.add_arc((cx, cy), r, math.pi, 2 * math.pi)
    ctx.stroke_path()
    ctx.set_stroke_color((0, 0.8, 0.2, 1))
    ctx.add_arc((cx, cy), r, math.pi, math.pi * (1 + value))
    ctx.stroke_path()
    ctx.save_gstate()
    ctx.translate_by(cx, cy)
    ctx.rotate_by(math.pi * (value - 0.5))
    ctx.set_fill_color((1, 0.3, 0, 1))
    ctx.add_path(f"M -3 0 L 0 -{r - 4} L 3 0 Z")
    ctx.fill_path()
    ctx.restore_gstate()
    ctx.set_fill_color((1, 1, 1, 1))
    ctx.show_text(str(int(value * 100)), (cx - 10, h - 8), "DejaVu Sans", 14)


class Gauge(lamina.Layer):
    value = 0.7

    def draw_in_context(self, ctx: lamina.Drawing) -> None:
        draw_gauge(self, ctx)


def test_gauge_in_pixels(conn: lamina.Connection) -> None:
    gauge = Gauge(bounds=(0, 0, 200, 120), position=(160, 120))
    gauge.needs_display_on_bounds_change = True
    conn.root.add_sublayer(gauge)
    gauge.set_needs_display()
    assert gauge.needs_display and gauge.drawing == ()
    conn.sync()
    assert not gauge.needs_display and len(gauge.drawing) > 10
    shot = conn.screenshot()
    arc = shot.pixel(60 + 30, 60 + 68)
    assert arc[1] > 150 and arc[0] < 60, arc
    face = shot.pixel(60 + 10, 60 + 110)
    assert face[2] > 40 and face[0] < 40, face
    end = shot.pixel(60 + 170, 60 + 70)
    assert abs(end[0] - 128) < 30 and abs(end[1] - 128) < 30, end
    white = sum(1 for yy in range(160, 176) for xx in range(150, 190) if shot.pixel(xx, yy)[0] > 200 and shot.pixel(xx, yy)[2] > 200)
    assert white > 20
    # A redraw at a new value: the arc stops short of the right.
    gauge.value = 0.2
    gauge.set_needs_display()
    conn.sync()
    assert conn.screenshot().pixel(60 + 170, 60 + 70)[1] < 160


def test_draw_callable_and_bounds_change(conn: lamina.Connection) -> None:
    calls = []

    def draw(layer: lamina.Layer, ctx: lamina.Drawing) -> None:
        calls.append(layer.bounds)
        ctx.set_fill_color("#FF0000")
        ctx.fill_rect((0, 0, 10, 10))

    layer = lamina.Layer(bounds=(0, 0, 40, 40), position=(20, 20))
    layer.draw = draw
    layer.needs_display_on_bounds_change = True
    layer.set_needs_display()  # before it is in a tree: it displays when it joins one
    conn.root.add_sublayer(layer)
    conn.sync()
    assert len(calls) == 1
    assert conn.screenshot().pixel(5, 5) == (255, 0, 0, 255)
    layer.bounds = (0, 0, 60, 40)
    conn.sync()
    assert len(calls) == 2
    layer.bounds = (0, 0, 60, 40)
    conn.sync()
    assert len(calls) == 2


def test_refused_drawing_names_the_command(conn: lamina.Connection) -> None:
    layer = lamina.Layer()
    conn.root.add_sublayer(layer)
    conn.sync()
    layer.drawing = lamina.Drawing().restore_gstate()
    with pytest.raises(lamina.LaminaError, match="restoreGState without a saveGState"):
        conn.sync()
