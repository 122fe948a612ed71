"""Images laminad makes from encoded files (create-encoded-image, protocol 1.7) from Python:
an SVG drawn sharp under a scale transform, refused documents, and the wire form against the
Swift codec's golden fixture."""

from __future__ import annotations

import io

import pytest

import lamina
from lamina import wire

from conftest import REPOSITORY_ROOT

CIRCLE = b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" r="20" fill="#fff"/></svg>'


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-encoded")
    yield c
    c.close()


def test_wire_form_matches_the_golden_fixture() -> None:
    data = (REPOSITORY_ROOT / "protocol/fixtures/commit-encoded-images.bin").read_bytes()
    ops = [wire.CreateEncodedImage(7, "svg", 1234), wire.CreateEncodedImage(8, "gif", 56), wire.CreateEncodedImage(9, "webp", 78)]
    assert wire.encode_commit(13, ops) == data
    # The operations read back: each is 14 bytes (opcode, u32 image, u8 format, u64 length), last in the frame.
    r = wire.Reader(data[-14 * len(ops):])
    assert [wire.read_operation(r) for _ in ops] == ops


def edge_width(shot, y: int, x0: int, x1: int) -> int:  # type: ignore[no-untyped-def]
    return sum(1 for x in range(x0, x1) if 20 < shot.pixel(x, y)[0] < 235)


def test_svg_under_scale_four_is_sharp(conn) -> None:  # type: ignore[no-untyped-def]
    svg = lamina.Image.from_svg(CIRCLE)
    assert (svg.width, svg.height, svg.encoding) == (0, 0, ("svg", len(CIRCLE)))
    layer = lamina.Layer()
    layer.bounds = (0, 0, 40, 40)
    layer.position = (100, 120)
    layer.transform = lamina.transform.scale(4, 4)
    layer.contents = svg
    conn.root.add_sublayer(layer)
    conn.sync()
    shot = conn.screenshot()
    # Row 80 crosses the circle 40 points above its centre: a 1x raster magnified 4x would
    # blur each edge over about 4 pixels.
    assert edge_width(shot, 80, 15, 195) <= 4
    assert shot.pixel(100, 120)[0] > 240
    assert shot.pixel(100, 42)[0] > 200 and shot.pixel(100, 36)[0] < 20


def test_bad_svg_is_refused_and_the_good_one_stays(conn) -> None:  # type: ignore[no-untyped-def]
    good = lamina.Image.from_svg(CIRCLE)
    layer = lamina.Layer()
    layer.frame = (0, 0, 40, 40)
    layer.contents = good
    conn.root.add_sublayer(layer)
    conn.sync()
    other = lamina.Layer()
    other.contents = lamina.Image.from_svg(b"<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect")
    conn.root.add_sublayer(other)
    with pytest.raises(lamina.LaminaError, match="could not be parsed"):
        conn.sync()
    assert conn.screenshot().pixel(20, 20)[0] > 240


def test_from_file_tells_the_kind_by_the_first_bytes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "logo.svg"
    path.write_bytes(b"\n  <?xml version='1.0'?>" + CIRCLE)
    assert lamina.Image.from_file(str(path)).encoding == ("svg", len(path.read_bytes()))
    gif = tmp_path / "a.gif"
    gif.write_bytes(b"GIF89a\x05\x00\x03\x00" + bytes(20))
    image = lamina.Image.from_file(str(gif))
    assert (image.width, image.height, image.encoding) == (5, 3, ("gif", 30))
    with pytest.raises(ValueError, match="format must be one of"):
        lamina.Image.from_encoded(b"x", "bmp")


def make_gif(colours, durations, loop):  # type: ignore[no-untyped-def]
    """A 4x4 GIF of flat frames, made with Pillow (skipped without it)."""
    pil = pytest.importorskip("PIL.Image", reason="Pillow (python3-pil) makes the GIF")
    frames = [pil.new("RGB", (4, 4), c) for c in colours]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=loop)
    return out.getvalue()


def test_gif_frames_at_exact_virtual_times(conn) -> None:  # type: ignore[no-untyped-def]
    gif = lamina.Image.from_encoded(make_gif([(255, 0, 0), (0, 255, 0)], [100, 200], 0), "gif")
    assert (gif.width, gif.height) == (4, 4)
    layer = lamina.Layer()
    layer.frame = (0, 0, 40, 40)
    layer.contents = gif
    layer.magnification_filter = "nearest"
    conn.root.add_sublayer(layer)
    conn.sync()

    def colour() -> str:
        r, g, b, _ = conn.screenshot().pixel(20, 20)
        return "red" if r > 200 and g < 50 else "green" if g > 200 and r < 50 else f"{(r, g, b)}"

    seen = [colour()]
    for step in (0.099, 0.001, 0.199, 0.001):
        conn.advance_clock(step)
        seen.append(colour())
    # t = 0, 0.099, 0.1 (green from exactly 0.1), 0.299, 0.3 (red again: it loops).
    assert seen == ["red", "red", "green", "green", "red"]


def test_a_still_webp_is_decoded_here_and_an_animated_one_goes_to_laminad(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pil = pytest.importorskip("PIL.Image", reason="Pillow (python3-pil) decodes WebP")
    still, animated = tmp_path / "still.webp", tmp_path / "animated.webp"
    pil.new("RGB", (3, 2), (0, 0, 255)).save(still, format="WEBP", lossless=True)
    frames = [pil.new("RGB", (5, 4), c) for c in [(255, 0, 0), (0, 255, 0)]]
    frames[0].save(animated, format="WEBP", save_all=True, append_images=frames[1:], duration=[100, 100], lossless=True)
    s = lamina.Image.from_file(str(still))
    assert s.encoding is None and (s.width, s.height) == (3, 2)
    a = lamina.Image.from_file(str(animated))
    assert a.encoding == ("webp", animated.stat().st_size) and (a.width, a.height) == (5, 4)
