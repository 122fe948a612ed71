"""Tiled layers in Python against a real laminad (virtual clock): a 20,000-point picture whose
tiles a provider callback draws from poll_events(), zoomed and panned, with exactly the tiles in
view asked for, the coarser tile shown while a finer one is withheld, the fade at virtual times,
and a tile of the wrong size refused naming the tile size."""

from __future__ import annotations

from typing import List, Optional, Set, Tuple

import pytest

import lamina
from conftest import near


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-tiled")
    yield c
    c.close()


def colour(level: int, column: int, row: int) -> Tuple[int, int, int]:
    return ((column * 40 + 20) % 256, (row * 20 + 10) % 256, 60 + (level + 1) * 20)


def tile(level: int, column: int, row: int, side: int = 256) -> lamina.Image:
    r, g, b = colour(level, column, row)
    return lamina.Image(side, side, bytes([r, g, b, 255]) * (side * side))


def place(conn: lamina.Connection, layer: lamina.TiledLayer, scale: float, x: float, y: float) -> None:
    with conn.transaction(disable_actions=True):
        layer.position = (x, y)
        layer.transform = lamina.transform.scale(scale, scale)


def frame(conn: lamina.Connection) -> lamina.Screenshot:
    """A frame drawn (laminad asks for tiles after it), the provider run, its tiles applied."""
    shot = conn.screenshot()
    conn.sync()
    conn.poll_events()
    conn.sync()
    return shot


def test_tiles_in_view_asked_for_coarser_shown_and_fade(conn: lamina.Connection) -> None:
    asked: List[Tuple[int, int, int]] = []
    supplying = [True]

    def provider(layer: lamina.TiledLayer, level: int, column: int, row: int) -> Optional[lamina.Image]:
        asked.append((level, column, row))
        return tile(level, column, row) if supplying[0] else None

    layer = lamina.TiledLayer(bounds=(0, 0, 20000, 20000), anchor_point=(0, 0), levels_of_detail=8,
                              levels_of_detail_bias=1, tile_fade_duration=0.5)
    assert layer.kind == "tiled" and layer.tile_size == (256.0, 256.0)
    layer.tile_provider = provider
    place(conn, layer, 0.1, 0, 0)
    conn.root.add_sublayer(layer)
    conn.sync()
    frame(conn)
    assert set(asked) == {(3, c, r) for c in (0, 1) for r in (0, 1)}
    shot = frame(conn)
    assert len(asked) == 4, "nothing asked twice"
    conn.advance_clock(0.25)
    coarse = colour(3, 0, 0)
    assert near(conn.screenshot().pixel(100, 100)[:3], tuple(round(v * 0.5) for v in coarse), 3)
    conn.advance_clock(0.25)
    assert near(conn.screenshot().pixel(100, 100)[:3], coarse, 3)

    # Zoomed in to 1 at (1000, 3000) with the provider holding back.
    supplying[0] = False
    del asked[:]
    place(conn, layer, 1, -1000, -3000)
    conn.sync()
    frame(conn)
    assert set(asked) == {(0, c, r) for c in (3, 4, 5) for r in (11, 12)}
    under = colour(3, 0, 1)
    assert near(frame(conn).pixel(100, 100)[:3], under, 3)
    for level, column, row in list(asked):
        layer.supply_tile(tile(level, column, row), column, row, level)
    conn.commit()
    frame(conn)
    conn.advance_clock(0.5)
    assert near(conn.screenshot().pixel(100, 100)[:3], colour(0, 4, 12), 3)
    stats = conn.stats()
    assert stats["tiles"] == 10 and stats["tilesRequested"] == 10


def test_a_tile_of_the_wrong_size_is_refused(conn: lamina.Connection) -> None:
    layer = lamina.TiledLayer(bounds=(0, 0, 1000, 1000), tile_size=(128, 128))
    conn.root.add_sublayer(layer)
    conn.sync()
    with pytest.raises(ValueError) as info:
        layer.supply_tile(tile(0, 0, 0), 0, 0, 0)
    assert "tile_size" in str(info.value)
    # laminad checks too: the size changed in the same commit.
    layer.supply_tile(tile(0, 0, 0, side=128), 0, 0, 0)
    layer.tile_size = (64, 64)
    with pytest.raises(lamina.LaminaError) as refused:
        conn.sync()
    assert "tileSize is 64×64" in str(refused.value)
    layer.tile_size = (128, 128)
    conn.sync()
    with pytest.raises(lamina.LaminaError) as level:
        layer.supply_tile(tile(0, 0, 0, side=128), 0, 0, 5)
        conn.sync()
    assert "levels are 0 to 0" in str(level.value)
