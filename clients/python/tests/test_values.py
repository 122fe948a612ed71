"""Values, transforms, paths, timing functions and PNG, without laminad."""

from __future__ import annotations

import math

import pytest

import lamina
from lamina import transform
from lamina.png import decode_png, encode_png
from lamina.values import color, key_path_type, rect, typed


def test_colours() -> None:
    assert color("#FF8800") == (1.0, 136 / 255, 0.0, 1.0)
    assert color("#FF880080") == (1.0, 136 / 255, 0.0, 128 / 255)
    assert color("#fff") == (1.0, 1.0, 1.0, 1.0)
    assert color((0.5, 0.25, 0)) == (0.5, 0.25, 0.0, 1.0)
    assert color(None) == (0.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="#RRGGBB"):
        color("#12345")
    with pytest.raises(ValueError):
        color((1, 2))


def test_layer_values_are_checked_and_kept_canonical() -> None:
    layer = lamina.Layer()
    layer.bounds = ((1, 2), (3, 4))
    assert layer.bounds == (1.0, 2.0, 3.0, 4.0)
    assert rect([0, 0, 5, 5]) == (0.0, 0.0, 5.0, 5.0)
    with pytest.raises(TypeError, match="opacity"):
        layer.opacity = "half"
    with pytest.raises(TypeError, match="hidden"):
        layer.hidden = 1
    layer.transform = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [5, 6, 0, 1]]
    assert layer.transform == transform.translate(5, 6)
    with pytest.raises(KeyError, match="backgroundColor"):
        layer.set_value("backgroundColour", "#000")
    layer.set_value("backgroundColor", "#000000")
    assert layer.background_color == (0.0, 0.0, 0.0, 1.0) == layer.value("background_color")


def test_transforms_follow_core_animation() -> None:
    r = transform.rotate(math.pi / 2)
    x, y, _ = transform.apply(r, 1, 0)
    assert math.isclose(x, 0, abs_tol=1e-12) and math.isclose(y, 1)        # y down: clockwise on screen
    t = transform.concat(transform.scale(2, 3), transform.translate(10, 20))  # scale first, then move
    assert transform.apply(t, 1, 1)[:2] == (12.0, 23.0)
    assert transform.concat() == transform.identity()
    assert transform.perspective(500)[11] == -1 / 500
    assert transform.rotate(1, 0, 0, 0) == transform.IDENTITY


def test_key_path_types() -> None:
    assert key_path_type("position") == "point"
    assert key_path_type("position.x") == "number"
    assert key_path_type("bounds.size") == "size"
    assert key_path_type("transform.rotation") == "number"
    assert key_path_type("transform.translation") == "size"
    assert key_path_type("nonsense") is None
    assert typed((1, 2, 3, 4), "backgroundColor") == ("color", (1.0, 2.0, 3.0, 4.0))
    assert typed((1, 2, 3, 4), "bounds") == ("rect", (1.0, 2.0, 3.0, 4.0))
    assert typed(lamina.TypedValue("size", (1, 2)), "") == ("size", (1.0, 2.0))
    assert typed((10, 20), "transform", "translate") == ("point", (10.0, 20.0))


def test_timing_functions() -> None:
    assert lamina.TimingFunction.LINEAR.value_at(0.3) == pytest.approx(0.3)
    assert lamina.TimingFunction.named("easeInEaseOut").value_at(0.5) == pytest.approx(0.5)
    assert lamina.TimingFunction.EASE_IN.value_at(0.5) < 0.5
    with pytest.raises(ValueError, match="easeIn"):
        lamina.TimingFunction.named("bouncy")
    with pytest.raises(ValueError, match="fill mode"):
        lamina.BasicAnimation("opacity", fill_mode="sometimes").encode()


def test_paths() -> None:
    p = lamina.Path.rect(0, 0, 10, 20)
    assert [e[0] for e in p.elements] == ["moveTo", "lineTo", "lineTo", "lineTo", "closeSubpath"]
    assert lamina.Path([("moveTo", [(1, 2)]), ("closeSubpath", [])]) == lamina.Path().move_to(1, 2).close()
    with pytest.raises(ValueError, match="curveTo takes 3 points"):
        lamina.Path([("curveTo", [(1, 2)])])
    assert len(lamina.Path.ellipse(0, 0, 10, 10)) == 6


def test_png_round_trip() -> None:
    pixels = bytes(range(256)) * 3
    data = encode_png(8, 24, pixels)
    assert data.startswith(b"\x89PNG")
    assert decode_png(data) == (8, 24, pixels)
    with pytest.raises(ValueError):
        encode_png(2, 2, b"")


def test_images_check_their_layout() -> None:
    with pytest.raises(ValueError, match="takes 16 bytes"):
        lamina.Image(2, 2, b"\x00" * 15)
    with pytest.raises(ValueError, match="width and height"):
        lamina.Image(0, 2, b"")
    image = lamina.Image(2, 1, b"\x00" * 8)
    with pytest.raises(ValueError, match="outside"):
        image.update(1, 0, 2, 1, b"\x00" * 8)
    image.close()
    with pytest.raises(ValueError, match="closed"):
        _ = image.fd


def test_layer_trees_refuse_cycles() -> None:
    a, b = lamina.Layer(), lamina.Layer()
    a.add_sublayer(b)
    with pytest.raises(ValueError, match="sublayer"):
        b.add_sublayer(a)
    with pytest.raises(ValueError):
        a.add_sublayer(a)
    assert b.superlayer is a and a.sublayers == (b,)
    b.remove_from_superlayer()
    assert b.superlayer is None and a.sublayers == ()
