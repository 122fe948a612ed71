"""compositingFilter and cornerCurve (protocol 1.7) from Python, against a real laminad: set
as attributes, seen in the tree JSON and in the pixels, and refused by name when misspelt."""

from __future__ import annotations

import pytest

import lamina


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-blend")
    yield c
    c.close()


def mine(conn: lamina.Connection) -> dict:
    (me,) = [c for c in conn.tree()["clients"] if c["name"] == "pytest-blend"]
    return me


def test_attributes_default_and_round_trip() -> None:
    layer = lamina.Layer()
    assert layer.compositing_filter is None and layer.corner_curve == "circular"
    layer.compositing_filter = "screenBlendMode"
    layer.corner_curve = "continuous"
    assert layer.compositing_filter == "screenBlendMode" and layer.corner_curve == "continuous"
    layer.compositing_filter = None
    assert layer.compositing_filter is None and layer.value("compositingFilter") is None
    with pytest.raises(TypeError):
        layer.corner_curve = 3
    assert "multiplyBlendMode" in lamina.protocol.BLEND_MODES and len(lamina.protocol.BLEND_MODES) == 13


def test_multiply_and_continuous_corners_draw(conn: lamina.Connection) -> None:
    back = lamina.Layer(frame=(0, 0, 320, 240), background_color="#CC8040")
    card = lamina.Layer(frame=(40, 40, 240, 160), background_color="#8080FF", corner_radius=40,
                        compositing_filter="multiplyBlendMode", corner_curve="continuous", name="card")
    conn.root.add_sublayer(back)
    conn.root.add_sublayer(card)
    conn.sync()
    (_, tree_card) = mine(conn)["root"]["sublayers"]
    assert tree_card["compositingFilter"] == "multiplyBlendMode" and tree_card["cornerCurve"] == "continuous"
    shot = conn.screenshot()
    # Multiply: 0xCC × 0x80 / 255 = 102, 0x80 × 0x80 / 255 = 64, 0x40 × 0xFF / 255 = 64.
    r, g, b, _ = shot.pixel(160, 120)
    assert abs(r - 102) <= 2 and abs(g - 64) <= 2 and abs(b - 64) <= 2
    # Outside the card the backdrop is untouched.
    assert shot.pixel(20, 120)[:3] == (0xCC, 0x80, 0x40)
    # The top row, 34 px in from the card's left edge: a continuous corner of radius 40 covers
    # 11 % of that pixel, a circular one 61 % (the continuous curve leaves the edge 61 px
    # before the corner, the circle 40 px before), so the red is near the backdrop's 204 here.
    assert shot.pixel(40 + 34, 40)[0] > 180
    card.corner_curve = "circular"
    conn.sync()
    assert "cornerCurve" not in mine(conn)["root"]["sublayers"][1]
    assert conn.screenshot().pixel(40 + 34, 40)[0] < 160


def test_misspelt_names_are_refused_by_name(conn: lamina.Connection) -> None:
    box = lamina.Layer(frame=(0, 0, 50, 50), background_color="#FFFFFF")
    conn.root.add_sublayer(box)
    conn.sync()
    box.compositing_filter = "multiply"
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    assert info.value.name == "invalid-property"
    assert "'multiply'" in info.value.message and "multiplyBlendMode" in info.value.message
    box.corner_curve = "squircle"
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    assert "'squircle'" in info.value.message and "circular, continuous" in info.value.message
    # Nothing else was affected: the box draws as before and the connection works.
    assert conn.screenshot().pixel(25, 25) == (255, 255, 255, 255)
