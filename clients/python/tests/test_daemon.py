"""The package against a real laminad: headless, virtual clock, its own socket. Pixels are
read from screenshots at exact virtual times; nothing sleeps."""

from __future__ import annotations

import fcntl
import gc
import os
import socket
import struct
import sys

import pytest

import lamina
from lamina import wire
from lamina.png import decode_png, encode_png

BLACK = (0, 0, 0, 255)
ORANGE = (255, 136, 0, 255)


def close_to(pixel: tuple, expected: tuple, tolerance: int = 2) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, expected))


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest")
    yield c
    c.close()


def test_readme_program(conn: lamina.Connection, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The README's example in Python: a rounded layer, an implicit fade, an explicit fade, an
    image and a screenshot, each checked in pixels at exact virtual times."""
    assert conn.display_size == (320, 240) and conn.clock == "virtual"
    box = lamina.Layer()
    box.bounds = (0, 0, 100, 50)
    box.position = (100, 100)                # frame (50, 75, 100, 50)
    box.background_color = "#FF8800"
    box.corner_radius = 12
    conn.root.add_sublayer(box)
    conn.sync()
    assert box.frame == (50.0, 75.0, 100.0, 50.0)
    shot = conn.screenshot()
    assert shot.pixel(100, 100) == ORANGE
    assert shot.pixel(55, 100) == ORANGE      # the left edge, away from the corners
    assert shot.pixel(51, 76) == BLACK        # the top-left corner is rounded away
    assert shot.pixel(45, 100) == BLACK

    # An implicit fade: 0.25 s with the default curve, from the presentation value 1 to 0.
    start = conn.time
    box.opacity = 0
    conn.sync()
    assert box.opacity == 0.0                 # the model changes at once
    conn.advance_clock(0.125)
    expected = 1 - lamina.TimingFunction.DEFAULT.value_at(0.5)
    assert abs(box.presentation().opacity - expected) < 1e-4
    assert close_to(conn.screenshot().pixel(100, 100), (round(255 * expected), round(136 * expected), 0, 255))
    conn.advance_clock(start + 0.3 - conn.time)
    assert box.presentation().opacity == 0
    assert conn.screenshot().pixel(100, 100) == BLACK

    # An explicit fade over 1 s, linear; actions off for the model change so it is not replaced.
    events: list = []
    with conn.transaction(disable_actions=True):
        box.opacity = 1
    fade = lamina.BasicAnimation("opacity", from_value=1, to_value=0, duration=1)
    box.add(fade, "fade", on_start=lambda e: events.append(("start", e.key)), on_stop=lambda e: events.append(("stop", e.finished)))
    assert box.animation_keys() == ["fade"]
    conn.sync()
    start = conn.time
    for t, opacity in ((0.25, 0.75), (0.5, 0.5), (0.75, 0.25)):
        conn.advance_clock(start + t - conn.time)
        assert abs(box.presentation().opacity - opacity) < 1e-4
        assert close_to(conn.screenshot().pixel(100, 100), (round(255 * opacity), round(136 * opacity), 0, 255))
    assert events == [("start", "fade")]
    conn.advance_clock(0.5)
    conn.poll_events()
    assert events == [("start", "fade"), ("stop", True)]
    assert box.animation_keys() == []
    assert conn.screenshot().pixel(100, 100) == ORANGE   # removed on completion: the model shows

    # An image: 2 × 2 RGBA pixels scaled up to 40 × 40 with nearest filtering.
    pixels = bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255])
    picture = lamina.Layer(frame=(200, 20, 40, 40), contents=lamina.Image(2, 2, pixels), magnification_filter="nearest")
    conn.root.add_sublayer(picture)
    conn.sync()
    path = tmp_path / "shot.png"
    shot = conn.screenshot(str(path))
    assert [shot.pixel(x, y) for x, y in ((210, 30), (230, 30), (210, 50), (230, 50))] == [
        (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 255)]
    # The PNG holds exactly the screenshot's pixels.
    assert decode_png(path.read_bytes()) == (320, 240, shot.pixels)


def test_transaction_settings_and_completion(conn: lamina.Connection) -> None:
    box = lamina.Layer(frame=(0, 0, 40, 40), background_color=(1, 1, 1))
    conn.root.add_sublayer(box)
    conn.sync()
    done: list = []
    with conn.transaction(duration=2, timing_function="linear", completion=lambda: done.append(conn.time)):
        box.position = (120, 20)
    start = conn.time
    conn.advance_clock(1)
    position = box.presentation().position
    assert abs(position[0] - 70) < 1e-6 and abs(position[1] - 20) < 1e-6   # halfway, linear
    shot = conn.screenshot()
    assert shot.pixel(70, 20) == (255, 255, 255, 255) and shot.pixel(25, 20) == BLACK
    assert done == []
    conn.advance_clock(1.5)
    conn.poll_events()
    assert done == [start + 2.5]
    # A transaction with a completion and no animations completes at once.
    nothing: list = []
    with conn.transaction(completion=lambda: nothing.append(True)):
        pass
    conn.sync()
    assert nothing == [True]


def test_kinds_of_layers_draw(conn: lamina.Connection) -> None:
    shape = lamina.ShapeLayer(frame=(10, 10, 60, 60), path=lamina.Path.rect(0, 0, 30, 60), fill_color="#00FF00")
    gradient = lamina.GradientLayer(frame=(100, 10, 100, 20), colors=["#FF0000", "#0000FF"], start_point=(0, 0.5),
                                    end_point=(1, 0.5))
    conn.root.add_sublayer(shape)
    conn.root.add_sublayer(gradient)
    conn.sync()
    shot = conn.screenshot()
    assert shot.pixel(20, 40) == (0, 255, 0, 255) and shot.pixel(55, 40) == BLACK
    left, right = shot.pixel(101, 20), shot.pixel(198, 20)
    assert left[0] > 240 and left[2] < 15 and right[2] > 240 and right[0] < 15
    tree = conn.tree()
    (me,) = [c for c in tree["clients"] if c["name"] == "pytest"]
    assert [s.get("class", "layer") for s in me["root"]["sublayers"]] == ["shape", "gradient"]


def test_out_of_range_properties_raise_the_servers_error(conn: lamina.Connection) -> None:
    box = lamina.Layer(frame=(0, 0, 50, 50), background_color="#FFFFFF")
    conn.root.add_sublayer(box)
    conn.sync()
    box.bounds = (0, 0, -10, 50)
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    e = info.value
    assert e.name == "invalid-property" and e.code == 10 and e.subject == "commit"
    assert "bounds" in e.message and e.message in str(e)
    box.contents_gravity = "sideways"
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    assert info.value.name == "invalid-property"
    assert "sideways" in info.value.message and "resizeAspect" in info.value.message
    # Refused commits changed nothing: the box is drawn as before, and the connection works.
    assert conn.screenshot().pixel(25, 25) == (255, 255, 255, 255)
    # A request error names the request.
    with pytest.raises(lamina.LaminaError) as info:
        conn.advance_clock(-1)
    assert info.value.name == "invalid-request" and info.value.subject == "request"


def test_malformed_frames_get_a_clear_error_and_laminad_carries_on(daemon, conn: lamina.Connection) -> None:  # type: ignore[no-untyped-def]
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.connect(daemon.socket)
    raw.sendall(wire.encode_hello("raw"))
    raw.sendall(struct.pack("<IHH", 4, 3, 7) + b"\x01\x00\x00\x00")   # a request frame whose reserved field is 7
    data = b""
    while chunk := raw.recv(65536):
        data += chunk
    raw.close()
    messages = [wire.decode_server(t, b) for t, b in wire.split_frames(data)]
    assert isinstance(messages[0], wire.Welcome)
    error = messages[-1]
    assert isinstance(error, lamina.LaminaError) and error.name == "malformed-frame"
    assert "reserved" in error.message
    # A body that is not a message: the error is reported, the connection stays.
    conn._send(wire.frame(2, b"\x01\x00\x00\x00\x01\x00\x00\x00\x63\x01\x00\x00\x00"))   # commit 1: opcode 99
    conn._serial += 1
    with pytest.raises(lamina.LaminaError) as info:
        conn.sync()
    assert info.value.name == "malformed-message" and "opcode" in info.value.message
    conn.root.add_sublayer(lamina.Layer(frame=(0, 0, 10, 10), background_color="#FFFFFF"))
    conn.sync()
    assert conn.screenshot().pixel(5, 5) == (255, 255, 255, 255)


def test_image_memory_is_sealed_and_updates_show(conn: lamina.Connection) -> None:
    image = lamina.Image(1, 1, bytes([0, 0, 255, 255]), order="bgra")   # red in BGRA
    seals = fcntl.fcntl(image.fd, fcntl.F_GET_SEALS)
    assert seals & fcntl.F_SEAL_SHRINK and seals & fcntl.F_SEAL_GROW and seals & fcntl.F_SEAL_SEAL
    layer = lamina.Layer(frame=(0, 0, 20, 20), contents=image)
    conn.root.add_sublayer(layer)
    conn.sync()
    assert conn.screenshot().pixel(10, 10) == (255, 0, 0, 255)
    image.update(0, 0, 1, 1, bytes([255, 0, 0, 255]))                   # blue in BGRA
    conn.sync()
    assert conn.screenshot().pixel(10, 10) == (0, 0, 255, 255)
    assert conn.stats()["images"] == 1
    layer.contents = None
    del image
    gc.collect()
    conn.sync()
    assert conn.stats()["images"] == 0
    assert conn.screenshot().pixel(10, 10) == BLACK


def test_image_from_png(conn: lamina.Connection, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dot.png"
    path.write_bytes(encode_png(1, 1, bytes([0, 255, 0, 255])))
    try:
        import PIL  # noqa: F401
    except ImportError:
        pytest.skip("Pillow is not installed (apt install python3-pil)")
    layer = lamina.Layer(frame=(0, 0, 20, 20), contents=lamina.Image.from_png(str(path)))
    conn.root.add_sublayer(layer)
    conn.sync()
    assert conn.screenshot().pixel(10, 10) == (0, 255, 0, 255)
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match="Pillow"):
        lamina.Image.from_png(str(path))


def test_tree_sublayers_and_released_layers(conn: lamina.Connection) -> None:
    parent = lamina.Layer(name="parent", frame=(0, 0, 100, 100))
    a, b, c = (lamina.Layer(name=n) for n in "abc")
    conn.root.add_sublayer(parent)
    parent.add_sublayer(a)
    parent.add_sublayer(b)
    parent.insert_sublayer(c, at=0)
    conn.sync()

    def names() -> list:
        (me,) = [x for x in conn.tree()["clients"] if x["name"] == "pytest"]
        (p,) = me["root"]["sublayers"]
        return [s.get("name") for s in p.get("sublayers", [])]

    assert names() == ["c", "a", "b"] and [l.name for l in parent.sublayers] == ["c", "a", "b"]
    parent.add_sublayer(c)           # moves it to the end
    b.remove_from_superlayer()
    conn.sync()
    assert names() == ["a", "c"]
    layers = conn.stats()["layers"]
    del b
    gc.collect()
    conn.sync()
    assert conn.stats()["layers"] == layers - 1


def test_input_events_reach_the_layer(conn: lamina.Connection) -> None:
    button = lamina.Layer(frame=(100, 100, 50, 50), background_color="#FFFFFF")
    inner = lamina.Layer(frame=(0, 0, 10, 10))
    button.add_sublayer(inner)
    conn.root.add_sublayer(button)
    conn.sync()
    seen: list = []
    button.on_input = seen.append
    conn.inject_input("touchDown", 1, 105, 105)     # hits `inner`, which has no handler: it goes up
    conn.inject_input("touchUp", 1)
    assert [(e.kind, e.layer, e.location, e.injected) for e in seen] == [
        ("touchDown", inner, (5.0, 5.0), True), ("touchUp", inner, (5.0, 5.0), True)]
    # The touch down gave this client the keyboard focus, reported on the root layer.
    assert [(e.kind, e.layer) for e in conn.poll_events() if isinstance(e, lamina.InputEvent)] == [
        ("focusIn", conn.root), ("touchDown", inner), ("touchUp", inner)]


def test_connect_finds_the_socket_from_the_environment(daemon, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LAMINA_SOCKET", daemon.socket)
    assert lamina.socket_candidates() == [daemon.socket]
    with lamina.connect() as c:
        assert c.path == daemon.socket and c.display_size == (320, 240)
    monkeypatch.delenv("LAMINA_SOCKET")
    monkeypatch.setenv("XDG_RUNTIME_DIR", os.path.dirname(daemon.socket))
    assert lamina.socket_candidates() == [os.path.join(os.path.dirname(daemon.socket), "lamina-0"), "/run/lamina/lamina.sock"]
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/nonexistent")
    if os.path.exists(lamina.protocol.SYSTEM_SOCKET):
        return  # a system laminad answers there
    with pytest.raises(lamina.ConnectionClosed, match="/nonexistent/lamina-0"):
        lamina.connect()


def test_time_follows_another_clients_clock_move(daemon, conn: lamina.Connection) -> None:  # type: ignore[no-untyped-def]
    other = lamina.connect(daemon.socket, name="other")
    try:
        start = conn.time
        other.advance_clock(2)
        conn.stats()   # a round trip: laminad's clock message came before the reply
        assert conn.time == start + 2
    finally:
        other.close()
