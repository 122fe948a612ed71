"""Emitter layers from Python against a real laminad (headless, virtual clock): a point
emitter's particles in pixels, the wire form of cells, and refused cells."""

from __future__ import annotations

import json
import math

import pytest

import lamina
from lamina import protocol, wire
from lamina.emitter import from_wire


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-emitter")
    yield c
    c.close()


def test_cell_fields_against_the_json(protocol_json: dict) -> None:
    table = protocol_json["emitterCells"]
    assert table["maxCellsPerList"] == protocol.MAX_EMITTER_CELLS and table["maxDepth"] == protocol.MAX_EMITTER_DEPTH
    assert [(f["id"], f["name"], f["type"], f["animatable"]) for f in table["fields"]] == [
        (f.id, f.name, f.type, f.animatable) for f in protocol.EMITTER_CELL_FIELDS]


def test_cells_round_trip_on_the_wire() -> None:
    spark = lamina.EmitterCell("spark", velocity=5, enabled=False)
    snow = lamina.EmitterCell("snow", birth_rate=10, lifetime=2, color=(1, 0.5, 0, 1), emitter_cells=[spark])
    from lamina.emitter import wire as to_wire
    w = to_wire([snow], lambda image: 3)
    writer = wire.Writer()
    writer.value("emitterCells", w)
    back = from_wire(wire.Reader(bytes(writer.buffer)).value("emitterCells", "cells"))
    assert back == (snow,)
    with pytest.raises(AttributeError, match="did you mean 'birth_rate'"):
        lamina.EmitterCell(birth_rat=1)
    with pytest.raises(ValueError, match="magnification_filter"):
        lamina.EmitterCell(magnification_filter="blurry")


def test_point_emitter_in_pixels(conn: lamina.Connection) -> None:
    dot = lamina.Image(4, 4, bytes([255]) * 64)
    cell = lamina.EmitterCell("dot", birth_rate=5, lifetime=100, color=(0, 1, 0, 1), contents=dot,
                              magnification_filter="nearest")
    emitter = lamina.EmitterLayer(frame=(0, 0, 320, 240), emitter_position=(60, 50), emitter_cells=[cell])
    conn.root.add_sublayer(emitter)
    conn.sync()
    conn.advance_clock(1)
    shot = conn.screenshot()
    assert shot.pixel(60, 50) == (0, 255, 0, 255)
    assert shot.pixel(58, 48) == (0, 255, 0, 255)
    assert shot.pixel(63, 50) == (0, 0, 0, 255)
    # The tree names the class and the cells.
    text = json.dumps(conn.tree())
    assert '"emitter"' in text and '"birthRate": 5' in text


def test_bad_cells_are_refused_naming_the_cell(conn: lamina.Connection) -> None:
    emitter = lamina.EmitterLayer()
    conn.root.add_sublayer(emitter)
    conn.sync()
    emitter.emitter_cells = [lamina.EmitterCell("rain", velocity=math.nan)]
    with pytest.raises(lamina.LaminaError, match=r"emitterCells\.rain\.velocity must be finite"):
        conn.sync()
    emitter.emitter_cells = [lamina.EmitterCell("flood", birth_rate=1e9, lifetime=10)]
    with pytest.raises(lamina.LaminaError, match="max_particles_per_layer"):
        conn.sync()
