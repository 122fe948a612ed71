"""Scroll layers in Python against a real laminad (virtual clock): scroll_to and its Core
Animation relatives read back, a drag laminad scrolls reported as scroll events with the
layer's bounds following, and refused values naming the property."""

from __future__ import annotations

import math

import pytest

import lamina


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-scroll")
    yield c
    c.close()


def make_list(rows: int = 100) -> lamina.ScrollLayer:
    """A 320 x 240 vertical scroll layer of `rows` 40-point rows, scrolled by touch."""
    scroll = lamina.ScrollLayer(frame=(0, 0, 320, 240), scroll_mode="vertically", scrolls_on_touch=True,
                                masks_to_bounds=True)
    for i in range(rows):
        scroll.add_sublayer(lamina.Layer(frame=(0, 40 * i, 320, 40),
                                         background_color=(1.0, 0.0, 0.0, 1.0) if i % 2 else (0.0, 0.0, 1.0, 1.0)))
    return scroll


def test_scroll_to_and_its_relatives_read_back(conn: lamina.Connection) -> None:
    scroll = make_list()
    assert scroll.kind == "scroll" and scroll.scroll_mode == "vertically" and scroll.paging_enabled is False
    conn.root.add_sublayer(scroll)
    with conn.transaction(disable_actions=True):
        scroll.scroll_to((50, 400))                       # vertically: x stays
    conn.sync()
    assert scroll.bounds == (0.0, 400.0, 320.0, 240.0)
    assert conn.tree()["clients"][0]["root"]["sublayers"][0]["bounds"] == [0, 400, 320, 240]
    assert conn.screenshot().pixel(160, 20) == (0, 0, 255, 255)    # row 10, blue, at the top
    row = scroll.sublayers[20]
    with conn.transaction(disable_actions=True):
        row.scroll_point((0, 0))                          # row 20 to the top
    assert scroll.bounds[:2] == (0.0, 800.0)
    with conn.transaction(disable_actions=True):
        scroll.sublayers[2].scroll_rect_to_visible((0, 0, 320, 40))   # row 2: its near edge to the top
    assert scroll.bounds[:2] == (0.0, 80.0)
    scroll.scroll_to_rect((0, 200, 10, 40))               # already in view: nothing moves
    assert scroll.bounds[:2] == (0.0, 80.0)
    # 80…320 shows: rows 2 to 7 whole, row 8 not at all.
    assert scroll.sublayers[3].visible_rect == (0.0, 0.0, 320.0, 40.0)
    assert scroll.sublayers[8].visible_rect == (0.0, 0.0, 0.0, 0.0)
    assert scroll.visible_rect == scroll.bounds          # no scroll layer above it
    with conn.transaction(disable_actions=True):
        scroll.scroll_to((0, 100))
    assert scroll.sublayers[2].visible_rect == (0.0, 20.0, 320.0, 20.0)   # its lower half
    conn.sync()
    assert conn.tree()["clients"][0]["root"]["sublayers"][0]["bounds"] == [0, 100, 320, 240]


def test_a_drag_is_scrolled_by_laminad_and_reported(conn: lamina.Connection) -> None:
    scroll = make_list()
    conn.root.add_sublayer(scroll)
    conn.sync()
    seen: list = []
    scroll.on_scroll = seen.append
    conn.inject_input("touchDown", 1, 160, 200)
    for i in range(1, 9):                                 # 8 moves of 20 points up, 1/60 s apart
        conn.advance_clock(1 / 60)
        conn.inject_input("touchMotion", 1, 160, 200 - 20 * i)
    conn.advance_clock(0.5)                               # held still: no momentum
    conn.inject_input("touchUp", 1)
    conn.advance_clock(0.1)
    conn.poll_events()
    # The scroll took the touch at the first move (past the 10-point threshold): 140 points.
    assert scroll.bounds == (0.0, 140.0, 320.0, 240.0)
    assert [e.phase for e in seen][:1] == ["began"] and seen[-1].phase == "ended"
    assert all(e.layer is scroll and e.source == "touch" for e in seen)
    assert seen[-1].offset == (0.0, 140.0)
    assert {e.phase for e in seen[1:-1]} == {"moved"}
    # A fling with momentum: 6 moves of 30 points a frame, released at once.
    seen.clear()
    conn.inject_input("touchDown", 1, 160, 220)
    for i in range(1, 7):
        conn.advance_clock(1 / 60)
        conn.inject_input("touchMotion", 1, 160, 220 - 30 * i)
    conn.inject_input("touchUp", 1)
    conn.advance_clock(5)
    conn.poll_events()
    k = -1000 * math.log(0.998)
    assert abs(scroll.bounds[1] - (290 + 1790 / k)) < 1e-6
    assert seen[-1].phase == "ended" and seen[-1].velocity == (0.0, 0.0)


def test_refused_values_name_the_property(conn: lamina.Connection) -> None:
    scroll = lamina.ScrollLayer(frame=(0, 0, 100, 100))
    conn.root.add_sublayer(scroll)
    conn.sync()
    scroll.scroll_content_size = (-5, 100)
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    assert info.value.name == "invalid-property" and "scrollContentSize" in info.value.message
    scroll.scroll_content_size = (math.nan, 100)
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    assert "scrollContentSize" in info.value.message and "finite" in info.value.message
    scroll.scroll_mode = "sideways"
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    assert "scrollMode" in info.value.message and "vertically" in info.value.message
    # The client library itself refuses what is not a size.
    with pytest.raises((TypeError, ValueError)):
        scroll.scroll_content_size = "big"
